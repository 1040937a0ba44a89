"""One function per figure: tidy tables in, a :class:`matplotlib.figure.Figure` out.

Importing this package selects the Agg backend and the project's single style file
(``mixstudy.mplstyle``); figures are built with :func:`new_figure`, never with pyplot's global
figure manager, so drawing is deterministic and safe in parallel jobs.

Figures read tables only (never experiments or estimators), and every band or bar they draw is
the Student-t interval over repeats (:func:`mixlib.core.statistics.mean_t_interval`) at the
level the config's ``figures.confidence_level`` gives, which a figure rule passes to its
figure function; the captions state the level.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.style  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

STYLE = str(Path(__file__).with_name("mixstudy.mplstyle"))
matplotlib.style.use(STYLE)


def interval_name(confidence_level: float) -> str:
    """How a title names the band of a figure, e.g. ``"95 % Student-t interval"``."""
    return f"{100 * confidence_level:.0f} % Student-t interval"


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] | None = None,
               **subplot_kw) -> tuple[Figure, object]:
    """A figure in the project style and its axes (extra arguments go to ``Figure.subplots``)."""
    figure = Figure(figsize=figsize or matplotlib.rcParams["figure.figsize"], layout="constrained")
    axes = figure.subplots(nrows, ncols, **subplot_kw)
    return figure, axes


def note_figure(note: str, width: float | None = None) -> Figure:
    """A figure a few lines of text high (an inch at least), in place of a diagram that would
    show nothing: the ``note`` says why (wrapped at the figure's ``width`` in inches, the
    style's by default)."""
    width = width or matplotlib.rcParams["figure.figsize"][0]
    lines = textwrap.wrap(note, width=int(width * 14))
    figure, ax = new_figure(figsize=(width, max(1.0, 0.2 + 0.2 * len(lines))))
    ax.set_axis_off()
    ax.text(0.0, 0.5, "\n".join(lines), ha="left", va="center", transform=ax.transAxes)
    return figure
