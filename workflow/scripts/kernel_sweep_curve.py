from mixlib.experiments.contract import run_stages
from mixlib.experiments.semisupervised import kernel_sweep_stages
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    stages = kernel_sweep_stages(split=wildcards.split, dataset=params.dataset, method=wildcards.method,
                                 kernel_counts=params.kernel_counts, em=params.em,
                                 settings=params.settings)
    table = run_stages(stages, load_repeats(snakemake, params.standardise, params.repeats), seed=params.seed)
    write_table(table, snakemake.output[0])
