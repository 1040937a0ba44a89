from mixlib.figures.bayes_simplex import bayes_simplex_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, bayes_simplex_figure)
