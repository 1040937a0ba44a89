from mixlib.experiments.contract import run_stages
from mixlib.experiments.svm import mkl_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    stage = mkl_stage(split=snakemake.wildcards.split, params=params.settings)
    write_table(run_stages(stage, load_repeats(snakemake, params.standardise)), snakemake.output[0])
