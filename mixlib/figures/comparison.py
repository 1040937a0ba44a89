"""The comparison of every classifier (report ch. 6): CV (and hold-out) error with its interval
per model, and the pooled out-of-fold confusion matrices of the best model of each family.

Both read the ``comparison_summary`` table (one row per data set and model) that the pipeline
writes from the comparison's points; nothing is recomputed here."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mixlib.core.vocabulary import CV, GROUPED, HOLDOUT
from mixlib.figures import new_figure

#: Family order of the legends and colours (probabilistic families first).
FAMILY_ORDER = ("mixture", "generative", "linear", "neural network", "kernel machine",
                "neighbours", "trees", "ensembles")
_MARKERS = {"probabilistic": "o", "deterministic": "s"}


def _family_colours(families) -> dict[str, str]:
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    known = [f for f in FAMILY_ORDER if f in set(families)]
    extra = sorted(set(families) - set(FAMILY_ORDER))
    return {family: cycle[i % len(cycle)] for i, family in enumerate(known + extra)}


#: The columns a summary must have (the others are filled in by :func:`_check_summary`).
_SUMMARY_COLUMNS = ("dataset", "model", "approach", "family", "n_folds", "alpha", "cv_error",
                    "ci_low", "ci_high")


def _check_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary, checked, with ``protocol`` (default ``cv``), ``split`` (default "") and
    ``n_repeats`` (default 1) filled in."""
    missing = [column for column in _SUMMARY_COLUMNS if column not in summary.columns]
    if missing:
        raise ValueError(f"the comparison summary lacks the column(s) {missing}; it has {list(summary.columns)}.")
    if summary.empty:
        raise ValueError("the comparison summary has no rows to draw.")
    summary = summary.copy()
    for column, default in (("protocol", CV), ("split", ""), ("n_repeats", 1)):
        summary[column] = (summary[column].fillna(default) if column in summary.columns
                           else default)
    return summary


def _interval(row: pd.Series) -> tuple[float, float, str]:
    """The corrected interval of a summary row if it has one, else the plain t-interval."""
    low, high = row.get("ci_corrected_low", np.nan), row.get("ci_corrected_high", np.nan)
    if pd.notna(low) and pd.notna(high):
        return float(low), float(high), "corrected t"
    return float(row["ci_low"]), float(row["ci_high"]), "t"


def _panel_title(row: pd.Series, interval: str) -> str:
    level = f"{100 * (1 - row['alpha']):.0f} % {interval}-interval"
    repeats = int(row["n_repeats"])
    if row["protocol"] == HOLDOUT:
        return (f"{row['split']} ({row['dataset']})\nhold-out, {repeats} "
                f"repeat{'s' if repeats > 1 else ''}" + (f", {level}" if repeats > 1 else ""))
    folds = f"{int(row['n_folds'])}-fold CV"
    # comparison.group_duplicates: say so when the folds kept identical rows together
    grouped = "\nidentical rows kept in one fold" if row.get("group_duplicates") == GROUPED else ""
    return (f"{row['dataset']}\n{folds if repeats == 1 else f'{repeats} x {folds}'}, {level}"
            + grouped)


def comparison_figure(summary: pd.DataFrame) -> Figure:
    """Error of every model, one panel per CV data set and per hold-out split, sorted by error.

    Parameters
    ----------
    summary : pandas.DataFrame
        The ``comparison_summary`` table
        (:func:`mixlib.analysis.comparison_summary.comparison_summary`; any number of data
        sets, splits and models), one row per (protocol, data set, split, model): columns
        ``dataset``, ``model``, ``approach``, ``family``, ``n_folds``, ``alpha``, ``cv_error``,
        ``ci_low``, ``ci_high``, and if present ``protocol`` (``cv`` or ``holdout``),
        ``split``, ``n_repeats``, ``ci_corrected_low``, ``ci_corrected_high`` (others are
        ignored). Panels follow the order of the table.

    Returns
    -------
    matplotlib.figure.Figure
        Panels two a row, the key below them. Per panel a horizontal dot plot: the mean test
        error ``e`` (in percent) of each model with its interval as a bar, best model on top.
        The bar is the corrected interval ``e +/- t_{alpha/2, J-1} sqrt((1/J + n_test/n_train)
        s^2)`` over the ``J`` test folds
        (Nadeau and Bengio) when the table has it, else the Student-t interval
        ``e +/- t_{alpha/2, J-1} s / sqrt(J)``; none for a hold-out split with one repeat.
        Colour = family, marker = approach (circle probabilistic, square deterministic); the
        dashed and dotted vertical lines are the mean errors of the probabilistic and
        deterministic models.
    """
    summary = _check_summary(summary)
    keys = ["protocol", "dataset", "split"]
    panels = list(summary[keys].drop_duplicates().itertuples(index=False, name=None))
    colours = _family_colours(summary["family"].unique())
    # At most two panels a row (2 x 2 for four), the key below them: the figure keeps the
    # report's width (about 1000 pixels) readable whatever the number of data sets and splits.
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    height = 1.0 + 0.26 * summary.groupby(keys).size().max()
    fig, axes = new_figure(nrows, ncols, figsize=(5.2 * ncols, height * nrows + 0.6),
                           squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (protocol, dataset, split) in zip(axes.flat, panels):
        part = summary[(summary["protocol"] == protocol) & (summary["dataset"] == dataset)
                       & (summary["split"] == split)].sort_values(
            ["cv_error", "model"], ascending=[False, True], kind="stable")
        positions = np.arange(len(part))
        interval = "t"
        for pos, (_, row) in zip(positions, part.iterrows()):
            low, high, interval = _interval(row)
            xerr = None
            if np.isfinite(low) and np.isfinite(high):
                xerr = [[100 * (row["cv_error"] - low)], [100 * (high - row["cv_error"])]]
            ax.errorbar(100 * row["cv_error"], pos, xerr=xerr,
                        fmt=_MARKERS.get(row["approach"], "D"), color=colours[row["family"]],
                        capsize=2.5, markersize=6)
        for approach, style in (("probabilistic", "--"), ("deterministic", ":")):
            errors = part.loc[part["approach"] == approach, "cv_error"]
            if len(errors):
                ax.axvline(100 * errors.mean(), color="0.4", linestyle=style, linewidth=1)
        ax.set_yticks(positions, part["model"].tolist())
        ax.set_xlim(left=0)
        ax.set_title(_panel_title(part.iloc[0], interval), fontsize="medium")
        ax.set_xlabel("test error (%)" if protocol == HOLDOUT
                      else "cross-validated error (%)")
    handles = [Line2D([], [], color=colours[f], marker="o", linestyle="", label=f)
               for f in colours]
    handles += [Line2D([], [], color="0.3", marker=m, linestyle="", label=a)
                for a, m in _MARKERS.items()]
    handles += [Line2D([], [], color="0.4", linestyle="--", label="mean, probabilistic"),
                Line2D([], [], color="0.4", linestyle=":", label="mean, deterministic")]
    fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize="small")
    return fig


def best_per_family(summary: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """The model of lowest CV error of each family for one data set.

    Parameters
    ----------
    summary : pandas.DataFrame
        As for :func:`comparison_figure`; only its cross-validation rows are used.
    dataset : str

    Returns
    -------
    pandas.DataFrame
        Rows of ``summary``, one per family in :data:`FAMILY_ORDER` (ties go to the model name
        first in alphabetical order).
    """
    summary = _check_summary(summary)
    part = summary[(summary["dataset"] == dataset) & (summary["protocol"] == CV)]
    if part.empty:
        raise ValueError(f"no cv_error rows for dataset {dataset!r}; datasets in the table: "
                         f"{sorted(summary['dataset'].unique())}.")
    best = part.sort_values(["cv_error", "model"], kind="stable").groupby("family").head(1)
    rank = {f: i for i, f in enumerate(FAMILY_ORDER)}
    return best.sort_values("family", key=lambda s: s.map(lambda f: rank.get(f, len(rank))),
                            kind="stable", ignore_index=True)


def confusion_figure(table: pd.DataFrame, summary: pd.DataFrame, dataset: str) -> Figure:
    """Pooled out-of-fold confusion matrices of the best model of each family.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`mixlib.experiments.comparison.comparison_point`, with the
        ``confusion`` rows (``dataset``, ``model``, ``metric``, ``true_class``,
        ``predicted_class``, ``value`` = count) of ``dataset``.
    summary : pandas.DataFrame
        The ``comparison_summary`` table (see :func:`comparison_figure`), which picks the
        best model of each family.
    dataset : str
        The data set to draw.

    Returns
    -------
    matplotlib.figure.Figure
        One annotated heat map per family (:func:`best_per_family`): rows true classes,
        columns predicted classes, each cell its count (summed over the K test folds, so the
        matrix adds up to ``r`` times the number of rows of the data set for ``r`` CV
        repeats); colour = share of the true
        class (row-normalised, so the diagonal is each class's sensitivity).
    """
    best = best_per_family(summary, dataset)
    confusion = table[(table["dataset"] == dataset) & (table["metric"] == "confusion")]
    if "protocol" in confusion.columns:
        confusion = confusion[confusion["protocol"].fillna(CV) == CV]
    n = len(best)
    ncols = min(4, n)
    nrows = int(np.ceil(n / ncols))
    fig, axes = new_figure(nrows, ncols, figsize=(3.0 * ncols + 0.8, 2.9 * nrows),
                           squeeze=False)
    image = None
    for ax, (_, row) in zip(axes.ravel(), best.iterrows()):
        cells = confusion[confusion["model"] == row["model"]]
        if cells.empty:
            raise ValueError(f"no confusion rows for model {row['model']!r} on {dataset!r}.")
        counts = cells.pivot_table(index="true_class", columns="predicted_class",
                                   values="value", aggfunc="sum")
        classes = sorted(set(counts.index) | set(counts.columns))
        counts = counts.reindex(index=sorted(counts.index), columns=classes, fill_value=0)
        values = counts.to_numpy(dtype=float)
        totals = values.sum(axis=1, keepdims=True)
        shares = np.divide(values, totals, out=np.zeros_like(values), where=totals > 0)
        image = ax.imshow(shares, cmap="Blues", vmin=0.0, vmax=1.0)
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                ax.text(j, i, f"{int(values[i, j])}", ha="center", va="center",
                        fontsize="small", color="white" if shares[i, j] > 0.6 else "black")
        ax.set_xticks(range(len(classes)), classes)
        ax.set_yticks(range(len(counts.index)), list(counts.index))
        ax.set_xlabel("predicted class")
        ax.set_ylabel("true class")
        ax.grid(False)
        ax.set_title(f"{row['family']}: {row['model']}\nerror {100 * row['cv_error']:.1f} %",
                     fontsize="small")
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    fig.colorbar(image, ax=axes, label="share of the true class", shrink=0.8)
    fig.suptitle(f"{dataset}: pooled out-of-fold confusion matrices, best model per family")
    return fig


def dataset_confusion_figure(table: pd.DataFrame, summary: pd.DataFrame) -> Figure:
    """:func:`confusion_figure` of the one data set in ``table`` (the pipeline's per-data-set tables)."""
    datasets = pd.unique(table["dataset"])
    if len(datasets) != 1:
        raise ValueError(f"expected the table of one data set, got {list(datasets)}.")
    return confusion_figure(table, summary, str(datasets[0]))
