from mixlib.experiments.imputation import imputation_study_job
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = imputation_study_job(
        read_table(snakemake.input[0]), rate=float(wildcards.rate), methods=params.methods,
        kernels_per_feature=params.kernels_per_feature, em=params.em, n_repeats=params.repeats,
        test_fraction=params.test_fraction,
        classifier_components=params.classifier_components, seed=params.seed,
        dataset=wildcards.dataset,
    )
    write_table(table, snakemake.output[0])
