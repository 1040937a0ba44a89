from mixlib.figures.kernel_sweep import fig6_1
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, fig6_1)
