"""Ensemble figure: error against the number of members, test (solid) and OOB (dashed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

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


#: The panels of a data set's row: the methods each compares (baselines in every panel).
FAMILIES = (("bagging", ("bagging_tree", "bagging_base")), ("boosting", ("adaboost",)),
            ("random forests", ("forest_simple", "forest_oob_weighted")))


def ensemble_error_curves(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Test and OOB error (%) against ensemble size: a row of panels per data set, one panel
    per family of ensembles, one key for all.

    Parameters
    ----------
    table : pandas.DataFrame
        Concatenated outputs of :func:`mixlib.experiments.ensembles.ensemble_curve`
        (columns ``method``, ``n_members``, ``test_error``, ``oob_error``) with a ``repeat``
        column (absent: one repeat), and a ``dataset`` column when several data sets are
        drawn (one row of panels each).
    confidence_level : float
        Level of the Student-t interval over repeats that the bands show (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        Per data set (row) and family of :data:`FAMILIES` present (column): for each of the
        family's methods, the mean test error in % over repeats (solid line) with its Student-t
        interval over repeats as a band (:func:`mixlib.core.statistics.mean_t_interval`, level
        ``confidence_level``; none with one repeat), and the mean OOB error (dashed, same
        colour) where the method has one; the single-tree and ID3 baselines as dotted lines at
        their mean test error in every panel. A method keeps its colour in every panel; one
        key below the panels. The y axis of a row runs from 0 to above its highest mean curve
        or baseline, so no mean is clipped (a band wider than that is cut at the frame).
    """
    table = table if "dataset" in table else table.assign(dataset="")
    table = table if "repeat" in table else table.assign(repeat=0)
    datasets = list(pd.unique(table["dataset"]))
    present = set(table["method"])
    families = [(name, [m for m in methods if m in present]) for name, methods in FAMILIES
                if present & set(methods)]
    if not families:
        families = [("", [])]                     # the baselines alone
    colours = {method: f"C{i}" for i, method in enumerate(METHOD_LABELS)}
    fig, axes = new_figure(len(datasets), len(families),
                           figsize=(3.6 * len(families) + 0.4, 0.6 + 3.0 * len(datasets)),
                           squeeze=False, sharex=True, sharey="row")
    for row, dataset in enumerate(datasets):
        data = table[table["dataset"] == dataset]
        top = 0.0
        for column, (family, methods) in enumerate(families):
            ax = axes[row, column]
            for method in [m for m in BASELINES if m in present] + methods:
                rows = data[data["method"] == method]
                if rows.empty:
                    continue
                if method in BASELINES:
                    level = 100 * rows["test_error"].mean()
                    ax.axhline(level, color=colours[method], linestyle=":", linewidth=1.2)
                    top = max(top, level)
                    continue
                test = 100 * _band(rows, "test_error", confidence_level)
                x = test.index.to_numpy()
                ax.plot(x, test["mean"], color=colours[method])
                ax.fill_between(x, test["low"], test["high"], color=colours[method], alpha=0.15,
                                linewidth=0)
                top = max(top, float(np.nanmax(test["mean"])))
                if rows["oob_error"].notna().any():
                    oob = 100 * _band(rows.dropna(subset=["oob_error"]), "oob_error",
                                      confidence_level)
                    ax.plot(oob.index.to_numpy(), oob["mean"], color=colours[method],
                            linestyle="--")
                    top = max(top, float(np.nanmax(oob["mean"])))
            heading = f"{dataset}: {family}" if dataset and family else dataset or family
            ax.set_title(heading, fontsize="medium")
            if row == len(datasets) - 1:
                ax.set_xlabel("number of members")
        axes[row, 0].set_ylabel("error (%)")
        axes[row, 0].set_ylim(0.0, min(100.0, 1.15 * top) if top > 0 else 100.0)
    handles = [Line2D([], [], color=colours[m], linestyle=":" if m in BASELINES else "-",
                      label=METHOD_LABELS[m]) for m in METHOD_LABELS if m in present]
    handles += [Line2D([], [], color="0.3", linestyle="-", label="test error"),
                Line2D([], [], color="0.3", linestyle="--", label="out-of-bag error")]
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5),
               fontsize="small")
    n_repeats = table["repeat"].nunique()
    fig.suptitle(f"Ensembles: mean over {n_repeats} repeat{'s' * (n_repeats != 1)}, "
                 f"band: {interval_name(confidence_level)}", fontsize="medium")
    return fig
