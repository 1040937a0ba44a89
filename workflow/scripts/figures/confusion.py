from mixlib.figures.comparison import dataset_confusion_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, dataset_confusion_figure)
