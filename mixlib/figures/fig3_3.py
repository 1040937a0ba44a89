"""Fig. 3.3 of the report: log-likelihood of each class model against the EM iteration."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure


def _carried_forward(trace: pd.DataFrame) -> pd.DataFrame:
    """Traces as a (iteration x (repeat, class)) table, each held at its final value after it stops."""
    wide = trace.pivot_table(index="iteration", columns=["class", "repeat"], values="mean_log_likelihood")
    return wide.ffill()


def fig3_3(trace: pd.DataFrame) -> Figure:
    """Mean log-likelihood per example against EM iteration, one curve per class.

    Parameters
    ----------
    trace : pandas.DataFrame
        The table of :func:`mixlib.experiments.mixture.em_trace`: columns ``repeat``,
        ``class``, ``iteration``, ``mean_log_likelihood``, ``n_iter``.

    Returns
    -------
    matplotlib.figure.Figure
        For each class, the mean over repeats (line) and the range between the 10th and 90th
        percentiles (band); a repeat that has converged is held at its final value. A marker
        shows each repeat's final (iteration, log-likelihood) and a dashed vertical line the
        median number of iterations to convergence of the class.
    """
    wide = _carried_forward(trace)
    fig, ax = new_figure(figsize=(6.0, 4.0))
    stops = trace.groupby(["class", "repeat"]).agg(n_iter=("n_iter", "first"))
    for i, label in enumerate(wide.columns.get_level_values("class").unique()):
        colour = f"C{i}"
        curves = wide[label].to_numpy()
        x = wide.index.to_numpy()
        ax.plot(x, curves.mean(axis=1), color=colour, label=f"class {label}")
        low, high = np.percentile(curves, [10, 90], axis=1)
        ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)
        final = trace[(trace["class"] == label) & (trace["iteration"] == trace["n_iter"])]
        ax.plot(final["iteration"], final["mean_log_likelihood"], "o", color=colour, markersize=3)
        ax.axvline(np.median(stops.loc[label, "n_iter"]), color=colour, linestyle="--", linewidth=1)
    n_repeats = trace["repeat"].nunique()
    ax.set_xlabel("EM iteration")
    ax.set_ylabel("mean log-likelihood per example (nats)")
    ax.set_title(f"EM convergence ({n_repeats} repeats; band: 10-90 %; dashed: median stop)")
    ax.legend()
    return fig
