"""Fig. 3.3 of the report: log-likelihood of each class model against the EM iteration."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.core.statistics import mean_t_interval
from mixlib.figures import interval_name
from mixlib.figures.semisupervised_rounds import split_panels

_COLUMNS = ("repeat", "class", "iteration", "mean_log_likelihood", "n_iter", "collapsed")


def _carried_forward(trace: pd.DataFrame) -> pd.DataFrame:
    """Traces as a (iteration x (repeat, class)) table, each held at its final value after it stops."""
    wide = trace.pivot_table(index="iteration", columns=["class", "repeat"], values="mean_log_likelihood")
    return wide.ffill()


def fig3_3(trace: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Mean log-likelihood per example against EM iteration, one curve per class, one panel per split.

    Parameters
    ----------
    trace : pandas.DataFrame
        The ``em_trace`` table: columns ``split``, ``dataset``, ``repeat``, ``class``,
        ``n_components``, ``n_labelled``, ``iteration``, ``mean_log_likelihood``,
        ``n_iter``, ``converged``, ``collapsed`` (kernels of the class model at the variance
        floor while alive, constant over a fit's iterations). Every row is drawn; ``split``
        and ``dataset`` may be absent (one panel).
    confidence_level : float
        Level of the Student-t interval over repeats that the bands show (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per split (sorted by name; title: split, data set and "k of n class fits
        have a collapsed kernel", a fit being one (repeat, class)). For each class, the mean
        over repeats (line) and its Student-t interval over repeats (band;
        :func:`mixlib.core.statistics.mean_t_interval`, level ``confidence_level``); a repeat that
        has converged is held at its final value. A marker shows each fit's
        final (iteration, log-likelihood): a dot, or a cross if the fit has a collapsed
        kernel; a dashed vertical line the median number of iterations of the class.

    Raises
    ------
    ValueError
        If a needed column (e.g. ``collapsed``) is absent.
    """
    fig, panels = split_panels(trace, _COLUMNS, "fig3_3", top=0.4, height=3.8)
    for ax, panel, own in panels:
        wide = _carried_forward(own)
        finals = own.loc[own.groupby(["class", "repeat"])["iteration"].idxmax()]
        hit = finals["collapsed"].astype(float) > 0
        for i, label in enumerate(wide.columns.get_level_values("class").unique()):
            colour = f"C{i}"
            curves = wide[label].to_numpy()
            x = wide.index.to_numpy()
            mean, low, high = mean_t_interval(curves.T, 1 - confidence_level)
            ax.plot(x, mean, color=colour, label=f"class {label}")
            ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)
            own_final = finals["class"] == label
            for marker, chosen in (("o", own_final & ~hit), ("x", own_final & hit)):
                if chosen.any():
                    ax.plot(finals.loc[chosen, "iteration"], finals.loc[chosen, "mean_log_likelihood"], marker,
                            color=colour, markersize=3 if marker == "o" else 6, linestyle="none")
            ax.axvline(np.median(finals.loc[own_final, "n_iter"]), color=colour, linestyle="--", linewidth=1)
        heading = f"{panel}: " * bool(panel)
        heading += f"{int(hit.sum())} of {len(finals)} class fits have a collapsed kernel"
        ax.set_title(f"{heading} ({own['repeat'].nunique()} repeats)", fontsize="medium")
        ax.set_xlabel("EM iteration")
        ax.set_ylabel("mean log-likelihood\nper example (nats)")
        ax.legend(fontsize="small")
    fig.suptitle(f"EM convergence (band: {interval_name(confidence_level)}; x: fit with a collapsed kernel; dashed: median stop)")
    return fig
