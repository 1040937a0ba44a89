from mixlib.experiments.preparation import summarise_splits
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params = snakemake.params
    tables = {name: read_table(path) for name, path in zip(params.splits, snakemake.input)}
    write_table(summarise_splits(tables, dict(zip(params.splits, params.specs))), snakemake.output[0])
