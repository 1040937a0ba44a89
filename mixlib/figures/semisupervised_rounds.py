"""Figs. 5.1 and 5.3 of the report: the counters of the two semi-supervised methods per round."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import t as student_t

from mixlib.figures import new_figure

_LABELS = {
    "hard_error": "hard error",
    "unknown_error": "unknown error",
    "unknown": "unknown",
    "flips": "flips",
}


def mean_interval(values: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over repeats and its Student-t confidence interval, column by column.

    Parameters
    ----------
    values : ndarray of shape (n_repeats, n_points)
        NaN entries are ignored; a point without any value gets NaN.
    level : float
        Confidence level of the interval.

    Returns
    -------
    mean, low, high : ndarrays of shape (n_points,)
        ``mean +/- t(1 - alpha/2, n - 1) s / sqrt(n)`` with ``s`` the sample standard deviation
        and ``n`` the number of non-NaN repeats of the point; with ``n = 1`` the interval is
        the point itself.
    """
    count = np.sum(~np.isnan(values), axis=0)
    mean = np.full(values.shape[1], np.nan)
    mean[count > 0] = np.nanmean(values[:, count > 0], axis=0)
    spread = np.zeros_like(mean)
    several = count > 1
    if several.any():
        sd = np.nanstd(values[:, several], axis=0, ddof=1)
        spread[several] = student_t.ppf(0.5 + level / 2, count[several] - 1) * sd / np.sqrt(count[several])
    return mean, mean - spread, mean + spread


def _carried_forward(table: pd.DataFrame, metric: str, last_round: int) -> pd.DataFrame:
    """(repeat x round) values of ``metric``, each repeat held at its last value up to ``last_round``."""
    wide = table[table["metric"] == metric].pivot_table(index="repeat", columns="round", values="value")
    return wide.reindex(columns=range(last_round + 1)).ffill(axis=1)


def _rounds_figure(table: pd.DataFrame, method: str, metrics: tuple[str, ...], title: str) -> Figure:
    rows = table[table["method"] == method]
    if rows.empty:
        raise ValueError(f"the table has no rows of method {method!r}; methods: {sorted(table['method'].unique())}.")
    last_round = int(rows["round"].max())
    fig, ax = new_figure(figsize=(6.0, 4.0))
    for i, metric in enumerate(metrics):
        wide = _carried_forward(rows, metric, last_round)
        mean, low, high = mean_interval(100.0 * wide.to_numpy())
        x = wide.columns.to_numpy()
        shown = ~np.isnan(mean)
        ax.plot(x[shown], mean[shown], marker="o", markersize=3, color=f"C{i}", label=_LABELS[metric])
        ax.fill_between(x[shown], low[shown], high[shown], color=f"C{i}", alpha=0.2, linewidth=0)
    n_repeats = rows["repeat"].nunique()
    k = rows["n_components"].iloc[0]
    ax.set_xlabel("round (0: labelled examples only)")
    ax.set_ylabel("rate (%)")
    ax.set_xticks(range(last_round + 1))
    ax.set_ylim(bottom=0)
    ax.set_title(f"{title} ({k} kernels per class; mean and 95 % interval over {n_repeats} repeats)")
    ax.legend()
    return fig


def fig5_1(table: pd.DataFrame) -> Figure:
    """Iterative classification: hard error, unknown error and unknown per round (report fig. 5.1).

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`mixlib.experiments.semisupervised.semisupervised_rounds` for several
        repeats, concatenated, with an added ``repeat`` column: columns ``method``,
        ``n_components``, ``round``, ``metric``, ``value``, ``repeat``. Only the rows with
        ``method == "iterative"`` and the metrics ``hard_error``, ``unknown_error`` and
        ``unknown`` are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        For each counter, in %, the mean over repeats per round (line) and its 95 % Student-t
        interval (band). A repeat that stopped before the last round drawn is held at its final
        value (its model no longer changes).
    """
    return _rounds_figure(table, "iterative", ("hard_error", "unknown_error", "unknown"),
                          "Iterative classification")


def fig5_3(table: pd.DataFrame) -> Figure:
    """Prior probabilities: hard error, unknown error and flips per round (report fig. 5.3).

    Parameters
    ----------
    table : pandas.DataFrame
        As for :func:`fig5_1`; the rows with ``method == "prior"`` and the metrics
        ``hard_error``, ``unknown_error`` and ``flips`` (from round 1) are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        As :func:`fig5_1`; a converged repeat is held at its last value (flips 0).
    """
    return _rounds_figure(table, "prior", ("hard_error", "unknown_error", "flips"),
                          "Prior probabilities")
