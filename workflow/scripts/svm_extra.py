from mixlib.experiments.contract import run_stages
from mixlib.experiments.svm import mkl_stage, svdd_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    make_stage = {"mkl": mkl_stage, "svdd": svdd_stage}[wildcards.extra]
    stage = make_stage(split=wildcards.split, params=params.settings)
    write_table(run_stages(stage, load_repeats(snakemake, params.standardise)), snakemake.output[0])
