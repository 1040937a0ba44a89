from mixlib.figures.fig3_4 import fig3_4
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, fig3_4)
