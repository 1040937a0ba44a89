from mixlib.experiments.semisupervised_readings import sensitivity_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = sensitivity_job(load_repeats(snakemake, params.standardise, params.repeats),
                            seed=params.seed, split=snakemake.wildcards.split,
                            dataset=params.dataset, n_components=params.n_components,
                            em=params.em, settings=params.settings,
                            floors=list(params.floors),
                            thresholds=list(params.thresholds),
                            restarts=list(params.restarts), finishes=list(params.finishes))
    write_table(table, snakemake.output[0])
