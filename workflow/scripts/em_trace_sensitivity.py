from mixlib.experiments.mixture import em_trace_floor_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = em_trace_floor_job(load_repeats(snakemake, params.standardise, params.repeats),
                               seed=params.seed, split=snakemake.wildcards.split,
                               dataset=params.dataset, n_components=params.n_components,
                               em=params.em, n_restarts=params.n_restarts, floors=params.floors)
    write_table(table, snakemake.output[0])
