"""Fig. 6.2 of the report: the MLP's error against the hidden-layer size, three regimes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure
from mixlib.neural_network import REGIMES

#: Mean test error of the report's perceptron (ch. 6), drawn as a reference line.
REPORT_MEAN_ERROR = 0.085

_LABELS = {"plain": "plain backpropagation", "early_stopping": "early stopping",
           "weight_decay": "weight decay"}
_COLOURS = {"plain": "C0", "early_stopping": "C1", "weight_decay": "C2"}


def fig6_2(table: pd.DataFrame) -> Figure:
    """Test error (solid) and training error (dashed) against the hidden size, per regime.

    Parameters
    ----------
    table : pandas.DataFrame
        The concatenated tables of :func:`mixlib.experiments.mlp.mlp_sweep_point`, in long
        form: columns ``regime``, ``hidden_size``, ``repeat``, ``metric``, ``value`` (others
        are ignored). Rows with ``metric`` ``test_error`` and ``train_error`` are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        One curve per regime present: the mean over repeats of the test error, with a band of
        +/- one standard deviation over repeats, and the mean training error dashed; hidden
        sizes on a log2 axis; errors in percent; the report's mean error (8.5 %) dotted.
    """
    missing = {"regime", "hidden_size", "repeat", "metric", "value"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}.")
    errors = table[table["metric"].isin(["train_error", "test_error"])]
    if errors.empty:
        raise ValueError("table has no train_error or test_error rows.")
    stats = (
        errors.groupby(["regime", "metric", "hidden_size"])["value"]
        .agg(["mean", "std", "count"])
        .reset_index()
    )
    fig, ax = new_figure(figsize=(6.4, 4.4))
    for regime in [r for r in REGIMES if r in set(stats["regime"])]:
        colour = _COLOURS[regime]
        test = stats[(stats["regime"] == regime) & (stats["metric"] == "test_error")]
        train = stats[(stats["regime"] == regime) & (stats["metric"] == "train_error")]
        if not test.empty:
            x = test["hidden_size"].to_numpy()
            mean = 100 * test["mean"].to_numpy()
            std = 100 * np.nan_to_num(test["std"].to_numpy())  # one repeat: no band
            ax.plot(x, mean, "o-", color=colour, label=f"{_LABELS[regime]}, test")
            ax.fill_between(x, mean - std, mean + std, color=colour, alpha=0.2, linewidth=0)
        if not train.empty:
            ax.plot(train["hidden_size"], 100 * train["mean"], "--", color=colour,
                    label=f"{_LABELS[regime]}, training")
    ax.axhline(100 * REPORT_MEAN_ERROR, color="grey", linestyle=":",
               label=f"report: mean error {100 * REPORT_MEAN_ERROR:g} %")
    sizes = np.sort(errors["hidden_size"].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.set_xlabel("hidden units")
    ax.set_ylabel("classification error (%)")
    n_rep = int(stats["count"].max())
    ax.set_title(f"MLP on splice: error vs hidden size (mean, band +/- 1 sd over {n_rep} repeats)",
                 fontsize="medium")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small", ncol=2)
    return fig
