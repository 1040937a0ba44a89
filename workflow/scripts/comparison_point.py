from mixlib.pipeline.config import check_fold_sizes
from mixlib.experiments.comparison import comparison_dataset_job
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    prepared = read_table(snakemake.input[0])
    # A url data set's classes are known only once fetched: same message as the pre-run check.
    check_fold_sizes(prepared["class"].to_numpy(), params.n_folds, wildcards.dataset)
    table = comparison_dataset_job(
        prepared, dataset=wildcards.dataset, model=wildcards.model, params=params.settings,
        n_folds=params.n_folds, alpha=params.alpha, seed=params.seed,
        standardise=params.standardise, impute_method=params.impute["method"],
        impute_components=params.impute["n_components"], em=params.em,
        group_duplicates=params.group_duplicates, n_repeats=params.cv_repeats,
    )
    write_table(table, snakemake.output[0])
