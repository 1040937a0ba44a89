from mixlib.experiments.semisupervised import rounds_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = rounds_job(load_repeats(snakemake, params.standardise), wildcards.method,
                       params.n_components, params.settings, params.seed, wildcards.split,
                       params.dataset)
    write_table(table, snakemake.output[0])
