from mixlib.experiments.svm import mkl_job, svdd_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    job = {"mkl": mkl_job, "svdd": svdd_job}[wildcards.extra]
    table = job(load_repeats(snakemake, params.standardise), params.settings, wildcards.split)
    write_table(table, snakemake.output[0])
