from mixlib.figures.fig6_2 import fig6_2
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, fig6_2)
