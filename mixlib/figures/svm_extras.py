"""Figures of the MKL and SVDD runs: learned kernel weights, per-class SVDD detection."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure


def _require(table: pd.DataFrame, columns: set[str], name: str) -> None:
    missing = columns - set(table.columns)
    if missing:
        raise ValueError(f"{name} lacks column(s) {sorted(missing)}.")


def mkl_weights(table: pd.DataFrame) -> Figure:
    """Learned kernel weights next to the test error of each kernel alone.

    Parameters
    ----------
    table : pandas.DataFrame
        Concatenated tables of :func:`mixlib.experiments.svm.mkl_run` (one or more data sets):
        columns ``dataset``, ``method``, ``kernel``, ``step``, ``metric``, ``value``.

    Returns
    -------
    matplotlib.figure.Figure
        One row of two panels per data set: left, the weight ``d_m`` of each kernel (bars);
        right, the test error (%) of the SVM with each kernel alone (bars) and of the MKL
        combination (horizontal line).
    """
    _require(table, {"dataset", "method", "kernel", "metric", "value"}, "table")
    datasets = list(dict.fromkeys(table["dataset"]))
    fig, axes = new_figure(len(datasets), 2, figsize=(8.0, 2.8 * len(datasets)), squeeze=False)
    for (ax_w, ax_e), name in zip(axes, datasets):
        part = table[table["dataset"] == name]
        weights = part[part["metric"] == "weight"]
        alone = part[(part["method"] == "svm") & (part["metric"] == "test_error")]
        combined = part[(part["kernel"] == "combined") & (part["metric"] == "test_error")]
        labels = list(weights["kernel"])
        positions = np.arange(len(labels))
        ax_w.bar(positions, weights["value"], color="C0")
        ax_w.set_xticks(positions, labels, rotation=30, ha="right", fontsize="small")
        ax_w.set_ylim(0, 1)
        ax_w.set_ylabel("kernel weight d_m")
        ax_w.set_title(f"{name}: learned weights", fontsize="medium")
        error = alone.set_index("kernel").reindex(labels)["value"].to_numpy() * 100
        ax_e.bar(positions, error, color="C1", label="single kernel")
        if not combined.empty:
            ax_e.axhline(100 * combined["value"].iloc[0], color="C0", linestyle="--",
                         label="MKL combination")
        ax_e.set_xticks(positions, labels, rotation=30, ha="right", fontsize="small")
        ax_e.set_ylabel("test error (%)")
        ax_e.set_title(f"{name}: test error", fontsize="medium")
        ax_e.legend(fontsize="small")
    return fig


def svdd_detection(table: pd.DataFrame) -> Figure:
    """Acceptance rate of each class's SVDD for the test rows of every class.

    Parameters
    ----------
    table : pandas.DataFrame
        Concatenated tables of :func:`mixlib.experiments.svm.svdd_run` (one or more data
        sets): columns ``dataset``, ``target_class``, ``tested_class``, ``metric``, ``value``.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per data set: groups of bars per target class (the class the ball was fitted
        on), one bar per tested class, in percent of its test rows inside the ball (the bar of
        the target class itself is the detection rate, the others false acceptances); the
        "c SVDD" classifier's test error in the panel title.
    """
    _require(table, {"dataset", "target_class", "tested_class", "metric", "value"}, "table")
    datasets = list(dict.fromkeys(table["dataset"]))
    fig, axes = new_figure(1, len(datasets), figsize=(4.2 * len(datasets), 3.6), squeeze=False)
    for ax, name in zip(axes[0], datasets):
        part = table[table["dataset"] == name]
        rates = part[part["metric"] == "acceptance_rate"]
        targets = list(dict.fromkeys(rates["target_class"]))
        tested = list(dict.fromkeys(rates["tested_class"]))
        width = 0.8 / len(tested)
        for k, label in enumerate(tested):
            values = (rates[rates["tested_class"] == label].set_index("target_class")
                      .reindex(targets)["value"].to_numpy() * 100)
            ax.bar(np.arange(len(targets)) + (k - (len(tested) - 1) / 2) * width, values,
                   width=width, color=f"C{k}", label=f"test rows of {label}")
        ax.set_xticks(np.arange(len(targets)), targets)
        ax.set_xlabel("class the SVDD was fitted on")
        ax.set_ylabel("test rows inside the ball (%)")
        ax.set_ylim(0, 100)
        error = part[part["metric"] == "test_error"]
        title = name
        if not error.empty:
            title += f": c SVDD error {100 * error['value'].iloc[0]:.1f} %"
        ax.set_title(title, fontsize="medium")
        ax.legend(fontsize="small")
    return fig
