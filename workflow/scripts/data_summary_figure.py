from mixlib.figures.data_summary import draw_data_summary
from mixlib.io import read_table, save_figure
from mixlib.workflow import logged_job

with logged_job(snakemake):
    figure = draw_data_summary(read_table(snakemake.input[0]))
    save_figure(figure, snakemake.output.png, snakemake.output.svg)
