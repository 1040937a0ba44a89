from mixlib.experiments.data import make_split
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    params = snakemake.params
    split = make_split(read_table(snakemake.input[0]), snakemake.wildcards.split, params.spec,
                       params.seed, params.repeats)
    log.info("roles per repeat: %s", split.groupby("role").size().div(params.repeats).to_dict())
    write_table(split, snakemake.output[0])
