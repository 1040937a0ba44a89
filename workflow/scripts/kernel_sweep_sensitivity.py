from mixlib.experiments.semisupervised_readings import kernel_sweep_reading_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = kernel_sweep_reading_job(load_repeats(snakemake, params.standardise, params.repeats),
                                     seed=params.seed, split=snakemake.wildcards.split,
                                     dataset=params.dataset, kernel_counts=params.kernel_counts,
                                     em=params.em, settings=params.settings,
                                     floors=list(params.floors),
                                     thresholds=params.thresholds, restarts=params.restarts,
                                     finishes=params.finishes)
    write_table(table, snakemake.output[0])
