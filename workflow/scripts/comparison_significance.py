from mixlib.analysis.comparison_stats import comparison_pairs, comparison_ranks
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.provenance import stamp
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    table = read_table(snakemake.input[0])
    write_table(stamp(comparison_pairs(table)), snakemake.output.pairs)
    write_table(stamp(comparison_ranks(table)), snakemake.output.ranks)
