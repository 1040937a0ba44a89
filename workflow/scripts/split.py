from mixlib.datasets.parsers import read_normalised_csv
from mixlib.experiments.preparation import make_split
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    params, inputs = snakemake.params, snakemake.input
    raw = read_normalised_csv(inputs.raw) if "raw" in inputs.keys() else None
    split = make_split(read_table(inputs.prepared), snakemake.wildcards.split, params.spec,
                       params.seed, params.repeats, raw=raw)
    log.info("%d repeat(s); roles per repeat: %s", split["repeat"].nunique(),
             split.groupby("role").size().div(split["repeat"].nunique()).to_dict())
    write_table(split, snakemake.output[0])
