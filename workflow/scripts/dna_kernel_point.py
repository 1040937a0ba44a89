from mixlib.experiments.contract import run_stages
from mixlib.experiments.dna import dna_kernel_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    repeats = load_repeats(snakemake, params.standardise)
    stage = dna_kernel_stage(split=wildcards.split, encoding=params.encoding,
                             n_components=int(wildcards.kernels), em=params.em,
                             dataset=params.dataset)
    write_table(run_stages(stage, repeats, seed=params.seed), snakemake.output[0])
