from mixlib.figures.svm_extras import mkl_weights
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, mkl_weights)
