from mixlib.figures.imputation import imputation_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, imputation_figure)
