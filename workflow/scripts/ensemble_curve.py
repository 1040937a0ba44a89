from mixlib.experiments.ensembles import ensemble_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = ensemble_job(load_repeats(snakemake, params.standardise), seed=params.seed,
                         split=wildcards.split, method=wildcards.method,
                         max_members=params.max_members, params=params.trees,
                         base_kernels=params.base_kernels, em=params.em)
    write_table(table, snakemake.output[0])
