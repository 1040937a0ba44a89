import pandas as pd

from mixlib.experiments.svm import svm_grid_job
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.workflow import load_repeats, logged_job

with logged_job(snakemake):
    params, wildcards = snakemake.params, snakemake.wildcards
    earlier = [read_table(path) for path in snakemake.input.previous]
    table = svm_grid_job(load_repeats(snakemake, params.standardise), seed=params.seed,
                         split=wildcards.split, level=int(wildcards.level),
                         previous=pd.concat(earlier, ignore_index=True) if earlier else None,
                         params=params.grid, n_jobs=snakemake.threads)
    write_table(table, snakemake.output[0])
