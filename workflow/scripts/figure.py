# Every figure rule's script: the drawing function its params name by dotted path
# (params.figure, e.g. "mixlib.figures.kernel_sweep.fig6_1"), on the rule's input tables in
# order, with its other params (but the code fingerprint) as keyword arguments.
from mixlib.pipeline.io import read_table, save_figure
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    module, _, name = snakemake.params.figure.rpartition(".")
    draw = getattr(__import__(module, fromlist=[name]), name)
    arguments = {key: value for key, value in snakemake.params.items() if key not in ("figure", "code")}
    figure = draw(*(read_table(path) for path in snakemake.input), **arguments)
    save_figure(figure, snakemake.output.png, snakemake.output.svg)
