from mixlib.experiments.contract import run_stages
from mixlib.experiments.semisupervised_readings import kernel_sweep_reading_stages
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    stages = kernel_sweep_reading_stages(split=snakemake.wildcards.split, dataset=params.dataset,
                                         kernel_counts=params.kernel_counts, em=params.em,
                                         settings=params.settings,
                                         thresholds=params.thresholds, restarts=params.restarts,
                                         finishes=params.finishes)
    table = run_stages(stages, load_repeats(snakemake, params.standardise, params.repeats),
                       seed=params.seed)
    write_table(table, snakemake.output[0])
