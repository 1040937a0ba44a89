from mixlib.experiments.imputation import imputation_study_job
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = imputation_study_job(
        read_table(snakemake.input[0]), float(wildcards.rate), params.methods, params.repeats,
        params.classifier, params.seed, wildcards.dataset,
    )
    write_table(table, snakemake.output[0])
