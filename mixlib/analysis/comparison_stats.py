"""Significance of the comparison: every pair of models on each data set (corrected resampled
t-test, Holm), and mean ranks across the cross-validated data sets (Friedman, Nemenyi), from
the stacked comparison table (:mod:`mixlib.experiments.comparison`); no estimator is fitted.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from mixlib.core.vocabulary import COMPARISON_GROUP, CV
from mixlib.analysis.comparison_summary import split_as_text
from mixlib.model_selection.significance import (
    average_ranks,
    nemenyi_critical_difference,
    pairwise_tests,
    rank_table,
)

logger = logging.getLogger(__name__)

#: Columns naming one comparison: the protocol, the data set, the split (hold-out only) and
#: whether the CV folds kept identical rows together (``yes``/``no``; ``any`` for hold-out).
GROUP_COLUMNS = list(COMPARISON_GROUP)


def table_significance_level(table: pd.DataFrame) -> float:
    """The comparison's ``significance_level`` (one value in the whole table)."""
    values = table["alpha"].dropna().unique()
    if len(values) != 1:
        raise ValueError(f"the comparison table must have one alpha, got {sorted(values)}.")
    return float(values[0])


def fold_errors(table: pd.DataFrame) -> pd.DataFrame:
    """The ``fold_error`` rows of a comparison table: ``protocol, dataset, split,
    group_duplicates, model, repeat, fold, n_train, n_test, error``."""
    rows = split_as_text(table)
    rows = rows[rows["metric"] == "fold_error"]
    columns = GROUP_COLUMNS + ["model", "repeat", "fold", "n_train", "n_test"]
    return rows[columns].assign(error=rows["value"].to_numpy()).reset_index(drop=True)


def comparison_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Every pair of models on every data set (CV) and hold-out split, by the corrected
    resampled t-test of Nadeau and Bengio (2003) on the per-fold errors, Holm per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        The stacked comparison table (``comparison.tsv``).

    Returns
    -------
    pandas.DataFrame
        One row per (protocol, data set, split) and pair of models, in the order of the
        table: ``protocol``, ``dataset``, ``split``, ``group_duplicates`` and the columns of
        :func:`mixlib.model_selection.significance.pairwise_tests` (``model_a``, ``model_b``,
        ``error_a``, ``error_b``, ``mean_difference`` = a - b, ``n_folds`` = ``J`` errors
        paired, ``n_train``, ``n_test`` (the mean fold sizes, which set the correction
        ``n_test / n_train``), ``t``, ``df``, ``p_value``, ``p_holm``, ``significance_level``,
        ``significant``). A hold-out split with one repeat has no variance to test: its pairs
        are left out (logged). ``significance_level`` is the comparison's.
    """
    significance_level = table_significance_level(table)
    errors = fold_errors(table)
    tables = []
    for key, part in errors.groupby(GROUP_COLUMNS, sort=False):
        label = dict(zip(GROUP_COLUMNS, key))
        if part.groupby("model").size().min() < 2:
            logger.info("%s: one test error per model, no pairwise test.", label)
            continue
        pairs = pairwise_tests(part, n_train=float(part["n_train"].mean()),
                               n_test=float(part["n_test"].mean()), significance_level=significance_level)
        pairs = pairs.drop(columns="dataset")
        for position, (column, value) in enumerate(label.items()):
            pairs.insert(position, column, value)
        tables.append(pairs)
    if not tables:
        raise ValueError("the comparison table has no data set with two or more test errors "
                         "per model: nothing to test.")
    return pd.concat(tables, ignore_index=True)


def comparison_ranks(table: pd.DataFrame) -> pd.DataFrame:
    """Mean rank of every model across the cross-validated data sets (Demšar 2006).

    Parameters
    ----------
    table : pandas.DataFrame
        The stacked comparison table; its ``cv_error`` rows of protocol ``cv`` are ranked
        (1 = lowest error on a data set, ties share the mean rank).

    Returns
    -------
    pandas.DataFrame
        The table of :func:`mixlib.model_selection.significance.rank_table` (``model``,
        ``mean_rank``, ``n_datasets``, ``n_models``, ``friedman_chi2``, ``friedman_p``,
        ``iman_davenport_f``, ``iman_davenport_p``, ``significance_level``, ``critical_difference``) with
        the model's ``approach`` after ``model``. With one data set the Friedman columns are
        NaN (the test needs two) and the critical difference is that of ``N = 1``.
    """
    significance_level = table_significance_level(table)
    rows = split_as_text(table)
    rows = rows[(rows["protocol"] == CV) & (rows["metric"] == "cv_error")]
    if rows.empty:
        raise ValueError("the comparison table has no cross-validated cv_error rows to rank.")
    errors = rows[["dataset", "model"]].assign(error=rows["value"].to_numpy())
    n_datasets = errors["dataset"].nunique()
    if n_datasets >= 2:
        ranks = rank_table(errors, significance_level)
    else:
        models = list(pd.unique(errors["model"]))
        _, mean_ranks = average_ranks(errors.set_index("model").loc[models, "error"]
                                      .to_numpy()[None, :])
        ranks = pd.DataFrame({"model": models, "mean_rank": mean_ranks, "n_datasets": 1,
                              "n_models": len(models), "friedman_chi2": np.nan,
                              "friedman_p": np.nan, "iman_davenport_f": np.nan,
                              "iman_davenport_p": np.nan, "alpha": significance_level,
                              "critical_difference": nemenyi_critical_difference(
                                  len(models), 1, significance_level)})
        ranks = ranks.sort_values(["mean_rank", "model"], kind="stable", ignore_index=True)
    approach = rows.drop_duplicates("model").set_index("model")["approach"]
    ranks.insert(1, "approach", ranks["model"].map(approach).to_numpy())
    return ranks
