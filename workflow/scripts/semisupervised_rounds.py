from mixlib.experiments.contract import run_until_counted
from mixlib.experiments.semisupervised import counted_repeats, rounds_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    stage = rounds_stage(split=wildcards.split, dataset=params.dataset, method=wildcards.method,
                         n_components=params.n_components, em=params.em, settings=params.settings)
    table = run_until_counted(stage, load_repeats(snakemake, params.standardise), seed=params.seed,
                              first=params.repeats, needed=params.min_n,
                              counts=counted_repeats(wildcards.method))
    write_table(table, snakemake.output[0])
