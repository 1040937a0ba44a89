from mixlib.experiments.semisupervised import rounds_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = rounds_job(load_repeats(snakemake, params.standardise), seed=params.seed,
                       split=wildcards.split, dataset=params.dataset, methods=list(params.methods),
                       n_components=params.n_components, em=params.em, settings=params.settings,
                       first=params.repeats, needed=params.min_n)
    write_table(table, snakemake.output[0])
