from mixlib.figures.comparison_pairs import comparison_pairs_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, comparison_pairs_figure)
