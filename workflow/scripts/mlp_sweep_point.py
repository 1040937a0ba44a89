from mixlib.experiments.mlp import mlp_sweep_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    wildcards, params = snakemake.wildcards, snakemake.params
    table = mlp_sweep_job(
        load_repeats(snakemake, params.standardise), wildcards.regime, int(wildcards.hidden),
        params.training, params.seed, wildcards.split,
    )
    write_table(table.assign(split=wildcards.split), snakemake.output[0])
