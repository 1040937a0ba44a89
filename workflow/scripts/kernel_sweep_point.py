from mixlib.experiments.semisupervised import kernel_sweep_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = kernel_sweep_job(load_repeats(snakemake, params.standardise), wildcards.method,
                             int(wildcards.kernels), params.settings, params.seed, wildcards.split,
                             params.dataset)
    write_table(table, snakemake.output[0])
