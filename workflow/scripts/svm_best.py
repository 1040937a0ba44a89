from mixlib.experiments.svm import svm_best_job
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = svm_best_job(load_repeats(snakemake, params.standardise), split=snakemake.wildcards.split,
                         grid=read_table(snakemake.input.grid), params=params.grid)
    write_table(table, snakemake.output[0])
