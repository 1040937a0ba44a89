"""The figure rules' one script: the figure function a rule names, drawn on its input tables.

Every figure rule runs ``workflow/scripts/figure.py``, which calls :func:`draw_figure`; the
rule's ``params: figure`` names the figure function of :mod:`mixlib.figures` it draws (its
name as defined there, so ``grep -rn "def fig6_1" mixlib/figures`` finds it), and its other
params are the function's keyword arguments. A figure job's code fingerprint covers every
figure module: editing one reruns the figure jobs (each a second or two), no other job.
"""

from __future__ import annotations

from typing import Any

from mixlib.figures.bayes_simplex import bayes_simplex_figure
from mixlib.figures.claims import claims_figure
from mixlib.figures.comparison import comparison_figure, dataset_confusion_figure
from mixlib.figures.comparison_pairs import comparison_pairs_figure
from mixlib.figures.critical_difference import critical_difference_figure
from mixlib.figures.data_summary import draw_data_summary
from mixlib.figures.ensembles import ensemble_error_curves
from mixlib.figures.fig3_3 import fig3_3
from mixlib.figures.fig3_4 import fig3_4
from mixlib.figures.fig6_2 import fig6_2
from mixlib.figures.imputation import imputation_figure
from mixlib.figures.kernel_sweep import fig5_4, fig5_5, fig6_1
from mixlib.figures.semisupervised_rounds import fig5_1, fig5_3
from mixlib.figures.semisupervised_sensitivity import semisupervised_sensitivity
from mixlib.figures.svm_extras import mkl_weights, svdd_detection
from mixlib.figures.svm_grid import svm_grid
from mixlib.core.vocabulary import CODE_PARAM
from mixlib.pipeline.io import read_table, save_figure
from mixlib.pipeline.workflow import logged_job

#: The parameter of a figure rule that names its figure function.
FIGURE_PARAM = "figure"
#: Every figure function a rule draws, by its name.
FIGURE_FUNCTIONS = {draw.__name__: draw for draw in (
    bayes_simplex_figure,
    claims_figure,
    comparison_figure,
    comparison_pairs_figure,
    critical_difference_figure,
    dataset_confusion_figure,
    draw_data_summary,
    ensemble_error_curves,
    fig3_3,
    fig3_4,
    fig5_1,
    fig5_3,
    fig5_4,
    fig5_5,
    fig6_1,
    fig6_2,
    imputation_figure,
    mkl_weights,
    semisupervised_sensitivity,
    svdd_detection,
    svm_grid,
)}


def draw_figure(smk: Any) -> None:
    """A figure rule's script: its figure function on the rule's input tables, saved as PNG
    and SVG.

    Parameters
    ----------
    smk : snakemake.script.Snakemake
        The ``snakemake`` object of the figure rule: its inputs are tables (read in the order
        of the rule's inputs); its params name the figure function (``figure``, a key of
        :data:`FIGURE_FUNCTIONS`) and give its keyword arguments (e.g. ``confidence_level``;
        the code fingerprint every script rule gets, :data:`mixlib.core.vocabulary.CODE_PARAM`,
        apart); its outputs are ``png`` and ``svg``; its first log file is the job's log
        (:func:`~mixlib.pipeline.workflow.logged_job`).
    """
    with logged_job(smk):
        draw = FIGURE_FUNCTIONS[smk.params[FIGURE_PARAM]]
        settings = {key: value for key, value in smk.params.items()
                    if key not in (CODE_PARAM, FIGURE_PARAM)}
        figure = draw(*(read_table(path) for path in smk.input), **settings)
        save_figure(figure, smk.output.png, smk.output.svg)
