from mixlib.figures.critical_difference import critical_difference_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, critical_difference_figure)
