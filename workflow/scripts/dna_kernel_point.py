from mixlib.experiments.contract import run_stages
from mixlib.experiments.dna import dna_kernel_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    stage = dna_kernel_stage(split=wildcards.split, encoding=params.encoding,
                             n_components=int(wildcards.kernels), params=params.em,
                             dataset=params.dataset)
    table = run_stages(stage, load_repeats(snakemake, params.standardise), seed=params.seed)
    write_table(table, snakemake.output[0])
