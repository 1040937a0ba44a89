"""Naive Bayes classifiers: Gaussian, categorical (multinoulli) and Bernoulli (linear-classification lecture).

The input dimensions are assumed conditionally independent given the class,
``p(x | C_k) = prod_i p(x_i | C_k)``, and the class is found by Bayes' rule,
``log p(C_k | x) = log p(C_k) + sum_i log p(x_i | C_k) - logsumexp_j (...)``, all in log space.
Parameters are the maximum-likelihood estimates of the lecture, optionally with Laplace
(additive) smoothing ``alpha``; sample weights ``s_n`` multiply every count.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

from mixlib.core.exceptions import DataConversionWarning
from mixlib.core.validation import check_fitted_input, check_float
from mixlib.generative._bayes import BayesRuleClassifier, check_priors, weighted_class_indicator

__all__ = ["GaussianNaiveBayes", "CategoricalNaiveBayes", "BernoulliNaiveBayes"]

# Probabilities are floored at the smallest normal float before taking logs, so that the
# maximum-likelihood estimates (alpha=0) give a very negative but finite log-probability to a
# value never seen in a class instead of -inf (which would make all posteriors undefined when
# every class has such a zero).
_PROB_FLOOR = np.finfo(np.float64).tiny


def _floored_log(probability: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(probability, _PROB_FLOOR))


class _BaseNaiveBayes(BayesRuleClassifier):
    """Priors, class counts and Bayes' rule; subclasses give ``_log_likelihood``."""

    def _fit_classes(self, X, y, sample_weight) -> tuple[np.ndarray, np.ndarray]:
        """Validate, set ``classes_``, ``class_count_`` and ``class_log_prior_``; return X and R.

        ``R`` (n_samples, n_classes) holds ``s_n t_nk``.
        """
        X, self.classes_, _, R = weighted_class_indicator(X, y, sample_weight)
        self.class_count_ = R.sum(axis=0)
        if self.priors is None:
            priors = self.class_count_ / self.class_count_.sum()
        else:
            priors = check_priors(self.priors, len(self.classes_))
        self.class_log_prior_ = _floored_log(priors)
        self.n_features_in_ = X.shape[1]
        return X, R

    def _check_alpha(self) -> None:
        check_float(self.alpha, "alpha", low=0, finite=False)

    def _joint_log_likelihood(self, X: ArrayLike) -> np.ndarray:
        return self._log_likelihood(check_fitted_input(self, X)) + self.class_log_prior_

    def predict_joint_log_proba(self, X: ArrayLike) -> np.ndarray:
        """``log p(x, C_k) = log p(C_k) + sum_i log p(x_i | C_k)``, shape (n_samples, n_classes)."""
        return self._joint_log_likelihood(X)


class GaussianNaiveBayes(_BaseNaiveBayes):
    """Naive Bayes with a univariate Gaussian per class and feature.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), optional
        Class priors; by default the (weighted) class frequencies.
    var_smoothing : float > 0, default=1e-9
        ``epsilon = var_smoothing * max_j var(x_j)`` (variance of each feature over all of
        ``X``, unweighted) is added to every variance, as in scikit-learn's ``GaussianNB``, so a
        feature constant within a class does not give a zero variance. When all features are
        constant, ``epsilon = var_smoothing``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        ``N_k = sum_n s_n t_nk``.
    class_log_prior_ : ndarray of shape (n_classes,)
    theta_ : ndarray of shape (n_classes, n_features)
        Class means.
    var_ : ndarray of shape (n_classes, n_features)
        Class variances, including ``epsilon_``.
    epsilon_ : float

    Notes
    -----
    ``theta_ki = (1/N_k) sum_n s_n t_nk x_ni``,
    ``sigma2_ki = (1/N_k) sum_n s_n t_nk (x_ni - theta_ki)^2 + epsilon`` (maximum likelihood),
    ``log p(x | C_k) = -1/2 sum_i [log(2 pi sigma2_ki) + (x_i - theta_ki)^2 / sigma2_ki]``.
    It is the Gaussian generative classifier of the lecture with diagonal covariances.
    """

    def __init__(self, priors: ArrayLike | None = None, var_smoothing: float = 1e-9) -> None:
        self.priors = priors
        self.var_smoothing = var_smoothing

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> "GaussianNaiveBayes":
        """Estimate class priors, means and variances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        """
        check_float(self.var_smoothing, "var_smoothing", low=0, closed="neither", finite=False)
        X, R = self._fit_classes(X, y, sample_weight)
        if (self.class_count_ <= 0).any():
            raise ValueError("Every class needs a positive total sample weight.")
        largest = np.var(X, axis=0).max()
        self.epsilon_ = float(self.var_smoothing * largest) if largest > 0 else float(self.var_smoothing)
        self.theta_ = (R.T @ X) / self.class_count_[:, None]
        centred_var = np.stack([R[:, k] @ (X - mean) ** 2 for k, mean in enumerate(self.theta_)])
        self.var_ = centred_var / self.class_count_[:, None] + self.epsilon_
        return self

    def _log_likelihood(self, X: np.ndarray) -> np.ndarray:
        return np.column_stack([
            -0.5 * (np.log(2.0 * np.pi * var).sum() + (((X - mean) ** 2) / var).sum(axis=1))
            for mean, var in zip(self.theta_, self.var_)
        ])


class CategoricalNaiveBayes(_BaseNaiveBayes):
    """Naive Bayes for categorical features (multinoulli per class and feature).

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace) smoothing; ``alpha=0`` gives the maximum-likelihood estimates of
        the lecture.
    priors : array-like of shape (n_classes,), optional
    min_categories : int or array-like of shape (n_features,), optional
        Minimum number of categories per feature (feature ``i`` has
        ``max(min_categories_i, 1 + max of its training codes)`` categories).

    Attributes
    ----------
    classes_, class_count_, class_log_prior_
        As in :class:`GaussianNaiveBayes`.
    n_categories_ : ndarray of shape (n_features,)
        ``M_i``.
    category_count_ : list of ndarray of shape (n_classes, M_i)
        ``N_kij = sum_n s_n t_nk [x_ni = j]``.
    feature_log_prob_ : list of ndarray of shape (n_classes, M_i)
        ``log mu_kij``.

    Notes
    -----
    ``X`` holds category codes ``0 .. M_i - 1`` (ordinal encoding; the lecture's one-hot
    ``x_ij`` is ``[x_i = j]``). With ``N_k = sum_n s_n t_nk``,

    ``mu_kij = p(x_i = j | C_k) = (N_kij + alpha) / (N_k + alpha M_i)``,
    ``log p(x | C_k) = sum_i log mu_{k, i, x_i}``.
    """

    def __init__(
        self,
        alpha: float = 1.0,
        priors: ArrayLike | None = None,
        min_categories: int | ArrayLike | None = None,
    ) -> None:
        self.alpha = alpha
        self.priors = priors
        self.min_categories = min_categories

    def __sklearn_tags__(self):
        """scikit-learn's tags: non-negative integer category codes (``categorical``).

        Returns
        -------
        sklearn.utils.Tags
        """
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags

    @staticmethod
    def _check_codes(X: np.ndarray) -> np.ndarray:
        """Integer category codes of ``X``: fractions truncated with a warning (as
        scikit-learn's ``CategoricalNB``, which truncates silently), negatives refused."""
        if (X < 0).any():
            rows, cols = np.nonzero(X < 0)
            raise ValueError(
                "Negative values in data: X must hold non-negative integer category codes; "
                f"got {float(X[rows[0], cols[0]])} at row {rows[0]}, feature {cols[0]}."
            )
        fractional = X != np.floor(X)
        if fractional.any():
            rows, cols = np.nonzero(fractional)
            warnings.warn(
                f"X holds {int(fractional.sum())} value(s) that are not integer category codes "
                f"(first {float(X[rows[0], cols[0]])} at row {rows[0]}, feature {cols[0]}); "
                "they are truncated to integers, as scikit-learn's CategoricalNB does.",
                DataConversionWarning, stacklevel=4)
        return X.astype(np.intp)

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> "CategoricalNaiveBayes":
        """Count categories per class and feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Non-negative integer category codes (a fraction is truncated, with a
            :class:`~mixlib.core.exceptions.DataConversionWarning`).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        """
        self._check_alpha()
        X, R = self._fit_classes(X, y, sample_weight)
        codes = self._check_codes(X)
        n_categories = codes.max(axis=0) + 1
        if self.min_categories is not None:
            minimum = np.broadcast_to(np.asarray(self.min_categories), n_categories.shape)
            if not np.issubdtype(minimum.dtype, np.integer):
                raise TypeError(f"min_categories must be int(s), got {self.min_categories!r}.")
            n_categories = np.maximum(n_categories, minimum)
        self.n_categories_ = n_categories
        self.category_count_ = []
        self.feature_log_prob_ = []
        for i, m in enumerate(n_categories):
            one_hot = np.zeros((codes.shape[0], m))
            one_hot[np.arange(codes.shape[0]), codes[:, i]] = 1.0
            count = R.T @ one_hot
            self.category_count_.append(count)
            total = count.sum(axis=1, keepdims=True) + self.alpha * m
            self.feature_log_prob_.append(
                _floored_log(np.divide(count + self.alpha, total, out=np.zeros_like(count), where=total > 0))
            )
        return self

    def _log_likelihood(self, X: np.ndarray) -> np.ndarray:
        codes = self._check_codes(X)
        unseen = codes >= self.n_categories_
        if unseen.any():
            rows, cols = np.nonzero(unseen)
            raise ValueError(
                f"Feature {cols[0]} has category {codes[rows[0], cols[0]]} at row {rows[0]}, "
                f"not seen in fit (codes 0..{self.n_categories_[cols[0]] - 1}); set min_categories."
            )
        log_likelihood = np.zeros((X.shape[0], len(self.classes_)))
        for i, log_prob in enumerate(self.feature_log_prob_):
            log_likelihood += log_prob[:, codes[:, i]].T
        return log_likelihood


class BernoulliNaiveBayes(_BaseNaiveBayes):
    """Naive Bayes for binary features (one Bernoulli per class and feature).

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace) smoothing; 0 gives the lecture's maximum-likelihood estimates.
    binarize : float or None, default=0.0
        Threshold: ``x > binarize`` counts as 1 (scikit-learn's ``BernoulliNB`` default: on
        0/1 data, ``x > 0`` is ``x`` itself). ``None`` requires ``X`` to be 0/1 already and
        refuses any other value.
    priors : array-like of shape (n_classes,), optional

    Attributes
    ----------
    classes_, class_count_, class_log_prior_
        As in :class:`GaussianNaiveBayes`.
    feature_count_ : ndarray of shape (n_classes, n_features)
        ``N_ki = sum_n s_n t_nk x_ni``.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log mu_ki``.

    Notes
    -----
    ``mu_ki = p(x_i = 1 | C_k) = (N_ki + alpha) / (N_k + 2 alpha)``,
    ``log p(x | C_k) = sum_i [x_i log mu_ki + (1 - x_i) log(1 - mu_ki)]``.
    """

    def __init__(
        self, alpha: float = 1.0, binarize: float | None = 0.0, priors: ArrayLike | None = None
    ) -> None:
        self.alpha = alpha
        self.binarize = binarize
        self.priors = priors

    def _binary(self, X: np.ndarray) -> np.ndarray:
        if self.binarize is not None:
            return (X > self.binarize).astype(np.float64)
        bad = (X != 0) & (X != 1)
        if bad.any():
            rows, cols = np.nonzero(bad)
            raise ValueError(
                f"X must be binary (0/1) when binarize=None; got {float(X[rows[0], cols[0]])} at row "
                f"{rows[0]}, feature {cols[0]}. Set binarize to a threshold."
            )
        return X

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> "BernoulliNaiveBayes":
        """Count the ones per class and feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        """
        self._check_alpha()
        X, R = self._fit_classes(X, y, sample_weight)
        X = self._binary(X)
        self.feature_count_ = R.T @ X
        total = self.class_count_[:, None] + 2.0 * self.alpha
        fallback = np.full_like(self.feature_count_, 0.5)
        mu = np.divide(self.feature_count_ + self.alpha, total, out=fallback, where=total > 0)
        self.feature_log_prob_ = _floored_log(mu)
        self._log_one_minus = _floored_log(1.0 - mu)
        return self

    def _log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = self._binary(X)
        return X @ self.feature_log_prob_.T + (1.0 - X) @ self._log_one_minus.T
