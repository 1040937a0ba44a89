from mixlib.figures.comparison import comparison_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, comparison_figure)
