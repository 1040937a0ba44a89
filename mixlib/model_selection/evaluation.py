"""Error estimation: stratified K-fold cross-validation with the Student-t interval of the
ensembles-and-SVM notes (part IV), grid search refined on finer grids, confusion matrices
(supervised-learning notes, section 1.2).
"""

from __future__ import annotations

import logging
import numbers
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from mixlib.core.base import BaseEstimator, clone
from mixlib.core.statistics import t_half_width
from mixlib.model_selection.resampling import fold_units, score_units, stratified_folds

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CVError:
    """Cross-validated error ``e +/- t(alpha/2, K-1) sqrt(s^2 / K)``.

    Attributes
    ----------
    mean : float
        ``e = 1/K sum_k e_k``.
    std : float
        ``s = sqrt(1/(K-1) sum_k (e_k - e)^2)``.
    half_width : float
        ``t(alpha/2, K-1) sqrt(s^2 / K)``.
    fold_errors : ndarray of shape (K,)
    significance_level : float
    """

    mean: float
    std: float
    half_width: float
    fold_errors: np.ndarray
    significance_level: float

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.mean + self.half_width


def t_interval(fold_errors: np.ndarray, significance_level: float = 0.05) -> CVError:
    """The notes' interval on the mean of the per-fold errors.

    Parameters
    ----------
    fold_errors : ndarray of shape (K,)
        Error of each fold, ``K >= 2``.
    significance_level : float
        ``1 - alpha`` is the confidence level.

    Notes
    -----
    ``e = mean(e_k)``, ``s^2 = sum_k (e_k - e)^2 / (K - 1)`` and the interval is
    ``e +/- t_{alpha/2, K-1} sqrt(s^2 / K)`` with ``t_{alpha/2, K-1}`` the upper
    ``alpha/2`` quantile of Student's t with ``K - 1`` degrees of freedom.
    """
    errors = np.asarray(fold_errors, dtype=float)
    if errors.ndim != 1 or len(errors) < 2:
        raise ValueError(f"fold_errors must be 1-d with at least 2 values, got {errors!r}.")
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    K = len(errors)
    std = float(errors.std(ddof=1))
    half = float(t_half_width(std, K, significance_level))
    return CVError(mean=float(errors.mean()), std=std, half_width=half, fold_errors=errors,
                   significance_level=significance_level)


EstimatorSpec = BaseEstimator | Callable[[], Any]


def _fresh(estimator: EstimatorSpec):
    return clone(estimator) if isinstance(estimator, BaseEstimator) else estimator()


def cross_val_error(estimator: EstimatorSpec, X: np.ndarray, y: np.ndarray, n_folds: int = 5,
                    random_state: None | int | np.random.Generator = None, *,
                    significance_level: float = 0.05, folds: np.ndarray | None = None) -> CVError:
    """Stratified K-fold cross-validation error with its Student-t interval.

    Parameters
    ----------
    estimator : estimator or callable
        An unfitted estimator (cloned for every fold) or a factory returning a fresh one.
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    n_folds : int
        ``K``.
    random_state : None, int or numpy.random.Generator
        Shuffles the folds (ignored when ``folds`` is given).
    significance_level : float
        ``1 - alpha`` is the confidence level of the interval.
    folds : ndarray of shape (n_samples,), optional
        Precomputed fold indices (from :func:`stratified_folds`), e.g. to evaluate every grid
        point on the same folds.

    Returns
    -------
    CVError

    Notes
    -----
    For each fold ``k``: fit on the other folds, ``e_k`` = misclassification rate on fold
    ``k`` (the units of :func:`mixlib.model_selection.resampling.fold_units`, fitted and
    scored by :func:`~mixlib.model_selection.resampling.score_units`); then
    :func:`t_interval` of the ``e_k``.
    """
    y = np.asarray(y)
    if folds is None:
        folds = stratified_folds(y, n_folds, random_state)
    scores = score_units(fold_units(X, y, folds), lambda X_train, rng: _fresh(estimator))
    errors = np.array([score.error for score in scores])
    return t_interval(errors, significance_level)


def grid_level_axes(level: int, log10_C_range: tuple[float, float],
                    log10_sigma_range: tuple[float, float], n_points: int,
                    best: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``log10 C`` and ``log10 sigma`` values of one level of the refined grid.

    Parameters
    ----------
    level : int
        0 for the coarse grid, then 1, 2, ...
    log10_C_range, log10_sigma_range : (float, float)
        Ends of the coarse grid (decades).
    n_points : int
        Points per axis at every level (>= 4, so that each level is finer than the last).
    best : (float, float), optional
        ``(log10 C, log10 sigma)`` of the best point so far; required for ``level >= 1``.

    Returns
    -------
    log10_C, log10_sigma : ndarrays of shape (n_points,)

    Notes
    -----
    Level 0 spans the ranges with step ``h_0 = (hi - lo) / (n - 1)`` per axis. Level
    ``l >= 1`` spans ``best +/- h_{l-1}`` (the neighbours of the best point on the previous
    grid) with ``n`` points, so ``h_l = 2 h_{l-1} / (n - 1)``.
    """
    if not isinstance(n_points, numbers.Integral) or n_points < 4:
        raise ValueError(f"n_points must be an integer >= 4, got {n_points!r}.")
    if not isinstance(level, numbers.Integral) or level < 0:
        raise ValueError(f"level must be an integer >= 0, got {level!r}.")
    axes = []
    for k, (lo, hi) in enumerate((log10_C_range, log10_sigma_range)):
        if not lo < hi:
            raise ValueError(f"grid ranges must be (low, high) with low < high, got {(lo, hi)}.")
        if level == 0:
            axes.append(np.linspace(lo, hi, n_points))
            continue
        if best is None:
            raise ValueError(f"level {level} >= 1 needs the best point of the previous levels.")
        previous_step = (hi - lo) / (n_points - 1) * (2.0 / (n_points - 1)) ** (level - 1)
        axes.append(np.linspace(best[k] - previous_step, best[k] + previous_step, n_points))
    return axes[0], axes[1]


def best_grid_point(table: pd.DataFrame) -> tuple[float, float]:
    """``(log10 C, log10 sigma)`` of the lowest CV error in a grid table.

    Ties go to the smallest ``C``, then the largest ``sigma`` (the smoothest model).

    Parameters
    ----------
    table : DataFrame
        With columns ``cv_error``, ``log10_C``, ``log10_sigma`` (from :func:`evaluate_grid`).
    """
    order = np.lexsort((-table["log10_sigma"].to_numpy(), table["log10_C"].to_numpy(),
                        table["cv_error"].to_numpy()))
    row = table.iloc[order[0]]
    return float(row["log10_C"]), float(row["log10_sigma"])


def _evaluate_cell(args: tuple) -> dict:
    estimator, X, y, folds, significance_level, log_C, log_sigma = args
    model = _fresh(estimator).set_params(C=10.0**log_C, sigma=10.0**log_sigma)
    cv = cross_val_error(model, X, y, folds=folds, significance_level=significance_level)
    logger.info("log10 C = %.3f, log10 sigma = %.3f: CV error %.4f +/- %.4f",
                log_C, log_sigma, cv.mean, cv.half_width)
    return {"log10_C": log_C, "log10_sigma": log_sigma, "C": 10.0**log_C,
            "sigma": 10.0**log_sigma, "cv_error": cv.mean, "cv_std": cv.std,
            "ci_half_width": cv.half_width, "ci_low": cv.low, "ci_high": cv.high}


def evaluate_grid(estimator: EstimatorSpec, X: np.ndarray, y: np.ndarray,
                  log10_C: np.ndarray, log10_sigma: np.ndarray, folds: np.ndarray, *,
                  significance_level: float = 0.05, n_jobs: int = 1) -> pd.DataFrame:
    """Cross-validated error at every ``(C, sigma)`` of a grid, on the same folds.

    Parameters
    ----------
    estimator : estimator with parameters ``C`` and ``sigma``, or a factory of one
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    log10_C, log10_sigma : ndarrays of shape (n_C,) and (n_sigma,)
        Grid axes in decades.
    folds : ndarray of shape (n_samples,)
        Fold index of every row (:func:`stratified_folds`).
    significance_level : float
        ``1 - alpha`` is the confidence level of the intervals.
    n_jobs : int
        Worker processes (one grid cell per task). SMO is a Python loop holding the GIL, so
        processes rather than threads; ``n_jobs=1`` runs in this process. Results do not
        depend on ``n_jobs``.

    Returns
    -------
    DataFrame
        One row per grid point (C-major order): ``log10_C``, ``log10_sigma``, ``C``,
        ``sigma``, ``cv_error``, ``cv_std``, ``ci_half_width``, ``ci_low``, ``ci_high``.
    """
    cells = [(estimator, X, y, folds, significance_level, float(c), float(s))
             for c in log10_C for s in log10_sigma]
    if n_jobs == 1:
        rows = [_evaluate_cell(cell) for cell in cells]
    else:
        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            rows = list(pool.map(_evaluate_cell, cells))
    return pd.DataFrame(rows)


def grid_search_cv(estimator: EstimatorSpec, X: np.ndarray, y: np.ndarray, *,
                   log10_C_range: tuple[float, float] = (-1.0, 3.0),
                   log10_sigma_range: tuple[float, float] = (-1.0, 2.0), n_points: int = 5,
                   n_levels: int = 2, n_folds: int = 5,
                   random_state: None | int | np.random.Generator = None,
                   significance_level: float = 0.05, n_jobs: int = 1) -> pd.DataFrame:
    """Grid search over ``(C, sigma)`` on a log grid refined ``n_levels - 1`` times.

    Parameters
    ----------
    estimator : estimator with parameters ``C`` and ``sigma``, or a factory of one
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    log10_C_range, log10_sigma_range, n_points
        The coarse grid, see :func:`grid_level_axes`.
    n_levels : int
        Number of grids (1: the coarse grid only).
    n_folds : int
        ``K``; the same stratified folds serve every point of every level.
    random_state : None, int or numpy.random.Generator
    alpha, n_jobs
        As in :func:`evaluate_grid`.

    Returns
    -------
    DataFrame
        Every evaluated point with its ``level`` and the columns of :func:`evaluate_grid`;
        the best point is :func:`best_grid_point` of it.
    """
    if not isinstance(n_levels, numbers.Integral) or n_levels < 1:
        raise ValueError(f"n_levels must be an integer >= 1, got {n_levels!r}.")
    folds = stratified_folds(np.asarray(y), n_folds, random_state)
    tables: list[pd.DataFrame] = []
    best = None
    for level in range(n_levels):
        log_C, log_sigma = grid_level_axes(level, log10_C_range, log10_sigma_range, n_points,
                                           best)
        table = evaluate_grid(estimator, X, y, log_C, log_sigma, folds, significance_level=significance_level,
                              n_jobs=n_jobs)
        table.insert(0, "level", level)
        tables.append(table)
        best = best_grid_point(pd.concat(tables, ignore_index=True))
        logger.info("grid level %d: best log10 C = %.3f, log10 sigma = %.3f", level, *best)
    return pd.concat(tables, ignore_index=True)


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray,
                     labels: np.ndarray | None = None) -> np.ndarray:
    """Confusion matrix ``M[i, j]`` = number of rows of true class ``i`` predicted ``j``.

    Parameters
    ----------
    y_true, y_pred : ndarrays of shape (n_samples,)
    labels : ndarray of shape (n_classes,), optional
        Class order of the rows and columns (default: sorted union of both label sets).
        Rows whose true or predicted label is not listed are left out.

    Returns
    -------
    ndarray of shape (n_classes, n_classes), int

    Notes
    -----
    Definition 4 of the supervised-learning notes: ``m_ij = |{x : c(x) = i and f(x) = j}|``.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 1:
        raise ValueError(f"y_true and y_pred must be 1-d of equal length, got shapes "
                         f"{y_true.shape} and {y_pred.shape}.")
    labels = np.union1d(y_true, y_pred) if labels is None else np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    m = len(labels)
    true_pos = np.clip(np.searchsorted(sorted_labels, y_true), 0, m - 1)
    pred_pos = np.clip(np.searchsorted(sorted_labels, y_pred), 0, m - 1)
    keep = (sorted_labels[true_pos] == y_true) & (sorted_labels[pred_pos] == y_pred)
    counts = np.zeros((m, m), dtype=int)
    np.add.at(counts, (order[true_pos[keep]], order[pred_pos[keep]]), 1)
    return counts


def class_rates(matrix: np.ndarray) -> pd.DataFrame:
    """Per-class sensitivity, specificity and precision from a confusion matrix.

    Parameters
    ----------
    matrix : ndarray of shape (n_classes, n_classes)
        Rows true classes, columns predicted (:func:`confusion_matrix`).

    Returns
    -------
    DataFrame
        One row per class (in matrix order): ``sensitivity`` = TP / (TP + FN),
        ``specificity`` = TN / (TN + FP), ``precision`` = TP / (TP + FP), each class taken
        as "positive" against the others; NaN where the denominator is 0.
    """
    matrix = np.asarray(matrix, dtype=float)
    tp = np.diag(matrix)
    fn = matrix.sum(axis=1) - tp
    fp = matrix.sum(axis=0) - tp
    tn = matrix.sum() - tp - fn - fp

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        return np.divide(num, den, out=np.full(len(num), np.nan), where=den > 0)

    return pd.DataFrame({"sensitivity": ratio(tp, tp + fn), "specificity": ratio(tn, tn + fp),
                         "precision": ratio(tp, tp + fp)})
