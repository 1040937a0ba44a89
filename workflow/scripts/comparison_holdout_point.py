from mixlib.experiments.comparison_holdout import comparison_holdout_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = comparison_holdout_job(
        load_repeats(snakemake, params.standardise), split=wildcards.split,
        dataset=params.dataset, model=wildcards.model, params=params.settings,
        alpha=params.alpha, seed=params.seed, em=params.em,
    )
    write_table(table, snakemake.output[0])
