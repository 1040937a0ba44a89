"""Multinomial logistic regression (softmax regression) with an L2 penalty (linear-classification lecture).

The model is ``p(C_k | x) = exp(w_k.x + b_k) / sum_j exp(w_j.x + b_j)``; it is fitted by
minimising the penalised negative log-likelihood with scipy's L-BFGS, the gradient of the
lecture given analytically (:mod:`mixlib.linear_model._softmax`). A polynomial basis expansion
``x -> Phi(x)`` (the lecture's "expansion de base") is provided by :func:`polynomial_features`.
"""

from __future__ import annotations

import itertools
import logging
import warnings

import numpy as np
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
from mixlib.linear_model._softmax import SoftmaxLoss, fit_products, softmax_objective

__all__ = ["LogisticRegression", "softmax_objective", "polynomial_features"]

logger = logging.getLogger(__name__)

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
        fit_intercept = bool(self.fit_intercept)
        products = fit_products(X, fit_intercept, n_classes)
        loss = SoftmaxLoss(products, T, weight, float(self.C), fit_intercept)
        result = minimize(
            loss,
            np.zeros(n_params),
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
