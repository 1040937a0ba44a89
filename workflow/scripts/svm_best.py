from mixlib.experiments.contract import run_stages
from mixlib.experiments.svm import svm_best_stage
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    stage = svm_best_stage(split=snakemake.wildcards.split, grid=read_table(snakemake.input.grid),
                           params=params.grid)
    write_table(run_stages(stage, load_repeats(snakemake, params.standardise)), snakemake.output[0])
