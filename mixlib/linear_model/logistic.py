"""Multinomial logistic regression (softmax regression) with an L2 penalty (linear-classification lecture).

The model is ``p(C_k | x) = exp(w_k.x + b_k) / sum_j exp(w_j.x + b_j)``; it is fitted by
minimising the penalised negative log-likelihood with scipy's L-BFGS, the gradient of the
lecture given analytically. A polynomial basis expansion ``x -> Phi(x)`` (the lecture's
"expansion de base") is provided by :func:`polynomial_features`.
"""

from __future__ import annotations

import itertools
import logging
import warnings

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike
from scipy.optimize import minimize

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.validation import (
    check_array,
    check_fitted_input,
    check_float,
    check_int,
    check_sample_weight,
    check_X_y,
    encode_labels,
)
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.log_space import logsumexp_rows

__all__ = ["LogisticRegression", "softmax_objective", "polynomial_features"]

logger = logging.getLogger(__name__)

#: :meth:`LogisticRegression.fit` hands L-BFGS sparse (CSC) copies of ``X`` and ``X^T`` when
#: at most this share of the entries of ``X`` is non-zero (one-hot DNA: a quarter). The
#: objective's two products with ``X`` read all of it at every evaluation and are bound by
#: memory: splice's 2126 x 240 one-hot rows take about 0.25 ms per product as CSC against
#: 0.4 ms dense (:func:`_design`).
SPARSE_DENSITY = 1.0 / 3.0


def _row_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=1)`` by column-wise maxima: a few whole-column calls instead of a
    reduction over a short axis (the same values: a maximum is exact)."""
    out = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        np.maximum(out, a[:, k], out=out)
    return out


def _row_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=1)``, bit for bit, for fewer than 8 columns (numpy then adds a row's
    entries in order) by column additions; numpy's own sum otherwise."""
    if not 0 < a.shape[1] < 8:
        return a.sum(axis=1)
    out = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        out += a[:, k]
    return out


def _design(X: np.ndarray) -> tuple:
    """``X`` and its transpose for :func:`softmax_objective`: as given (transpose ``None``), or,
    when ``X`` is sparse enough (:data:`SPARSE_DENSITY`), both in compressed-column (CSC) form,
    built once for the whole fit.

    scipy multiplies a CSC array by a dense block about twice as fast as a CSR one (0.25 ms
    against 0.46 ms for splice's 2126 x 240 one-hot rows and three classes), and with the
    same sums in the same order: every entry of ``X W^T`` adds its terms by increasing
    feature, every entry of ``X^T R`` by increasing row, in both forms.
    """
    if X.size and np.count_nonzero(X) <= SPARSE_DENSITY * X.size:
        return scipy.sparse.csc_array(X), scipy.sparse.csr_array(X).T
    return X, None


def softmax_objective(
    params: np.ndarray,
    X: np.ndarray,
    T: np.ndarray,
    sample_weight: np.ndarray,
    C: float,
    fit_intercept: bool,
    X_T=None,
) -> tuple[float, np.ndarray]:
    """Penalised negative log-likelihood of softmax regression and its gradient.

    Parameters
    ----------
    params : ndarray of shape (n_classes * (n_features + fit_intercept),)
        ``W`` (n_classes, n_features) raveled, followed by the intercepts ``b`` (n_classes,)
        when ``fit_intercept``.
    X : ndarray or scipy sparse array of shape (n_samples, n_features)
    T : ndarray of shape (n_samples, n_classes)
        One-of-K targets ``t_nk``.
    sample_weight : ndarray of shape (n_samples,)
        ``s_n``; the objective is divided by ``S = sum_n s_n``.
    C : float
        Inverse penalty strength.
    fit_intercept : bool
    X_T : scipy sparse array of shape (n_features, n_samples), optional
        ``X`` transposed, for the gradient's product with a sparse ``X`` (taken as ``X.T``
        when not given): :class:`LogisticRegression` passes both ``X`` and ``X_T`` in
        CSC form, the faster one for a product with a dense block.

    Returns
    -------
    value : float
    gradient : ndarray, same shape as ``params``

    Notes
    -----
    With ``a_nk = w_k.x_n + b_k`` and ``lambda = 1 / C``,

    ``E(W, b) = (1/S) [ sum_n s_n (logsumexp_j a_nj - sum_k t_nk a_nk) + (lambda/2) ||W||_F^2 ]``

    (the intercepts are not penalised; ``logsumexp_j a_nj = A_n + log sum_j exp(a_nj - A_n)``
    with ``A_n = max_j a_nj``, so no exponential overflows), and, as in the lecture,

    ``dE/dw_k = (1/S) [ sum_n s_n (p(C_k | x_n) - t_nk) x_n + lambda w_k ]``,
    ``dE/db_k = (1/S) sum_n s_n (p(C_k | x_n) - t_nk)``.

    ``S E`` is scikit-learn's objective ``0.5 ||W||^2 + C sum_n s_n loss_n`` divided by ``C``,
    so both have the same minimiser for the same ``C``.
    """
    n_classes = T.shape[1]
    n_features = X.shape[1]
    W = params[: n_classes * n_features].reshape(n_classes, n_features)
    scores = X @ W.T
    if fit_intercept:
        scores += params[n_classes * n_features:]
    # Log-sum-exp trick of the lecture, written out so that the shifted exponentials are
    # reused for the probabilities of the gradient (one exp per score instead of two).
    shift = _row_max(scores)
    exp_scores = np.exp(scores - shift[:, None])
    norm = _row_sum(exp_scores)
    log_norm = shift + np.log(norm)
    total = sample_weight.sum()
    value = sample_weight @ (log_norm - np.einsum("nk,nk->n", T, scores))
    value = (value + 0.5 / C * np.einsum("kj,kj->", W, W)) / total
    residual = (exp_scores / norm[:, None] - T) * sample_weight[:, None]
    if scipy.sparse.issparse(X):
        data_term = ((X.T if X_T is None else X_T) @ residual).T
    else:
        data_term = residual.T @ X
    grad_W = (data_term + W / C) / total
    if fit_intercept:
        return float(value), np.concatenate([grad_W.ravel(), residual.sum(axis=0) / total])
    return float(value), grad_W.ravel()


class LogisticRegression(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression with an L2 penalty, fitted by L-BFGS (linear-classification lecture).

    Parameters
    ----------
    C : float, default=1.0
        Inverse penalty strength: the lecture's ``lambda`` is ``1 / C`` (penalty
        ``(lambda / 2) ||W||^2`` added to the negative log-likelihood). ``C`` plays exactly the
        role of scikit-learn's ``C``. Use ``C=numpy.inf`` for no penalty.
    fit_intercept : bool, default=True
        Learn the biases ``b_k`` (not penalised).
    max_iter : int, default=1000
        Maximum number of L-BFGS iterations.
    tol : float, default=1e-6
        L-BFGS stops when every component of the projected gradient of the objective (divided
        by the total sample weight) is below ``tol``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        One weight vector ``w_k`` per class, also for two classes (the lecture's
        overparametrised form; the rows sum to zero at the optimum because of the penalty).
    intercept_ : ndarray of shape (n_classes,)
        Biases, centred to sum to zero (they are only defined up to a common constant).
    n_iter_ : int
    converged_ : bool
    objective_ : float
        Final value of :func:`softmax_objective`.

    Notes
    -----
    For two classes ``p(C_2 | x) = sigma((w_2 - w_1).x + b_2 - b_1)``: the binary logistic
    regression of the lecture with ``w = w_2 - w_1``. Since the optimum has ``w_1 = -w_2``,
    its penalty is ``(lambda / 4) ||w||^2``, i.e. a binary model with ``C' = 2 C``.
    """

    def __init__(
        self, C: float = 1.0, fit_intercept: bool = True, max_iter: int = 1000, tol: float = 1e-6
    ) -> None:
        self.C = C
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol

    def _check_params(self) -> None:
        check_float(self.C, "C", low=0, closed="neither", finite=False)
        check_int(self.max_iter, "max_iter", min_value=1)
        check_float(self.tol, "tol", low=0, closed="neither", finite=False)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise TypeError(f"fit_intercept must be a bool, got {type(self.fit_intercept).__name__}.")

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> "LogisticRegression":
        """Minimise :func:`softmax_objective` from ``W = 0, b = 0``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            At least two classes.
        sample_weight : array-like of shape (n_samples,), optional
        """
        self._check_params()
        X, y = check_X_y(X, y)
        weight = check_sample_weight(sample_weight, X.shape[0])
        self.classes_, codes = encode_labels(y, min_classes=2)
        self.n_features_in_ = X.shape[1]
        n_classes = len(self.classes_)
        T = np.zeros((X.shape[0], n_classes))
        T[np.arange(X.shape[0]), codes] = 1.0
        n_params = n_classes * (X.shape[1] + int(self.fit_intercept))
        design, design_T = _design(X)
        result = minimize(
            softmax_objective,
            np.zeros(n_params),
            args=(design, T, weight, float(self.C), bool(self.fit_intercept), design_T),
            method="L-BFGS-B",
            jac=True,
            options={
                "maxiter": self.max_iter, "gtol": self.tol, "ftol": 64 * np.finfo(float).eps, "maxls": 50,
            },
        )
        self.n_iter_ = int(result.nit)
        self.converged_ = bool(result.success)
        self.objective_ = float(result.fun)
        logger.info(
            "L-BFGS stopped after %d iterations, objective %.6g: %s", result.nit, result.fun, result.message
        )
        if not result.success:
            warnings.warn(
                f"L-BFGS did not converge in {result.nit} iterations (max_iter={self.max_iter}, "
                f"tol={self.tol}): {result.message}. Increase max_iter or scale the features.",
                ConvergenceWarning,
                stacklevel=2,
            )
        n_weights = n_classes * X.shape[1]
        self.coef_ = result.x[:n_weights].reshape(n_classes, X.shape[1]).copy()
        if self.fit_intercept:
            intercept = result.x[n_weights:]
            self.intercept_ = intercept - intercept.mean()
        else:
            self.intercept_ = np.zeros(n_classes)
        return self

    def _scores(self, X: ArrayLike) -> np.ndarray:
        """Scores ``a_k = w_k.x + b_k``, shape (n_samples, n_classes)."""
        X = check_fitted_input(self, X)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores ``a_k = w_k.x + b_k`` of the classes.

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or (n_samples,) for two classes:
        ``a_2 - a_1 = (w_2 - w_1).x + b_2 - b_1``, the log-odds of ``classes_[1]``
        (scikit-learn's shape).
        """
        return self._binary_decision(self._scores(X))

    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """``log p(C_k | x) = a_k - logsumexp_j a_j``, shape (n_samples, n_classes)."""
        scores = self._scores(X)
        return scores - logsumexp_rows(scores, keepdims=True)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Softmax probabilities, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class of largest score (the first class on exact ties)."""
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]


def polynomial_features(X: ArrayLike, degree: int = 2, interaction_only: bool = False) -> np.ndarray:
    """Polynomial basis expansion ``Phi(x)``: every monomial of degree 1 to ``degree``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    degree : int, default=2
    interaction_only : bool, default=False
        Keep only products of distinct features (``x_1 x_2`` but not ``x_1^2``).

    Returns
    -------
    Phi : ndarray of shape (n_samples, n_output_features)
        Columns ordered by degree, then lexicographically by feature indices (the order of
        scikit-learn's ``PolynomialFeatures(include_bias=False)``); no constant column (the
        intercept plays that role).

    Notes
    -----
    ``Phi(x) = (prod_{j in m} x_j)_m`` over the multisets ``m`` of feature indices of size
    1 to ``degree`` (sets when ``interaction_only``).
    """
    X = check_array(X)
    check_int(degree, "degree", min_value=1)
    combine = itertools.combinations if interaction_only else itertools.combinations_with_replacement
    columns = [
        np.prod(X[:, list(indices)], axis=1)
        for d in range(1, degree + 1)
        for indices in combine(range(X.shape[1]), d)
    ]
    return np.column_stack(columns) if columns else np.empty((X.shape[0], 0))
