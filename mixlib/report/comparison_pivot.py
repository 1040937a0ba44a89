"""The comparison as the report shows it: one row per model, one column per data set (and
hold-out split), each cell "error ± interval" in percent."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mixlib.core.vocabulary import HOLDOUT
from mixlib.report.html_table import cells_html, column_style, page
from mixlib.report.rounding import MAX_SIGNIFICANT, format_significant, interval_decimals

_SUMMARY = ("dataset", "model", "family", "approach", "cv_error", "ci_low", "ci_high")


def error_text(error: float, low: float, high: float) -> str:
    """``"e ± h"`` in percent, ``h = (high - low) / 2``: both to the decimals giving two
    significant digits of ``h`` (:func:`mixlib.report.rounding.interval_decimals`, at most
    four significant digits of ``e``); ``e`` alone, to three significant digits, without a
    finite interval of positive width."""
    error, low, high = 100 * error, 100 * low, 100 * high
    decimals = interval_decimals(low, high)
    if decimals is None:
        return format_significant(error, 3)
    if error != 0:
        decimals = min(decimals, max(MAX_SIGNIFICANT - 1 - int(np.floor(np.log10(abs(error)))), 0))
    return f"{error:.{decimals}f} ± {(high - low) / 2:.{decimals}f}"


def _column(row: pd.Series) -> str:
    if row.get("protocol") == HOLDOUT:
        return f"{row['split']} (hold-out)"
    return str(row["dataset"])


def comparison_pivot(summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Data set x model: the error of every model on every data set, with its interval.

    Parameters
    ----------
    summary : pandas.DataFrame
        The ``comparison_summary`` table (:func:`mixlib.analysis.comparison_summary.
        comparison_summary`): columns ``dataset``, ``model``, ``family``, ``approach``,
        ``cv_error``, ``ci_low``, ``ci_high`` and, if present, ``protocol``, ``split``,
        ``ci_corrected_low``, ``ci_corrected_high``.

    Returns
    -------
    shown, values : pandas.DataFrame
        One row per model: ``model``, ``family``, ``approach``, ``mean rank`` (the mean over
        the columns of the model's rank in each, 1 = lowest error, ties sharing their mean
        rank), then one column per cross-validated data set and per hold-out split (named
        ``"<split> (hold-out)"``) in the table's order. ``shown`` holds the text of each cell,
        ``"e ± h"`` in percent (:func:`error_text`) with the corrected interval where the
        table has one, else the plain t-interval; ``values`` the numbers to sort by (the
        errors in percent). Rows sorted by mean rank, then model.
    """
    missing = [column for column in _SUMMARY if column not in summary.columns]
    if missing:
        raise ValueError(f"the comparison summary lacks the column(s) {missing}; it has "
                         f"{list(summary.columns)}.")
    if summary.empty:
        raise ValueError("the comparison summary has no rows.")
    table = summary.copy()
    corrected = {"ci_corrected_low", "ci_corrected_high"} <= set(table.columns)
    low = table["ci_corrected_low"].fillna(table["ci_low"]) if corrected else table["ci_low"]
    high = table["ci_corrected_high"].fillna(table["ci_high"]) if corrected else table["ci_high"]
    table["column"] = table.apply(_column, axis=1)
    table["text"] = [error_text(e, lo, hi) for e, lo, hi in zip(table["cv_error"], low, high)]
    columns = list(pd.unique(table["column"]))
    errors = table.pivot(index="model", columns="column", values="cv_error")[columns] * 100
    texts = table.pivot(index="model", columns="column", values="text")[columns].fillna("")
    labels = table.drop_duplicates("model").set_index("model")[["family", "approach"]]
    rank = errors.rank(axis=0).mean(axis=1)
    order = sorted(errors.index, key=lambda model: (rank[model], model))
    head = labels.loc[order].assign(**{"mean rank": rank[order]})
    values = pd.concat([head, errors.loc[order]], axis=1).rename_axis("model").reset_index()
    shown = pd.concat([head.assign(**{"mean rank": [format_significant(r, 3) for r in head["mean rank"]]}),
                       texts.loc[order]], axis=1).rename_axis("model").reset_index()
    values.columns = shown.columns = ["model", "family", "approach", "mean rank", *columns]
    return shown, values


def comparison_pivot_page(summary: pd.DataFrame, path: str) -> str:
    """:func:`comparison_pivot` as a sortable page (:func:`mixlib.report.html_table.page`),
    its note saying what a cell holds and where the full table ``path`` is."""
    shown, values = comparison_pivot(summary)
    level = f"{100 * (1 - float(summary['alpha'].iloc[0])):.0f} % " if "alpha" in summary else ""
    note = (f"Error (%) of every model on every data set ± the half-width of its {level}interval "
            "(Nadeau and Bengio's corrected one where the table has it); hold-out columns: mean "
            "test error over the split's repeats. Mean rank: over these columns. Click a "
            f"column's name to sort by it. Every column of every row: {path}.")
    numeric = set(shown.columns[3:])
    return page(cells_html(shown, values, numeric), "errors per data set", note,
                column_style(shown.columns, numeric))
