from mixlib.analysis.comparison_summary import comparison_summary
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.provenance import stamp
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    write_table(stamp(comparison_summary(read_table(snakemake.input[0]))), snakemake.output[0])
