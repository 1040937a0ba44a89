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


def confusion_shares(cells: pd.DataFrame, n_repeats: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One model's pooled confusion rows as shares of each true class and counts of one repeat.

    Parameters
    ----------
    cells : pandas.DataFrame
        The model's ``confusion`` rows (``true_class``, ``predicted_class``, ``value`` = test
        rows, pooled over the test folds of ``n_repeats`` CV repeats).
    n_repeats : int
        ``r``, the CV repeats pooled.

    Returns
    -------
    shares, counts : pandas.DataFrame
        True classes (rows) by predicted labels (columns; every class, then any other label
        predicted): ``shares[i, j] = n_ij / sum_j n_ij``, each row adding up to 1 (0 for a class
        without test rows); ``counts[i, j] = n_ij / r``, the count of one repeat, since each
        repeat's folds test every row once (its rows add up to the class sizes).
    """
    if n_repeats < 1:
        raise ValueError(f"n_repeats must be >= 1, got {n_repeats!r}.")
    pooled = cells.pivot_table(index="true_class", columns="predicted_class", values="value",
                               aggfunc="sum")
    true = sorted(pooled.index)
    labels = true + sorted(set(pooled.columns) - set(true))
    pooled = pooled.reindex(index=true, columns=labels, fill_value=0).fillna(0.0).astype(float)
    totals = pooled.sum(axis=1)
    shares = pooled.div(totals.where(totals > 0), axis=0).fillna(0.0)
    return shares, pooled / n_repeats


def _count_text(count: float) -> str:
    """A count of one repeat: whole, or to one decimal when the repeats differ."""
    return f"{count:.0f}" if abs(count - round(count)) < 0.05 else f"{count:.1f}"


def _class_label(label: object) -> str:
    """A class as the reader knows it: "1", not the table's "1.0"."""
    try:
        number = float(label)
    except (TypeError, ValueError):
        return str(label)
    return str(int(number)) if number.is_integer() else str(label)


def confusion_figure(table: pd.DataFrame, summary: pd.DataFrame, dataset: str) -> Figure:
    """Out-of-fold confusion matrices of the best model of each family, in shares of each
    true class.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`mixlib.experiments.comparison.comparison_point`, with the
        ``confusion`` rows (``dataset``, ``model``, ``metric``, ``true_class``,
        ``predicted_class``, ``value`` = count pooled over the CV repeats, ``n_repeats``
        (absent: 1)) of ``dataset``.
    summary : pandas.DataFrame
        The ``comparison_summary`` table (see :func:`comparison_figure`), which picks the
        best model of each family.
    dataset : str
        The data set to draw.

    Returns
    -------
    matplotlib.figure.Figure
        One heat map per family (:func:`best_per_family`): rows true classes, columns
        predicted classes, colour and first line of each cell the share of the true class in
        percent (rows add up to 100 %, the diagonal is each class's sensitivity), second line
        the count of one CV repeat (:func:`confusion_shares`: pooled count / ``r``, which adds
        up to the data set's rows).
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
    image, repeats = None, set()
    for ax, (_, row) in zip(axes.ravel(), best.iterrows()):
        cells = confusion[confusion["model"] == row["model"]]
        if cells.empty:
            raise ValueError(f"no confusion rows for model {row['model']!r} on {dataset!r}.")
        n_repeats = int(cells["n_repeats"].iloc[0]) if "n_repeats" in cells.columns else 1
        repeats.add(n_repeats)
        shares, counts = confusion_shares(cells, n_repeats)
        image = ax.imshow(100 * shares.to_numpy(), cmap="Blues", vmin=0.0, vmax=100.0)
        for i in range(shares.shape[0]):
            for j in range(shares.shape[1]):
                share = 100 * shares.iat[i, j]
                ax.text(j, i, f"{share:.0f} %\n{_count_text(counts.iat[i, j])}", ha="center",
                        va="center", fontsize="x-small", linespacing=1.1,
                        color="white" if share > 60 else "black")
        ax.set_xticks(range(shares.shape[1]), [_class_label(c) for c in shares.columns])
        ax.set_yticks(range(shares.shape[0]), [_class_label(c) for c in shares.index])
        ax.set_xlabel("predicted class")
        ax.set_ylabel("true class")
        ax.grid(False)
        ax.set_title(f"{row['family']}: {row['model']}\nerror {100 * row['cv_error']:.1f} %",
                     fontsize="small")
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    fig.colorbar(image, ax=axes, label="share of the true class (%)", shrink=0.8)
    per_repeat = (f"count of one repeat (mean of {repeats.pop()})" if repeats != {1}
                  and len(repeats) == 1 else "count" if repeats == {1}
                  else "count of one repeat")
    fig.suptitle(f"{dataset}: out-of-fold confusion, best model per family\n"
                 f"each cell: share of the true class, {per_repeat}")
    return fig


def dataset_confusion_figure(table: pd.DataFrame, summary: pd.DataFrame) -> Figure:
    """:func:`confusion_figure` of the one data set in ``table`` (the pipeline's per-data-set tables)."""
    datasets = pd.unique(table["dataset"])
    if len(datasets) != 1:
        raise ValueError(f"expected the table of one data set, got {list(datasets)}.")
    return confusion_figure(table, summary, str(datasets[0]))
