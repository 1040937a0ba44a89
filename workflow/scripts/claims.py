from mixlib.experiments.claims import build_claims
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.provenance import stamp
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    tables = {name: read_table(path) for name, path in snakemake.input.items()}
    claims = build_claims(tables)
    log.info("%d claims, %d hold", len(claims), int((claims["holds"] == "yes").sum()))
    write_table(stamp(claims), snakemake.output[0])
