from mixlib.figures.claims import claims_figure
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, claims_figure)
