from mixlib.experiments.contract import run_until_counted
from mixlib.experiments.mixture import em_trace_stage, has_sound_fit
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    stage = em_trace_stage(split=snakemake.wildcards.split, dataset=params.dataset,
                           n_components=params.n_components, em=params.em, n_restarts=params.n_restarts)
    table = run_until_counted(stage, load_repeats(snakemake, params.standardise), seed=params.seed,
                              first=params.repeats, needed=params.min_n, counts=has_sound_fit)
    write_table(table, snakemake.output[0])
