from mixlib.experiments.semisupervised import dna_kernel_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = dna_kernel_job(load_repeats(snakemake, params.standardise), int(wildcards.kernels),
                           params.settings, params.seed, wildcards.split, params.encoding)
    write_table(table, snakemake.output[0])
