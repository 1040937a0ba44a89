"""Figs. 5.4, 5.5 and 6.1 of the report: errors against the number of kernels per class."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure
from mixlib.figures.semisupervised_rounds import mean_interval

_METHOD_LABELS = {"labelled_only": "labelled only", "iterative": "iterative", "prior": "prior probabilities"}
_LINESTYLES = ("-", "--", "-.", ":")
#: The report's mean error of the mixture classifier on the DNA data (ch. 6).
REPORT_DNA_ERROR = 0.20


def _curve(ax, rows: pd.DataFrame, label: str, colour: str, linestyle: str = "-", scale: float = 100.0) -> None:
    """Mean and 95 % interval over repeats of ``scale * value`` of ``rows`` (one metric) against n_components."""
    wide = rows.pivot_table(index="repeat", columns="n_components", values="value")
    mean, low, high = mean_interval(scale * wide.to_numpy())
    x = wide.columns.to_numpy()
    ax.plot(x, mean, marker="o", markersize=3, color=colour, linestyle=linestyle, label=label)
    ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)


def _log2_axis(ax, kernels: np.ndarray) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(kernels)
    ax.set_xticklabels([str(int(k)) for k in kernels])
    ax.set_xlabel("kernels per class")


def _method_figure(table: pd.DataFrame, metric: str, ylabel: str, title: str) -> Figure:
    rows = table[table["metric"] == metric]
    if rows.empty:
        raise ValueError(f"the table has no rows of metric {metric!r}.")
    fig, ax = new_figure(figsize=(6.0, 4.0))
    methods = [m for m in _METHOD_LABELS if m in set(rows["method"])]
    for i, method in enumerate(methods):
        _curve(ax, rows[rows["method"] == method], _METHOD_LABELS[method], f"C{i}")
    _log2_axis(ax, np.sort(rows["n_components"].unique()))
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(f"{title} (mean and 95 % interval over {rows['repeat'].nunique()} repeats)")
    ax.legend()
    return fig


def fig5_4(table: pd.DataFrame) -> Figure:
    """Training error against kernels per class, one curve per method (report fig. 5.4).

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`mixlib.experiments.semisupervised.kernel_sweep_point` for every
        (method, kernel count, repeat), concatenated, with an added ``repeat`` column: columns
        ``method``, ``n_components``, ``metric``, ``value``, ``repeat``. The ``train_error``
        rows are drawn (error on the labelled training examples).

    Returns
    -------
    matplotlib.figure.Figure
        Training error in % against kernels per class on a log2 axis, for each method present
        (labelled only, iterative, prior probabilities): mean over repeats (line) and 95 %
        Student-t interval (band).
    """
    return _method_figure(table, "train_error", "training error (%)", "Training error")


def fig5_5(table: pd.DataFrame) -> Figure:
    """Test error against kernels per class, one curve per method (report fig. 5.5).

    Parameters
    ----------
    table : pandas.DataFrame
        As for :func:`fig5_4`; the ``test_error`` rows are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        As :func:`fig5_4`, for the test error.
    """
    return _method_figure(table, "test_error", "test error (%)", "Test error")


def fig6_1(table: pd.DataFrame) -> Figure:
    """Mixture classifier on DNA: test and training error against kernels per class (fig. 6.1).

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`mixlib.experiments.semisupervised.dna_kernel_point` for every (kernel
        count, repeat), concatenated, with an added ``repeat`` column: columns
        ``n_components``, ``class``, ``metric``, ``value``, ``repeat``, and optionally
        ``encoding`` (one pair of curves per encoding, e.g. "onehot" and "ordinal"). Drawn:
        ``test_error`` and ``train_error`` (``class == "all"``), and ``live_kernels`` (per
        class).

    Returns
    -------
    matplotlib.figure.Figure
        Top: error in % against kernels per class (log2 axis), test error solid and training
        error dashed, mean over repeats and 95 % Student-t interval; a dotted line at the
        report's mean error, 20 %. Bottom: kernels still alive after EM (mixing weight
        > 1e-6) of each class, mean over repeats, against the kernels fit (grey dotted: all
        alive). Colours tell encodings apart, line styles the classes.
    """
    if "encoding" not in table.columns:
        table = table.assign(encoding="")
    fig, (ax, ax_live) = new_figure(2, 1, figsize=(6.0, 6.0), sharex=True,
                                    gridspec_kw={"height_ratios": [2, 1]})
    kernels = np.sort(table["n_components"].unique())
    for i, (encoding, rows) in enumerate(table.groupby("encoding", sort=True)):
        suffix = f" ({encoding})" if encoding else ""
        overall = rows[rows["class"] == "all"]
        _curve(ax, overall[overall["metric"] == "test_error"], f"test error{suffix}", f"C{i}")
        _curve(ax, overall[overall["metric"] == "train_error"], f"training error{suffix}", f"C{i}", "--")
        live = rows[rows["metric"] == "live_kernels"]
        for j, label in enumerate(sorted(live["class"].unique())):
            _curve(ax_live, live[live["class"] == label], f"class {label}{suffix}", f"C{i}",
                   _LINESTYLES[j % len(_LINESTYLES)], scale=1.0)
    ax.axhline(100 * REPORT_DNA_ERROR, color="0.3", linestyle=":", label="report: 20 %")
    ax.set_ylabel("error (%)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Mixture classifier on splice ({table['repeat'].nunique()} repeats; band: 95 % interval)")
    ax.legend()
    ax_live.plot(kernels, kernels, color="0.5", linestyle=":", label="all alive")
    ax_live.set_yscale("log", base=2)
    ax_live.set_ylim(bottom=0.8)
    ax_live.set_ylabel("live kernels per class")
    ax_live.legend(fontsize="small", ncol=2)
    _log2_axis(ax_live, kernels)
    return fig
