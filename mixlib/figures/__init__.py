"""One function per figure: tidy tables in, a :class:`matplotlib.figure.Figure` out.

Importing this package selects the Agg backend and the project's single style file
(``mixstudy.mplstyle``); figures are built with :func:`new_figure`, never with pyplot's global
figure manager, so drawing is deterministic and safe in parallel jobs.
"""

from __future__ import annotations

from importlib import resources

import matplotlib

matplotlib.use("Agg")

import matplotlib.style  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

STYLE = str(resources.files("mixlib.figures").joinpath("mixstudy.mplstyle"))
matplotlib.style.use(STYLE)


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None,
               **subplot_kw) -> tuple[Figure, object]:
    """A figure in the project style and its axes (extra arguments go to ``Figure.subplots``)."""
    figure = Figure(figsize=figsize or matplotlib.rcParams["figure.figsize"], layout="constrained")
    axes = figure.subplots(nrows, ncols, **subplot_kw)
    return figure, axes
