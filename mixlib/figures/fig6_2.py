"""Fig. 6.2 of the report: the MLP's error against the hidden-layer size, three regimes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.core.statistics import mean_t_interval
from mixlib.figures import interval_name, new_figure

#: Mean test error of the report's perceptron (ch. 6), drawn as a reference line.
REPORT_MEAN_ERROR = 0.085

#: Legend label of each training regime, in drawing order.
_LABELS = {"plain": "plain backpropagation", "early_stopping": "early stopping",
           "weight_decay": "weight decay"}
_COLOURS = {"plain": "C0", "early_stopping": "C1", "weight_decay": "C2"}


def fig6_2(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Test error (solid) and training error (dashed) against the hidden size, per regime.

    Parameters
    ----------
    table : pandas.DataFrame
        The concatenated tables of :func:`mixlib.experiments.mlp.mlp_sweep_point`, in long
        form: columns ``regime``, ``hidden_size``, ``repeat``, ``metric``, ``value`` (others
        are ignored). Rows with ``metric`` ``test_error`` and ``train_error`` are drawn.
    confidence_level : float
        Level of the Student-t interval over repeats that the bands show (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        One curve per regime present (plain, early stopping, weight decay): the mean over
        repeats of the test error, with its Student-t interval over repeats as a band
        (:func:`mixlib.core.statistics.mean_t_interval`, level ``confidence_level``; none with one
        repeat), and the mean training error dashed; hidden sizes on a log2 axis; errors in
        percent; the report's mean error (8.5 %) dotted. Regimes not listed are ignored.
    """
    missing = {"regime", "hidden_size", "repeat", "metric", "value"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}.")
    errors = table[table["metric"].isin(["train_error", "test_error"])]
    if errors.empty:
        raise ValueError("table has no train_error or test_error rows.")
    fig, ax = new_figure(figsize=(6.4, 4.4))
    for regime in [r for r in _LABELS if r in set(errors["regime"])]:
        colour = _COLOURS[regime]
        for metric, style, what in (("test_error", "o-", "test"), ("train_error", "--", "training")):
            rows = errors[(errors["regime"] == regime) & (errors["metric"] == metric)]
            if rows.empty:
                continue
            wide = rows.pivot_table(index="repeat", columns="hidden_size", values="value")
            mean, low, high = mean_t_interval(100 * wide.to_numpy(), 1 - confidence_level)
            x = wide.columns.to_numpy()
            ax.plot(x, mean, style, color=colour, label=f"{_LABELS[regime]}, {what}")
            if metric == "test_error":
                ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)
    ax.axhline(100 * REPORT_MEAN_ERROR, color="grey", linestyle=":",
               label=f"report: mean error {100 * REPORT_MEAN_ERROR:g} %")
    sizes = np.sort(errors["hidden_size"].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.set_xlabel("hidden units")
    ax.set_ylabel("classification error (%)")
    n_rep = errors["repeat"].nunique()
    ax.set_title(f"MLP on splice: error vs hidden size (mean, band: {interval_name(confidence_level)} over {n_rep} repeats)",
                 fontsize="medium")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small", ncol=2)
    return fig
