from mixlib.figures.fig3_3 import fig3_3
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, fig3_3)
