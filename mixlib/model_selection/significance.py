"""Significance of differences between models: the corrected resampled t-test of Nadeau and
Bengio (2003) on one data set (its interval, which needs no scipy.stats, is
:func:`mixlib.core.statistics.corrected_t_interval`), Holm's step-down correction, and average ranks with the
Friedman test and the Nemenyi critical difference across data sets (Demšar 2006, JMLR 7).

The distributions come from :mod:`scipy.stats`. Errors are "lower is better" throughout; pass
``1 - score`` (or ``-score``) for a score such as accuracy or AUC.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from mixlib.core.statistics import check_fold_sizes, finite_1d

FOLD_COLUMNS = ("dataset", "model", "repeat", "fold", "error")


@dataclass(frozen=True)
class PairedTTest:
    """Result of :func:`corrected_resampled_ttest` (difference = first minus second model)."""

    mean_difference: float
    statistic: float
    df: int
    p_value: float


@dataclass(frozen=True)
class FriedmanResult:
    """Result of :func:`friedman_test`."""

    mean_ranks: np.ndarray
    chi2: float
    chi2_p_value: float
    f_statistic: float
    f_p_value: float
    df_numerator: int
    df_denominator: int


def _error_matrix(errors) -> np.ndarray:
    matrix = np.asarray(errors, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(f"errors must be 2-d (n_datasets, n_models), got shape {matrix.shape}.")
    if matrix.shape[1] < 2:
        raise ValueError(f"errors needs at least 2 models (columns), got {matrix.shape[1]}.")
    if matrix.shape[0] < 1:
        raise ValueError("errors needs at least 1 data set (row), got 0.")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("errors must be finite (no NaN or inf).")
    return matrix


def corrected_resampled_ttest(errors_a, errors_b, *, n_train: float,
                              n_test: float) -> PairedTTest:
    """Corrected resampled t-test of Nadeau and Bengio (2003) on paired per-fold errors.

    Parameters
    ----------
    errors_a, errors_b : array-like of shape (J,)
        Errors of two models on the same ``J = r * K`` test folds of ``r`` repeats of
        K-fold cross-validation (element ``j`` of both arrays is the same fold), ``J >= 2``.
    n_train, n_test : float
        Number of training and test rows of one fold (their means if the folds differ);
        for K-fold CV ``n_test / n_train`` is about ``1 / (K - 1)``.

    Returns
    -------
    PairedTTest
        ``mean_difference`` = mean of ``d``, ``statistic`` = ``t``, ``df`` = ``J - 1`` and the
        two-sided ``p_value`` = ``2 P(T_{J-1} > |t|)`` from :data:`scipy.stats.t`.

    Notes
    -----
    With ``d_j = a_j - b_j``, ``d = (1/J) sum_j d_j`` and ``s^2 = sum_j (d_j - d)^2 / (J - 1)``,

    ``t = d / sqrt((1/J + n_test/n_train) s^2)``.

    The training sets of different folds overlap, so the ``d_j`` are correlated and the naive
    variance ``s^2 / J`` of the paired t-test is too small; the ``n_test / n_train`` term
    corrects it. With ``n_test = 0`` the statistic is the naive paired t-test's
    (:func:`scipy.stats.ttest_rel`); for ``n_test > 0`` ``|t|`` is smaller and ``p`` larger.

    Zero variance (``s^2 = 0``, up to rounding of the differences): if every ``d_j`` is 0 the
    models are indistinguishable and ``t = 0``, ``p = 1``; if every ``d_j`` equals the same
    non-zero value the statistic is the limit ``t = +/-inf`` (the sign of ``d``) and ``p = 0``,
    the limit of the test as ``s -> 0``. The latter happens with few folds and coarse errors;
    it means "always different by the same amount", not a measured certainty.
    """
    a = finite_1d(errors_a, "errors_a")
    b = finite_1d(errors_b, "errors_b")
    if len(a) != len(b):
        raise ValueError(f"errors_a and errors_b must have the same length, got {len(a)} "
                         f"and {len(b)}.")
    if len(a) < 2:
        raise ValueError(f"the test needs at least 2 folds, got {len(a)}.")
    check_fold_sizes(n_train, n_test)
    d = a - b
    J = len(d)
    mean = float(d.mean())
    scale = float(max(np.abs(a).max(), np.abs(b).max()))
    if np.ptp(d) <= 16 * np.finfo(float).eps * scale:
        if np.all(d == 0):
            return PairedTTest(0.0, 0.0, J - 1, 1.0)
        return PairedTTest(mean, math.copysign(math.inf, mean), J - 1, 0.0)
    variance = float(d.var(ddof=1))
    t = mean / math.sqrt((1 / J + n_test / n_train) * variance)
    return PairedTTest(mean, t, J - 1, float(2 * stats.t.sf(abs(t), J - 1)))


def holm(p_values) -> np.ndarray:
    """Holm-Bonferroni step-down adjusted p-values, in the order of ``p_values``.

    Parameters
    ----------
    p_values : array-like of shape (m,)
        Unadjusted p-values in ``[0, 1]``.

    Returns
    -------
    ndarray of shape (m,)
        With ``p_(1) <= ... <= p_(m)`` the sorted p-values,
        ``p~_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))``: non-decreasing in ``p``, capped at
        1. Rejecting every hypothesis with ``p~ <= alpha`` is Holm's procedure (reject
        ``H_(1) .. H_(i)`` while ``p_(i) <= alpha / (m - i + 1)``), which keeps the
        family-wise error rate at most ``significance_level``.
    """
    p = finite_1d(p_values, "p_values")
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"p_values must lie in [0, 1], got {p!r}.")
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def average_ranks(errors) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of the models on every data set and their mean (Demšar 2006, section 3.2.2).

    Parameters
    ----------
    errors : array-like of shape (N, k)
        Error of model ``j`` on data set ``i``; ``k >= 2`` models, ``N >= 1`` data sets.

    Returns
    -------
    ranks : ndarray of shape (N, k)
        ``r_i^j``: rank of model ``j`` on data set ``i``, 1 = lowest error; tied models get the
        mean of the ranks they span (two models tied for first both get 1.5).
    mean_ranks : ndarray of shape (k,)
        ``R_j = (1/N) sum_i r_i^j``.
    """
    matrix = _error_matrix(errors)
    ranks = stats.rankdata(matrix, method="average", axis=1)
    return ranks, ranks.mean(axis=0)


def friedman_test(errors) -> FriedmanResult:
    """Friedman test of equal mean ranks and its Iman-Davenport F form (Demšar 2006, 3.2.2).

    Parameters
    ----------
    errors : array-like of shape (N, k)
        Error of model ``j`` on data set ``i``; ``N >= 2`` data sets, ``k >= 2`` models.

    Returns
    -------
    FriedmanResult
        The mean ranks ``R_j`` (:func:`average_ranks`), ``chi2`` with its p-value from the
        chi-square distribution with ``k - 1`` degrees of freedom, and ``f_statistic`` with its
        p-value from ``F(k - 1, (k - 1)(N - 1))`` (``df_numerator``, ``df_denominator``).

    Notes
    -----
    ``chi2_F = 12 N / (k (k + 1)) [sum_j R_j^2 - k (k + 1)^2 / 4]`` and
    ``F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)``. ``chi2_F`` reaches its maximum
    ``N (k - 1)`` when every data set ranks the models in the same order without ties; then
    ``F_F = inf`` and its p-value is 0.

    Unlike :func:`scipy.stats.friedmanchisquare`, ``chi2_F`` has no tie correction (Demšar's
    form): with ties scipy divides it by ``1 - sum(t^3 - t) / (N k (k^2 - 1))`` (``t`` the
    sizes of the groups of tied values), so scipy's value is larger; without ties both agree.
    """
    matrix = _error_matrix(errors)
    N, k = matrix.shape
    if N < 2:
        raise ValueError(f"the Friedman test needs at least 2 data sets (rows), got {N}.")
    _, mean_ranks = average_ranks(matrix)
    chi2 = 12 * N / (k * (k + 1)) * (np.sum(mean_ranks ** 2) - k * (k + 1) ** 2 / 4)
    chi2 = max(float(chi2), 0.0)
    df1, df2 = k - 1, (k - 1) * (N - 1)
    denominator = N * (k - 1) - chi2
    if denominator <= 1e-12 * N * (k - 1):
        f_statistic, f_p = math.inf, 0.0
    else:
        f_statistic = (N - 1) * chi2 / denominator
        f_p = float(stats.f.sf(f_statistic, df1, df2))
    return FriedmanResult(mean_ranks, chi2, float(stats.chi2.sf(chi2, df1)), f_statistic, f_p,
                          df1, df2)


def nemenyi_critical_difference(n_models: int, n_datasets: int, significance_level: float = 0.05) -> float:
    """Critical difference of mean ranks in the Nemenyi test (Demšar 2006, 3.2.2).

    Parameters
    ----------
    n_models : int
        ``k >= 2`` models compared.
    n_datasets : int
        ``N >= 1`` data sets the ranks are averaged over.
    significance_level : float
        Family-wise significance level, in ``(0, 1)``.

    Returns
    -------
    float
        ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` with
        ``q_alpha = q_{1 - alpha}(k, inf) / sqrt(2)``, ``q`` the quantile of the studentized
        range (:data:`scipy.stats.studentized_range`). Two models whose mean ranks differ by
        at least ``CD`` differ significantly.
    """
    for name, value, low in (("n_models", n_models, 2), ("n_datasets", n_datasets, 1)):
        if not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    q = stats.studentized_range.ppf(1 - significance_level, n_models, np.inf) / math.sqrt(2)
    return float(q * math.sqrt(n_models * (n_models + 1) / (6 * n_datasets)))


def _check_columns(table: pd.DataFrame, columns, name: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{name} lacks the columns {missing}; it has {list(table.columns)}.")
    if table.empty:
        raise ValueError(f"{name} has no rows.")
    if table["error"].isna().any():
        raise ValueError(f"{name} has NaN errors.")


def _for_dataset(value, dataset, name: str) -> float:
    if isinstance(value, Mapping):
        if dataset not in value:
            raise ValueError(f"{name} has no entry for data set {dataset!r}.")
        return value[dataset]
    return value


def pairwise_tests(fold_errors: pd.DataFrame, *, n_train: float | Mapping[str, float],
                   n_test: float | Mapping[str, float], significance_level: float = 0.05) -> pd.DataFrame:
    """Corrected resampled t-test of every pair of models on every data set, Holm per data set.

    Parameters
    ----------
    fold_errors : pandas.DataFrame
        Columns ``dataset``, ``model``, ``repeat``, ``fold``, ``error``: one row per test fold
        of every model; on a data set every model must have the same ``(repeat, fold)`` keys
        (the folds are shared, so the errors pair up), and at least 2 models.
    n_train, n_test : float or mapping of data set name to float
        Training and test rows of one fold (see :func:`corrected_resampled_ttest`), one value
        for all data sets or one per data set.
    significance_level : float
        Significance level of the Holm-corrected p-values.

    Returns
    -------
    pandas.DataFrame
        One row per data set and pair ``(model_a, model_b)`` (models in order of appearance,
        ``a`` before ``b``): ``dataset``, ``model_a``, ``model_b``, ``error_a``, ``error_b``
        (mean fold errors), ``mean_difference`` (mean of ``a - b``; negative = ``a`` better),
        ``n_folds`` (``J``), ``n_train``, ``n_test``, ``t``, ``df``, ``p_value``, ``p_holm``
        (:func:`holm` over the pairs of the data set), ``significance_level``, ``significant``
        (``p_holm < alpha``).
    """
    _check_columns(fold_errors, FOLD_COLUMNS, "fold_errors")
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    rows = []
    for dataset, part in fold_errors.groupby("dataset", sort=False):
        if part.duplicated(["model", "repeat", "fold"]).any():
            raise ValueError(f"data set {dataset!r} has several errors for one model and fold.")
        models = list(pd.unique(part["model"]))
        if len(models) < 2:
            raise ValueError(f"data set {dataset!r} needs at least 2 models, got {models}.")
        wide = part.pivot(index=["repeat", "fold"], columns="model", values="error")
        incomplete = [m for m in models if wide[m].isna().any()]
        if incomplete:
            raise ValueError(f"on data set {dataset!r} the models {incomplete} lack some of "
                             f"the (repeat, fold) keys of the others.")
        train = _for_dataset(n_train, dataset, "n_train")
        test = _for_dataset(n_test, dataset, "n_test")
        first = len(rows)
        for model_a, model_b in itertools.combinations(models, 2):
            a, b = wide[model_a].to_numpy(), wide[model_b].to_numpy()
            result = corrected_resampled_ttest(a, b, n_train=train, n_test=test)
            rows.append({"dataset": dataset, "model_a": model_a, "model_b": model_b,
                         "error_a": a.mean(), "error_b": b.mean(),
                         "mean_difference": result.mean_difference, "n_folds": len(a),
                         "n_train": train, "n_test": test, "t": result.statistic,
                         "df": result.df, "p_value": result.p_value})
        adjusted = holm([row["p_value"] for row in rows[first:]])
        for row, p_holm in zip(rows[first:], adjusted):
            row.update(p_holm=p_holm, alpha=significance_level,
                       significant=bool(p_holm < significance_level))
    return pd.DataFrame(rows)


def rank_table(errors: pd.DataFrame, significance_level: float = 0.05) -> pd.DataFrame:
    """Mean rank of every model across data sets, with the Friedman test and the Nemenyi CD.

    Parameters
    ----------
    errors : pandas.DataFrame
        Columns ``dataset``, ``model``, ``error``; several rows of one ``(dataset, model)``
        (the folds of :func:`pairwise_tests`'s table) are averaged first. Every model must have
        an error on every data set; at least 2 data sets and 2 models.
    significance_level : float
        Significance level of the critical difference.

    Returns
    -------
    pandas.DataFrame
        One row per model, sorted by mean rank (ties by name): ``model``, ``mean_rank``
        (:func:`average_ranks`, 1 = best), ``n_datasets``, ``n_models``, and, the same on every
        row, ``friedman_chi2``, ``friedman_p``, ``iman_davenport_f``, ``iman_davenport_p``
        (:func:`friedman_test`), ``significance_level`` and ``critical_difference``
        (:func:`nemenyi_critical_difference`). Mean ranks differing by at least
        ``critical_difference`` differ significantly.
    """
    _check_columns(errors, ("dataset", "model", "error"), "errors")
    means = errors.groupby(["dataset", "model"], sort=False)["error"].mean()
    wide = means.unstack("model")
    wide = wide.loc[pd.unique(errors["dataset"]), pd.unique(errors["model"])]
    if wide.isna().any().any():
        cells = [f"{wide.columns[m]} on {wide.index[d]}"
                 for d, m in zip(*np.nonzero(wide.isna().to_numpy()))]
        raise ValueError(f"errors lacks the (dataset, model) cells {cells}.")
    result = friedman_test(wide.to_numpy())
    N, k = wide.shape
    table = pd.DataFrame({"model": wide.columns, "mean_rank": result.mean_ranks,
                          "n_datasets": N, "n_models": k, "friedman_chi2": result.chi2,
                          "friedman_p": result.chi2_p_value,
                          "iman_davenport_f": result.f_statistic,
                          "iman_davenport_p": result.f_p_value, "alpha": significance_level,
                          "critical_difference": nemenyi_critical_difference(k, N, significance_level)})
    return table.sort_values(["mean_rank", "model"], kind="stable").reset_index(drop=True)
