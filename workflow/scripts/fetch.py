from mixlib.experiments.data import fetch_dataset
from mixlib.pipeline.io import write_csv
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    raw = fetch_dataset(snakemake.wildcards.dataset, snakemake.params.spec)
    log.info("%d rows, %d columns", *raw.shape)
    write_csv(raw, snakemake.output[0])
