"""The study's one uncertainty convention: the Student-t interval on a mean.

Every interval of the study, the cross-validated error of the course notes (over folds) as the
bands and bars of the figures (over repeats), is ``mean +/- t_{1-alpha/2, n-1} s / sqrt(n)``;
:func:`t_half_width` is the one place its half-width is computed. The comparison's folds share
training rows, so its interval widens the variance as Nadeau and Bengio (2003) do:
:func:`corrected_t_interval`. The Student-t quantile is :func:`scipy.special.stdtrit`, the
function ``scipy.stats.t.ppf`` calls, so this module does not import ``scipy.stats`` (about a
second, which every Snakemake process that parses the workflow would pay).

The study's level is :data:`STUDY_SIGNIFICANCE_LEVEL`: the bands of the figures and the intervals of the
claims are at ``1 - STUDY_SIGNIFICANCE_LEVEL``. A median (of counts, say EM iterations) has the
distribution-free order-statistic interval of :func:`median_interval`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import bdtr, stdtrit

#: ``1 - STUDY_SIGNIFICANCE_LEVEL`` is the level of the study's intervals over repeats (figures and claims).
STUDY_SIGNIFICANCE_LEVEL = 0.05


def t_half_width(std: ArrayLike, n: ArrayLike, significance_level: float = 0.05) -> np.ndarray:
    """Half-width of the Student-t confidence interval on a mean.

    Parameters
    ----------
    std : array_like of float
        Sample standard deviation ``s = sqrt(1/(n-1) sum_i (x_i - mean)^2)`` of the values.
    n : array_like of int
        Number of values, broadcast against ``std``.
    significance_level : float
        ``1 - alpha`` is the confidence level, ``0 < alpha < 1``.

    Returns
    -------
    ndarray of float
        ``t_{1-alpha/2, n-1} s / sqrt(n)``, with ``t_{1-alpha/2, n-1}`` the ``1 - alpha/2``
        quantile of Student's t with ``n - 1`` degrees of freedom, so that the interval is
        ``mean +/- t_{1-alpha/2, n-1} s / sqrt(n)``. NaN where ``n < 2``: one value has no
        interval.

    Raises
    ------
    ValueError
        If ``significance_level`` is not in (0, 1).
    """
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    std = np.asarray(std, dtype=float)
    n = np.asarray(n)
    several = n >= 2
    df = np.where(several, n - 1, 1)
    quantile = stdtrit(df, 1 - significance_level / 2)
    return np.where(several, quantile * std / np.sqrt(np.where(several, n, 1)), np.nan)


def mean_t_interval(values: ArrayLike, significance_level: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over the rows of ``values`` and its Student-t interval, column by column.

    Parameters
    ----------
    values : array_like of shape (n_repeats, n_points)
        One row per repeat, one column per point (e.g. a round or a sweep value); NaN entries
        are ignored.
    significance_level : float
        ``1 - alpha`` is the confidence level, ``0 < alpha < 1``.

    Returns
    -------
    mean, low, high : ndarrays of shape (n_points,)
        ``mean +/- t_{1-alpha/2, n-1} s / sqrt(n)`` (:func:`t_half_width`), with ``n`` the
        number of non-NaN values of the point and ``s`` their sample standard deviation. A
        point with no value has a NaN mean; a point with one value (``n = 1``) has its mean
        and NaN ends: no interval, so a figure draws no band there.

    Raises
    ------
    ValueError
        If ``values`` is not two-dimensional or ``significance_level`` is not in (0, 1).
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-d (repeats x points), got shape {values.shape}.")
    count = np.sum(~np.isnan(values), axis=0)
    mean = np.full(values.shape[1], np.nan)
    std = np.full(values.shape[1], np.nan)
    present, several = count > 0, count > 1
    mean[present] = np.nanmean(values[:, present], axis=0)
    std[several] = np.nanstd(values[:, several], axis=0, ddof=1)
    half = t_half_width(std, count, significance_level)
    return mean, mean - half, mean + half


def finite_1d(values, name: str) -> np.ndarray:
    """``values`` as a 1-d float array; raises ``ValueError`` naming ``name`` if it is not 1-d or
    holds NaN or inf."""
    array = np.asarray(values, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {array!r}.")
    return array


def check_fold_sizes(n_train: float, n_test: float) -> None:
    """Raise ``ValueError`` unless ``n_train > 0`` and ``n_test >= 0`` are real numbers: the
    training and test rows of a fold, whose ratio ``n_test / n_train`` Nadeau and Bengio's
    correction adds to the ``1 / J`` of the variance."""
    if not (isinstance(n_train, numbers.Real) and n_train > 0):
        raise ValueError(f"n_train must be a positive number, got {n_train!r}.")
    if not (isinstance(n_test, numbers.Real) and n_test >= 0):
        raise ValueError(f"n_test must be a non-negative number, got {n_test!r}.")


def corrected_t_interval(errors, *, n_train: float, n_test: float,
                         significance_level: float = 0.05) -> tuple[float, float]:
    """Interval on the mean of ``J`` resampled test errors with Nadeau and Bengio's variance.

    Parameters
    ----------
    errors : array-like of shape (J,)
        Test errors of ``r`` repeats of K-fold CV (``J = r K``) or of ``J`` random
        train/test splits, ``J >= 2``.
    n_train, n_test : float
        Training and test rows of one fold or split (their means if they differ).
    significance_level : float
        ``1 - alpha`` is the confidence level.

    Returns
    -------
    (low, high) : tuple of float
        ``e -/+ t_{alpha/2, J-1} sqrt((1/J + n_test/n_train) s^2)`` with ``e`` the mean and
        ``s^2`` the variance (``ddof=1``); ``n_test = 0`` gives the plain t-interval.
    """
    e = finite_1d(errors, "errors")
    if len(e) < 2:
        raise ValueError(f"the interval needs at least 2 errors, got {len(e)}.")
    check_fold_sizes(n_train, n_test)
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    J = len(e)
    half = stdtrit(J - 1, 1 - significance_level / 2) * math.sqrt((1 / J + n_test / n_train) * e.var(ddof=1))
    return float(e.mean() - half), float(e.mean() + half)


def median_interval(values, significance_level: float = STUDY_SIGNIFICANCE_LEVEL) -> tuple[float, float, float]:
    """Median of ``values`` and its distribution-free order-statistic confidence interval.

    Parameters
    ----------
    values : array-like of shape (n,)
        Independent draws of a continuous or discrete quantity (NaN entries are dropped).
    significance_level : float
        ``1 - alpha`` is the (minimum) confidence level, ``0 < alpha < 1``.

    Returns
    -------
    median, low, high : float
        With ``x_(1) <= ... <= x_(n)`` the sorted values, the interval is
        ``[x_(j), x_(n + 1 - j)]`` for the largest ``j >= 1`` with
        ``P(B <= j - 1) <= alpha / 2``, ``B ~ Binomial(n, 1/2)``: the number of values below
        the true median is ``B``, so the interval covers it with probability at least
        ``1 - 2 P(B <= j - 1) >= 1 - alpha`` whatever the distribution (Conover, *Practical
        nonparametric statistics*, 3.2). NaN ends when no ``j`` qualifies (``n < 6`` at
        ``alpha = 0.05``); NaN median without values.

    Raises
    ------
    ValueError
        If ``significance_level`` is not in (0, 1) or ``values`` is not 1-d.
    """
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    x = np.asarray(values, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"values must be 1-d, got shape {x.shape}.")
    x = np.sort(x[~np.isnan(x)])
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    median = float(np.median(x))
    ranks = np.arange(1, n // 2 + 1)
    allowed = ranks[bdtr(ranks - 1, n, 0.5) <= significance_level / 2]
    if len(allowed) == 0:
        return median, math.nan, math.nan
    j = int(allowed.max())
    return median, float(x[j - 1]), float(x[n - j])
