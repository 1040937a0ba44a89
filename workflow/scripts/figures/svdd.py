from mixlib.figures.svm_extras import svdd_detection
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, svdd_detection)
