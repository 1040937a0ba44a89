from mixlib.experiments.comparison import comparison_dataset_job
from mixlib.datasets.checks import check_classes_fill_folds
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    prepared = read_table(snakemake.input[0])
    # A url data set's classes are known only once fetched: same message as the pre-run check.
    check_classes_fill_folds(prepared["class"].to_numpy(), params.protocol.n_folds, wildcards.dataset)
    run = comparison_dataset_job(
        prepared, dataset=wildcards.dataset, model=wildcards.model, params=params.model_params,
        protocol=params.protocol, seed=params.seed, standardise=params.standardise,
        impute=params.impute, em=params.em,
    )
    write_table(run.scores, snakemake.output.scores)
    write_table(run.settings, snakemake.output.settings)
