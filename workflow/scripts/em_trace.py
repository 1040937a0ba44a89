from mixlib.experiments.mixture import em_trace_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = em_trace_job(load_repeats(snakemake, params.standardise), params.n_components,
                         params.em, params.seed, snakemake.wildcards.split,
                         params.dataset)
    write_table(table, snakemake.output[0])
