from mixlib.experiments.impute_split import impute_split
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params = snakemake.params
    substitutes = impute_split(
        read_table(snakemake.input.prepared), read_table(snakemake.input.split),
        impute=params.impute, em=params.em, seed=params.seed,
        split_name=snakemake.wildcards.split,
    )
    write_table(substitutes, snakemake.output[0])
