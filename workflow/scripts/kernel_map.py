from mixlib.experiments.contract import run_stages
from mixlib.experiments.mixture import kernel_map_stage
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params = snakemake.params
    stage = kernel_map_stage(split=snakemake.wildcards.split, dataset=params.dataset,
                             n_components=params.n_components, em=params.em)
    table = run_stages(stage, load_repeats(snakemake, params.standardise), seed=params.seed)
    write_table(table, snakemake.output[0])
