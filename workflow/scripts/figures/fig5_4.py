from mixlib.figures.kernel_sweep import fig5_4
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, fig5_4)
