"""Summaries of the comparison tables: one row per model, and the probabilistic against the
deterministic approach per data set (report ch. 6 and conclusion).

Both read the stacked tables of :func:`mixlib.experiments.comparison.comparison_point` and
:func:`mixlib.experiments.comparison.comparison_holdout_job` (the ``comparison.tsv``
table of the pipeline); they need no estimator. Every comparison table names the protocol
that ran and how (:data:`PROTOCOL_COLUMNS`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mixlib.core.vocabulary import COMPARISON_KEYS as SUMMARY_KEYS
from mixlib.core.vocabulary import CV, HOLDOUT, SUMMARY_METRICS
from mixlib.catalogue.registry import APPROACHES


#: The columns every comparison table has: the protocol that ran and how (the jobs write them).
PROTOCOL_COLUMNS = ("protocol", "split", "n_repeats", "group_duplicates")


def split_as_text(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its ``split`` column as text: empty on cross-validation rows, which a
    table file reads back as NaN.

    Raises
    ------
    ValueError
        If ``table`` lacks a column of :data:`PROTOCOL_COLUMNS`.
    """
    missing = set(PROTOCOL_COLUMNS) - set(table.columns)
    if missing:
        raise ValueError(f"comparison table lacks column(s) {sorted(missing)}.")
    table = table.copy()
    table["split"] = table["split"].astype(object).fillna("").astype(str)
    return table


def comparison_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (protocol, data set, split, model): the comparison table of the report.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of the cross-validation (:func:`comparison_point`) and hold-out
        jobs.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_KEYS` (``protocol`` ``cv`` or ``holdout``; ``split`` empty for
        ``cv``) and one per metric of :data:`SUMMARY_METRICS` (``cv_error`` is the hold-out
        test error on ``holdout`` rows); cross-validation first, then by data set, split and
        ``cv_error``. A metric absent from the table is left out.
    """
    keys = list(SUMMARY_KEYS)
    missing = {"dataset", "model", "approach", "family", "n_folds", "alpha", "metric",
               "value"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}.")
    table = split_as_text(table)
    rows = table[table["metric"].isin(SUMMARY_METRICS)]
    wide = (rows.pivot_table(index=keys, columns="metric", values="value", aggfunc="first",
                             dropna=False, observed=True)
            .reset_index().rename_axis(columns=None))
    wide = wide.dropna(subset=["cv_error"])
    wide = wide[keys + [m for m in SUMMARY_METRICS if m in wide.columns]]
    order = wide["protocol"].map({CV: 0, HOLDOUT: 1})
    return (wide.assign(_order=order)
            .sort_values(["_order", "dataset", "split", "cv_error", "model"], kind="stable")
            .drop(columns="_order").reset_index(drop=True))


def probabilistic_vs_deterministic(table: pd.DataFrame) -> pd.DataFrame:
    """Mean CV error of the probabilistic and of the deterministic models, per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`comparison_point` (rows with metric ``cv_error`` of the
        cross-validation are used; hold-out rows are ignored).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, approach): ``dataset``, ``approach``, ``n_models``,
        ``mean_cv_error`` (unweighted mean over the models of the approach), ``best_model``,
        ``best_cv_error``, ``mixture_cv_error`` (the mixture classifier's error, NaN if it was
        not run), and ``gap`` = probabilistic minus deterministic ``mean_cv_error`` of the
        data set (the same on both rows; positive when the probabilistic models generalise
        worse, the report's conclusion).
    """
    summary = comparison_summary(table)
    summary = summary[summary["protocol"] == CV]
    records = []
    for dataset, part in summary.groupby("dataset", sort=True):
        means = {}
        for approach in APPROACHES:
            models = part[part["approach"] == approach]
            if models.empty:
                continue
            best = models.sort_values(["cv_error", "model"], kind="stable").iloc[0]
            means[approach] = float(models["cv_error"].mean())
            records.append({"dataset": dataset, "approach": approach,
                            "n_models": len(models), "mean_cv_error": means[approach],
                            "best_model": best["model"], "best_cv_error": float(best["cv_error"])})
        mixture = part.loc[part["model"] == "mixture", "cv_error"]
        gap = means.get("probabilistic", np.nan) - means.get("deterministic", np.nan)
        for record in records:
            if record["dataset"] == dataset:
                record["mixture_cv_error"] = float(mixture.iloc[0]) if len(mixture) else np.nan
                record["gap"] = gap
    return pd.DataFrame(records, columns=["dataset", "approach", "n_models", "mean_cv_error",
                                          "best_model", "best_cv_error", "mixture_cv_error",
                                          "gap"])
