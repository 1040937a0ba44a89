from mixlib.datasets.parsers import read_normalised_csv
from mixlib.datasets import categorical_columns, sequence_column
from mixlib.experiments.preparation import prepare_dataset
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    name, spec = snakemake.wildcards.dataset, snakemake.params.spec
    raw = read_normalised_csv(snakemake.input[0], sequence_column(name, spec),
                              categorical_columns(name, spec))
    prepared = prepare_dataset(raw, name, spec)
    log.info("%d rows, %d features", len(prepared), prepared.shape[1] - 2)
    write_table(prepared, snakemake.output[0])
