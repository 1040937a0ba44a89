from mixlib.pipeline.workflow import draw_figure, logged_job

with logged_job(snakemake):
    draw_figure(snakemake)
