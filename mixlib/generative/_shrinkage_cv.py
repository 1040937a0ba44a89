"""The per-class Gaussian's shrinkage ``reg_param="auto"``: an inner cross-validation of it.

Every candidate ``r`` of the grid shrinks each class's covariance towards the identity,
``Sigma_k(r) = (1 - r) S_k + r I + reg_covar I``. On the eigenvectors of ``S_k`` these are all
diagonal, so one eigendecomposition per class and fold scores the whole grid at once.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh
from scipy.special import logsumexp

from mixlib.model_selection.resampling import stratified_folds

#: The candidates of ``reg_param="auto"``, ascending: none, then a roughly geometric ladder
#: from a thousandth of the way to the identity up to the identity itself.
REG_PARAM_GRID = (0.0, 0.001, 0.003, 0.01, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0)
#: Inner folds of ``reg_param="auto"`` (fewer when a class has fewer rows).
INNER_FOLDS = 5

_LOG_2PI = np.log(2.0 * np.pi)


def _class_log_density(X_test: np.ndarray, centred_train: np.ndarray, weight: np.ndarray,
                       mean: np.ndarray, denominator: float, grid: np.ndarray,
                       reg_covar: float) -> np.ndarray:
    """``log N(x; mu_k, Sigma_k(r))`` of every test row under every ``r``, (n_test, n_grid);
    NaN for an ``r`` whose ``Sigma_k(r)`` is not positive definite."""
    scatter = (centred_train.T * weight) @ centred_train / denominator
    eigenvalues, eigenvectors = eigh(scatter)
    variances = np.outer(1.0 - grid, eigenvalues) + (grid + reg_covar)[:, None]  # (G, D)
    positive = variances > 0
    safe = np.where(positive, variances, 1.0)
    log_det = np.where(positive.all(axis=1), np.log(safe).sum(axis=1), np.nan)
    projected = ((X_test - mean) @ eigenvectors) ** 2  # (n_test, D)
    mahalanobis = projected @ (1.0 / safe).T
    return -0.5 * (X_test.shape[1] * _LOG_2PI + log_det + mahalanobis)


def inner_cv_scores(X: np.ndarray, R: np.ndarray, codes: np.ndarray,
                    priors: np.ndarray | None, grid: np.ndarray, reg_covar: float, ddof: int,
                    random_state) -> tuple[np.ndarray, np.ndarray]:
    """Held-out error and log-loss of the per-class Gaussian under every shrinkage of ``grid``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    R : ndarray of shape (n_samples, n_classes)
        ``R_nk = s_n t_nk``, the row's sample weight in its class's column.
    codes : ndarray of shape (n_samples,)
        Every row's class index (the folds are stratified on it).
    priors : ndarray of shape (n_classes,) or None
        Fixed class priors; None: the class frequencies of each inner training part.
    grid : ndarray of shape (n_grid,)
        Candidate values of ``reg_param``.
    reg_covar : float
        Ridge added to every candidate covariance.
    ddof : {0, 1}
    random_state : None, int or numpy.random.Generator
        Deals the rows into stratified folds (:func:`mixlib.model_selection.resampling.stratified_folds`).

    Returns
    -------
    error : ndarray of shape (n_grid,)
        ``E(r) = (1 / sum_n s_n) sum_f sum_{n in fold f} s_n [argmax_k p_{-f}(C_k | x_n; r) !=
        y_n]``, with ``p_{-f}`` the classifier fitted, with shrinkage ``r``, on the rows
        outside fold ``f`` (``min(INNER_FOLDS, n_min)`` folds, ``n_min`` the row count of the
        smallest class); 1 where a covariance is not positive definite.
    log_loss : ndarray of shape (n_grid,)
        ``L(r) = -(1 / sum_n s_n) sum_f sum_{n in fold f} s_n log p_{-f}(C_{y_n} | x_n; r)``;
        ``+inf`` where a covariance is not positive definite.

    Raises
    ------
    ValueError
        If a class has fewer than 2 rows, or an inner training part leaves a class a total
        weight of at most ``ddof``.
    """
    counts = np.bincount(codes, minlength=R.shape[1])
    n_folds = min(INNER_FOLDS, int(counts.min()))
    if n_folds < 2:
        raise ValueError("reg_param='auto' chooses the shrinkage by an inner cross-validation, "
                         "which needs at least 2 rows of every class, but the smallest has "
                         f"{counts.min()} sample(s) (rows per class: {counts.tolist()}); give "
                         "reg_param a number.")
    folds = stratified_folds(codes, n_folds, random_state)
    total, wrong = np.zeros(len(grid)), np.zeros(len(grid))
    for fold in range(n_folds):
        train, test = folds != fold, folds == fold
        R_train = R[train]
        class_weight = R_train.sum(axis=0)
        if (class_weight <= ddof).any():
            raise ValueError(f"reg_param='auto': an inner training part leaves a class a total "
                             f"sample weight of at most ddof={ddof}; give reg_param a number.")
        X_train, X_test = X[train], X[test]
        means = (R_train.T @ X_train) / class_weight[:, None]
        log_priors = np.log(class_weight / class_weight.sum() if priors is None else priors)
        in_class = R_train > 0  # the scatter of class k sums over its rows only
        joint = np.stack([
            _class_log_density(X_test, X_train[in_class[:, k]] - mean, R_train[in_class[:, k], k],
                               mean, class_weight[k] - ddof, grid, reg_covar) + log_priors[k]
            for k, mean in enumerate(means)], axis=2)  # (n_test, G, K)
        log_posterior = joint - logsumexp(joint, axis=2, keepdims=True)
        total -= np.einsum("nk,ngk->g", R[test], log_posterior)
        predicted = np.eye(R.shape[1])[joint.argmax(axis=2)]  # (n_test, G, K)
        wrong += R[test].sum(axis=1) @ (1.0 - np.einsum("nk,ngk->ng", R[test] > 0, predicted))
    invalid = np.isnan(total)
    return (np.where(invalid, 1.0, wrong / R.sum()),
            np.where(invalid, np.inf, total / R.sum()))


def choose_reg_param(grid: np.ndarray, error: np.ndarray, log_loss: np.ndarray) -> float:
    """The ``r`` of least held-out error; among ties (to 1e-12), of least log-loss; then the
    smallest."""
    tied = error <= error.min() + 1e-12
    return float(grid[np.argmin(np.where(tied, log_loss, np.inf))])
