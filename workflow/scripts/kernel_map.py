from mixlib.experiments.mixture import kernel_map_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = kernel_map_job(load_repeats(snakemake, params.standardise), seed=params.seed,
                           split=snakemake.wildcards.split, dataset=params.dataset,
                           n_components=params.n_components, em=params.em)
    write_table(table, snakemake.output[0])
