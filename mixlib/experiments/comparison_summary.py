"""Summaries of the comparison tables: one row per model, and the probabilistic against the
deterministic approach per data set (report ch. 6 and conclusion).

Both read the stacked tables of :func:`mixlib.experiments.comparison.comparison_point` (the
``comparison.tsv`` table of the pipeline); they need no estimator.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mixlib.experiments.registry import APPROACHES

#: Metrics of a model's row in :func:`comparison_summary`, in column order.
SUMMARY_METRICS = ("cv_error", "cv_std", "ci_low", "ci_high", "fit_seconds", "predict_seconds")


def comparison_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, model): the comparison table of the report.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`comparison_point` / :func:`comparison_job`.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``model``, ``approach``, ``family``, ``n_folds``, ``alpha`` and
        one per metric of :data:`SUMMARY_METRICS`; sorted by dataset, then ``cv_error``.
    """
    keys = ["dataset", "model", "approach", "family", "n_folds", "alpha"]
    missing = set(keys + ["metric", "value"]) - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}.")
    rows = table[table["metric"].isin(SUMMARY_METRICS)]
    wide = (rows.pivot_table(index=keys, columns="metric", values="value", aggfunc="first")
            .reset_index().rename_axis(columns=None))
    wide = wide[keys + [m for m in SUMMARY_METRICS if m in wide.columns]]
    return wide.sort_values(["dataset", "cv_error", "model"], kind="stable",
                            ignore_index=True)


def probabilistic_vs_deterministic(table: pd.DataFrame) -> pd.DataFrame:
    """Mean CV error of the probabilistic and of the deterministic models, per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        Stacked tables of :func:`comparison_point` (rows with metric ``cv_error`` are used).

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
