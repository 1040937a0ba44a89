from mixlib.experiments.preparation import summarise_datasets
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    tables = {name: read_table(path) for name, path in zip(snakemake.params.datasets, snakemake.input)}
    write_table(summarise_datasets(tables), snakemake.output[0])
