import pandas as pd

from mixlib.experiments.contract import run_stages
from mixlib.experiments.svm import svm_grid_stage
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    earlier = [read_table(path) for path in snakemake.input.previous]
    stage = svm_grid_stage(split=wildcards.split, level=int(wildcards.level),
                           previous=pd.concat(earlier, ignore_index=True) if earlier else None,
                           params=params.grid, n_jobs=snakemake.threads)
    table = run_stages(stage, load_repeats(snakemake, params.standardise), seed=params.seed)
    write_table(table, snakemake.output[0])
