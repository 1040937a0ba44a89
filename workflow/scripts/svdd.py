from mixlib.experiments.svm import svdd_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = svdd_job(load_repeats(snakemake, params.standardise), split=snakemake.wildcards.split,
                     params=params.model_params)
    write_table(table, snakemake.output[0])
