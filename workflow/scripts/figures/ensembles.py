from mixlib.figures.ensembles import ensemble_error_curves
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, ensemble_error_curves)
