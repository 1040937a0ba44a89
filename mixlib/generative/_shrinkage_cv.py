"""The per-class Gaussian's shrinkage ``reg_param="auto"``: an inner cross-validation of it.

Every candidate ``r`` of the grid shrinks each class's covariance towards the identity,
``Sigma_k(r) = (1 - r) S_k + r I + reg_covar I``. All of them share the eigenvectors of
``S_k = V diag(lambda) V^T``, only the variances ``(1 - r) lambda + r + reg_covar`` change, so
one eigendecomposition per class and inner fold scores the whole grid at once (scikit-learn's
QDA refits every ``r``: the same model, one decomposition per value). The scatters of the
training parts come from one pass over each class's rows.
"""

from __future__ import annotations

import numpy as np

from mixlib.model_selection.resampling import stratified_folds

#: The candidates of ``reg_param="auto"``, ascending: none, then a roughly geometric ladder
#: from a thousandth of the way to the identity up to the identity itself.
REG_PARAM_GRID = (0.0, 0.001, 0.003, 0.01, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0)
#: Inner folds of ``reg_param="auto"`` (fewer when a class has fewer rows).
INNER_FOLDS = 5

_LOG_2PI = np.log(2.0 * np.pi)


def _training_parts(X: np.ndarray, weight: np.ndarray, folds: np.ndarray,
                    training_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and scatter of one class's rows outside every inner fold, from one pass over them.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
        The class's rows ``x_n``.
    weight : ndarray of shape (n_rows,)
        Their weights ``w_n > 0``.
    folds : ndarray of shape (n_rows,)
        Their inner folds.
    training_weight : ndarray of shape (n_folds,)
        ``W_f = sum_{n not in f} w_n``.

    Returns
    -------
    means : ndarray of shape (n_folds, n_features)
        ``mu_f = (1 / W_f) sum_{n not in f} w_n x_n``.
    scatters : ndarray of shape (n_folds, n_features, n_features)
        ``sum_{n not in f} w_n (x_n - mu_f)(x_n - mu_f)^T = sum_{g != f} M_g - W_f d_f d_f^T``
        with ``M_g = sum_{n in g} w_n (x_n - c)(x_n - c)^T``, ``d_f = mu_f - c`` and ``c`` the
        class's mean over all its rows: centred on ``c``, ``d_f`` is small, and the
        subtraction loses no digits.
    """
    centre = weight @ X / weight.sum()
    centred = X - centre
    n_folds = len(training_weight)
    first = np.empty((n_folds, X.shape[1]))
    second = np.empty((n_folds, X.shape[1], X.shape[1]))
    for fold in range(n_folds):
        part = folds == fold
        first[fold] = weight[part] @ centred[part]
        second[fold] = (centred[part].T * weight[part]) @ centred[part]
    offsets = (first.sum(axis=0) - first) / training_weight[:, None]
    scatters = second.sum(axis=0) - second
    scatters -= training_weight[:, None, None] * offsets[:, :, None] * offsets[:, None, :]
    return centre + offsets, scatters


def _class_log_density(X_test: np.ndarray, mean: np.ndarray, covariance: np.ndarray,
                       grid: np.ndarray, reg_covar: float) -> np.ndarray:
    """``log N(x; mu_k, Sigma_k(r))`` of every test row under every ``r``, (n_test, n_grid).

    With ``S_k = V diag(lambda) V^T`` (``covariance``) and ``z = V^T (x - mu_k)``,
    ``Sigma_k(r) = V diag(v(r)) V^T``, ``v_d(r) = (1 - r) lambda_d + r + reg_covar``, so
    ``log N(x; mu_k, Sigma_k(r)) = -1/2 [D log(2 pi) + sum_d log v_d(r) + sum_d z_d^2 / v_d(r)]``:
    NaN for an ``r`` with a ``v_d(r) <= 0`` (``Sigma_k(r)`` not positive definite).
    """
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
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

    Notes
    -----
    ``p_{-f}(C_k | x; r)`` is the softmax over ``k`` of ``log N(x; mu_k, Sigma_k(r)) + log
    p(C_k)`` with the means, scatters and (unless fixed) priors of the rows outside ``f``
    (:func:`_training_parts`), evaluated for the whole grid by :func:`_class_log_density`;
    the ``argmax`` takes the first class of a tie, as ``predict`` does.
    """
    n_classes = R.shape[1]
    counts = np.bincount(codes, minlength=n_classes)
    n_folds = min(INNER_FOLDS, int(counts.min()))
    if n_folds < 2:
        raise ValueError("reg_param='auto' chooses the shrinkage by an inner cross-validation, "
                         "which needs at least 2 rows of every class, but the smallest has "
                         f"{counts.min()} sample(s) (rows per class: {counts.tolist()}); give "
                         "reg_param a number.")
    folds = stratified_folds(codes, n_folds, random_state)
    in_fold = np.stack([np.bincount(folds, weights=R[:, k], minlength=n_folds)
                        for k in range(n_classes)], axis=1)  # (F, K)
    class_weight = in_fold.sum(axis=0) - in_fold  # W_fk: class k's weight outside fold f
    if (class_weight <= ddof).any():
        raise ValueError(f"reg_param='auto': an inner training part leaves a class a total "
                         f"sample weight of at most ddof={ddof}; give reg_param a number.")
    tests = [folds == fold for fold in range(n_folds)]
    joint = np.empty((len(X), len(grid), n_classes))  # log p_{-f}(x_n | C_k; r), f = fold of n
    for k in range(n_classes):
        rows = R[:, k] > 0
        means, scatters = _training_parts(X[rows], R[rows, k], folds[rows], class_weight[:, k])
        for fold, test in enumerate(tests):
            joint[test, :, k] = _class_log_density(
                X[test], means[fold], scatters[fold] / (class_weight[fold, k] - ddof), grid,
                reg_covar)
    log_priors = np.log(class_weight / class_weight.sum(axis=1, keepdims=True)
                        if priors is None else np.broadcast_to(priors, class_weight.shape))
    joint += log_priors[folds][:, None, :]
    top = joint.max(axis=2, keepdims=True)
    log_evidence = (top + np.log(np.exp(joint - top).sum(axis=2, keepdims=True)))[:, :, 0]
    truth = np.take_along_axis(joint, codes[:, None, None], axis=2)[:, :, 0]  # (N, G)
    weight = R.sum(axis=1)
    total = weight @ (log_evidence - truth)
    wrong = weight @ (joint.argmax(axis=2) != codes[:, None])
    invalid = np.isnan(total)
    return (np.where(invalid, 1.0, wrong / weight.sum()),
            np.where(invalid, np.inf, total / weight.sum()))


def choose_reg_param(grid: np.ndarray, error: np.ndarray, log_loss: np.ndarray) -> float:
    """The ``r`` of least held-out error; among ties (to 1e-12), of least log-loss; then the
    smallest."""
    tied = error <= error.min() + 1e-12
    return float(grid[np.argmin(np.where(tied, log_loss, np.inf))])
