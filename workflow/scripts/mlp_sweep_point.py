from mixlib.experiments.contract import run_stages
from mixlib.experiments.mlp import mlp_sweep_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    stage = mlp_sweep_stage(split=wildcards.split, regime=wildcards.regime,
                            hidden_size=int(wildcards.hidden), params=params.training,
                            encoding=params.encoding, dataset=params.dataset)
    table = run_stages(stage, load_repeats(snakemake, params.standardise), seed=params.seed)
    write_table(table, snakemake.output[0])
