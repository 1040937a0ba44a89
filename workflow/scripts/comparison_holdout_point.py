from mixlib.experiments.comparison import comparison_holdout_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    # Every repeat is one unit of the protocol, standardised from its training rows there.
    run = comparison_holdout_job(
        load_repeats(snakemake, standardise_features=False), split=wildcards.split,
        dataset=params.dataset, model=wildcards.model, params=params.model_params,
        protocol=params.protocol, seed=params.seed, standardise=params.standardise,
        em=params.em,
    )
    write_table(run.scores, snakemake.output.scores)
    write_table(run.settings, snakemake.output.settings)
