"""What the generative classifiers share: the weighted class indicator, the priors check, and
Bayes' rule in log space."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.log_space import logsumexp_rows
from mixlib.core.validation import check_sample_weight, check_X_y


def weighted_class_indicator(X, y, sample_weight) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Check the training data and code its classes.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    classes : ndarray of shape (n_classes,)
        The sorted labels.
    codes : ndarray of shape (n_samples,)
        Index of every row's class in ``classes``.
    R : ndarray of shape (n_samples, n_classes)
        ``R_nk = s_n t_nk``: the row's sample weight ``s_n`` in its class's column, 0 elsewhere.
    """
    X, y = check_X_y(X, y)
    weight = check_sample_weight(sample_weight, X.shape[0])
    classes, codes = np.unique(y, return_inverse=True)
    R = np.zeros((X.shape[0], len(classes)))
    R[np.arange(X.shape[0]), codes] = weight
    return X, classes, codes, R


def check_priors(priors: ArrayLike, n_classes: int) -> np.ndarray:
    """``priors`` as floats, if they are ``n_classes`` positive numbers summing to 1 (to 1e-8)."""
    checked = np.asarray(priors, dtype=float)
    if checked.shape != (n_classes,) or (checked <= 0).any() or not np.isclose(checked.sum(), 1.0):
        raise ValueError(f"priors must be {n_classes} positive numbers summing to 1, got {priors!r}.")
    return checked


class BayesRuleClassifier(ClassifierMixin, BaseEstimator):
    """Posteriors and predictions from a subclass's ``_joint_log_likelihood(X)``.

    A subclass defines ``_joint_log_likelihood(X)``, ``ln p(x_n | C_k) + ln p(C_k)`` of shape
    (n_samples, n_classes) (which checks ``X`` and the fit), and ``classes_``. Bayes' rule:
    ``ln p(C_k | x) = ln p(x, C_k) - logsumexp_j ln p(x, C_j)``.
    """

    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """``log p(C_k | x)``, normalised with log-sum-exp, shape (n_samples, n_classes)."""
        joint = self._joint_log_likelihood(X)
        return joint - logsumexp_rows(joint, keepdims=True)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``p(C_k | x)``, shape (n_samples, n_classes)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class of largest posterior (ties: the first class), shape (n_samples,)."""
        joint = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(joint, axis=1)]
