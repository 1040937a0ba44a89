from mixlib.experiments.dna import dna_kernel_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = dna_kernel_job(load_repeats(snakemake, params.standardise), seed=params.seed,
                           split=wildcards.split, encoding=params.encoding,
                           kernel_counts=list(params.kernel_counts), em=params.em, dataset=params.dataset)
    write_table(table, snakemake.output[0])
