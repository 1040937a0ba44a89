"""Ensemble figure: error against the number of members, test (solid) and OOB (dashed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.core.statistics import mean_t_interval
from mixlib.figures import interval_name, new_figure

#: Legend labels of the methods of :func:`mixlib.experiments.ensembles.ensemble_curve`.
METHOD_LABELS = {
    "bagging_tree": "bagging (trees)",
    "bagging_base": "bagging (base model)",
    "adaboost": "AdaBoost (SAMME)",
    "forest_simple": "random forest, simple vote",
    "forest_oob_weighted": "random forest, OOB-weighted vote",
    "tree": "single tree",
    "id3": "ID3",
}
BASELINES = ("tree", "id3")


def _band(table: pd.DataFrame, column: str, confidence_level: float) -> pd.DataFrame:
    """Mean over repeats of ``column`` per ensemble size and its Student-t interval (``low``, ``high``)."""
    wide = table.pivot_table(index="repeat", columns="n_members", values=column)
    mean, low, high = mean_t_interval(wide.to_numpy(), 1 - confidence_level)
    return pd.DataFrame({"mean": mean, "low": low, "high": high}, index=wide.columns)


def ensemble_error_curves(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Test and OOB error against ensemble size, one panel per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        Concatenated outputs of :func:`mixlib.experiments.ensembles.ensemble_curve`
        (columns ``method``, ``n_members``, ``test_error``, ``oob_error``) with a ``repeat``
        column (absent: one repeat), and a ``dataset`` column when several data sets are
        drawn (one panel each).
    confidence_level : float
        Level of the Student-t interval over repeats that the bands show (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        Per ensemble method, the mean test error over repeats (solid line) with its Student-t
        interval over repeats as a band (:func:`mixlib.core.statistics.mean_t_interval`,
        level ``confidence_level``; none with one repeat), and the mean OOB error (dashed, same colour)
        where the method has one. The single-tree and ID3 baselines are horizontal dotted
        lines at their mean test error.
    """
    table = table if "dataset" in table else table.assign(dataset="")
    table = table if "repeat" in table else table.assign(repeat=0)
    datasets = list(pd.unique(table["dataset"]))
    fig, axes = new_figure(1, len(datasets), figsize=(6.0 * len(datasets), 4.2), squeeze=False)
    methods = [m for m in METHOD_LABELS if m in set(table["method"])]
    for ax, dataset in zip(axes[0], datasets):
        data = table[table["dataset"] == dataset]
        n_repeats = data["repeat"].nunique()
        for i, method in enumerate(methods):
            rows = data[data["method"] == method]
            if rows.empty:
                continue
            colour = f"C{i}"
            label = METHOD_LABELS[method]
            if method in BASELINES:
                ax.axhline(rows["test_error"].mean(), color=colour, linestyle=":", label=label)
                continue
            test = _band(rows, "test_error", confidence_level)
            x = test.index.to_numpy()
            ax.plot(x, test["mean"], color=colour, label=label)
            ax.fill_between(x, test["low"], test["high"], color=colour, alpha=0.2, linewidth=0)
            if rows["oob_error"].notna().any():
                oob = _band(rows.dropna(subset=["oob_error"]), "oob_error", confidence_level)
                ax.plot(oob.index.to_numpy(), oob["mean"], color=colour, linestyle="--")
        ax.set_xlabel("number of members")
        ax.set_ylabel("error rate (fraction)")
        title = f"{dataset}: " if dataset else ""
        ax.set_title(f"{title}test (solid), OOB (dashed)\n{n_repeats} repeats, band: {interval_name(confidence_level)}")
        top = np.nanpercentile(data["test_error"], 99)
        ax.set_ylim(0.0, min(1.0, 1.2 * top) if np.isfinite(top) and top > 0 else 1.0)
    axes[0][0].legend(fontsize="small")
    return fig
