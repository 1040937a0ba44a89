from mixlib.pipeline.provenance import write_provenance
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    write_provenance(snakemake.params.record, snakemake.output[0])
    log.info("provenance %s", snakemake.params.record["hash"])
