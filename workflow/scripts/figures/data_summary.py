from mixlib.figures.data_summary import draw_data_summary
from mixlib.pipeline.workflow import draw_figure

draw_figure(snakemake, draw_data_summary)
