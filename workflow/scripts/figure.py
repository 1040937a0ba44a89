from mixlib.pipeline.figures import draw_figure

draw_figure(snakemake)
