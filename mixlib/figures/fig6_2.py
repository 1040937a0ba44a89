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


def _panel_title(rows: pd.DataFrame) -> str:
    """A panel's title: its split and, when the table says it, the data set's coding."""
    split = str(rows["split"].iloc[0]) if "split" in rows.columns else "splice"
    if "encoding" in rows.columns:
        return f"{split}\n{rows['encoding'].iloc[0]} coding"
    return split


def _draw_panel(ax, errors: pd.DataFrame, confidence_level: float) -> None:
    """One split's curves: per regime, the test error with its band and the training error."""
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
    ax.set_title(_panel_title(errors), fontsize="medium")
    ax.set_ylim(bottom=0)


def fig6_2(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Test error (solid) and training error (dashed) against the hidden size, per regime,
    one panel per split (the study's two DNA codings side by side).

    Parameters
    ----------
    table : pandas.DataFrame
        The concatenated tables of :func:`mixlib.experiments.mlp.mlp_sweep_point`, in long
        form: columns ``regime``, ``hidden_size``, ``repeat``, ``metric``, ``value``, and
        ``split`` and ``encoding`` when the table has them (others are ignored). Rows with
        ``metric`` ``test_error`` and ``train_error`` are drawn.
    confidence_level : float
        Level of the Student-t interval over repeats that the bands show (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per split (titled with its split and coding; one panel without a ``split``
        column), on a shared error axis. In each, one curve per regime present (plain, early
        stopping, weight decay): the mean over repeats of the test error, with its Student-t
        interval over repeats as a band (:func:`mixlib.core.statistics.mean_t_interval`, level
        ``confidence_level``; none with one repeat), and the mean training error dashed;
        hidden sizes on a log2 axis; errors in percent; the report's mean error (8.5 %)
        dotted. Regimes not listed are ignored.
    """
    missing = {"regime", "hidden_size", "repeat", "metric", "value"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}.")
    errors = table[table["metric"].isin(["train_error", "test_error"])]
    if errors.empty:
        raise ValueError("table has no train_error or test_error rows.")
    panels = [rows for _, rows in errors.groupby("split", sort=True)] if "split" in errors.columns else [errors]
    fig, axes = new_figure(1, len(panels), figsize=(1.0 + 4.0 * len(panels), 4.6), sharey=True,
                           squeeze=False)
    for ax, rows in zip(axes[0], panels):
        _draw_panel(ax, rows, confidence_level)
    axes[0][0].set_ylabel("classification error (%)")
    axes[0][0].legend(fontsize="small")
    n_rep = errors["repeat"].nunique()
    fig.suptitle(f"MLP on splice: error vs hidden size\n(mean, band: {interval_name(confidence_level)} "
                 f"over {n_rep} repeats)", fontsize="medium")
    return fig
