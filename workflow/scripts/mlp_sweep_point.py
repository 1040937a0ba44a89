from mixlib.experiments.mlp import mlp_sweep_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = mlp_sweep_job(load_repeats(snakemake, params.standardise), seed=params.seed,
                          split=wildcards.split, regime=wildcards.regime,
                          hidden_size=int(wildcards.hidden), params=params.training,
                          encoding=params.encoding, dataset=params.dataset)
    write_table(table, snakemake.output[0])
