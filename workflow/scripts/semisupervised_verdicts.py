from mixlib.claims import sensitivity_verdicts
from mixlib.io import read_table, write_table
from mixlib.workflow import logged_job

with logged_job(snakemake) as log:
    verdicts = sensitivity_verdicts(read_table(snakemake.input[0]))
    log.info("%d chapter-5 verdicts over the sensitivity grid", len(verdicts))
    write_table(verdicts, snakemake.output[0])
