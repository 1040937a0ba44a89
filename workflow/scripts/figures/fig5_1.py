from mixlib.figures.semisupervised_rounds import fig5_1
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, fig5_1)
