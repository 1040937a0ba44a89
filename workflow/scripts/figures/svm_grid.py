from mixlib.figures.svm_grid import svm_grid
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, svm_grid)
