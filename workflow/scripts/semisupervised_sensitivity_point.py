from mixlib.experiments.semisupervised import sensitivity_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = sensitivity_job(load_repeats(snakemake, params.standardise), params.n_components,
                            params.settings, list(params.restarts), params.seed, wildcards.split,
                            params.dataset)
    write_table(table, snakemake.output[0])
