from mixlib.datasets.notices import data_notices
from mixlib.experiments.preparation import fetch_dataset
from mixlib.pipeline.io import write_csv
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    name = snakemake.wildcards.dataset
    raw = fetch_dataset(name, snakemake.params.spec)
    log.info("%d rows, %d columns", *raw.shape)
    for notice in data_notices(raw, f"datasets.{name}"):
        log.warning(notice)
    write_csv(raw, snakemake.output[0])
