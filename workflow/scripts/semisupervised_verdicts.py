from mixlib.experiments.claims import sensitivity_verdicts
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    verdicts = sensitivity_verdicts(read_table(snakemake.input[0]))
    log.info("%d chapter-5 verdicts over the sensitivity grid", len(verdicts))
    write_table(verdicts, snakemake.output[0])
