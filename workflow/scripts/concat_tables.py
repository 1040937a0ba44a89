from mixlib.pipeline.workflow import concat_tables, logged_job

with logged_job(snakemake):
    concat_tables(snakemake)
