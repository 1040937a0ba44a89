from mixlib.experiments.ensembles import ensemble_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = ensemble_job(load_repeats(snakemake, params.standardise), wildcards.method,
                         params.max_members, params.settings, params.base_mixture, params.seed,
                         wildcards.split)
    write_table(table, snakemake.output[0])
