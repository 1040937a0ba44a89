from mixlib.experiments.semisupervised_sweep import kernel_sweep_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    table = kernel_sweep_job(load_repeats(snakemake, params.standardise, params.repeats), seed=params.seed,
                             split=wildcards.split, dataset=params.dataset, methods=list(params.methods),
                             kernel_counts=params.kernel_counts, em=params.em, settings=params.settings)
    write_table(table, snakemake.output[0])
