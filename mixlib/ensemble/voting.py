"""Ensembles of classifiers (ensembles-and-SVM notes, part II): the public entry point.

This module holds the bootstrap estimate of a statistic and the heterogeneous vote, and
re-exports the homogeneous ensembles: :class:`~mixlib.ensemble.bagging.BaggingClassifier`,
:class:`~mixlib.ensemble.boosting.AdaBoostClassifier` and
:class:`~mixlib.ensemble.forest.RandomForestClassifier`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone, transformer_tags
from mixlib.core.validation import (
    check_choice,
    check_fitted_input,
    check_int,
    check_random_state,
    check_X_y,
)
from mixlib.ensemble.bagging import BaggingClassifier, label_indices
from mixlib.ensemble.boosting import AdaBoostClassifier
from mixlib.ensemble.forest import RandomForestClassifier

__all__ = [
    "AdaBoostClassifier",
    "BaggingClassifier",
    "BootstrapResult",
    "RandomForestClassifier",
    "VotingClassifier",
    "bootstrap_estimate",
]


@dataclass(frozen=True)
class BootstrapResult:
    """Outcome of :func:`bootstrap_estimate`.

    Attributes
    ----------
    estimate : float
        Mean of the replicates, :math:`\\bar s`.
    standard_error : float
        Their standard deviation :math:`\\sigma_s` (``ddof=1``).
    replicates : ndarray of shape (n_resamples,)
        :math:`s(\\tilde X_k)` for each resample.
    """

    estimate: float
    standard_error: float
    replicates: np.ndarray


def bootstrap_estimate(
    data,
    statistic: Callable[[np.ndarray], float],
    n_resamples: int = 1000,
    sample_size: int | None = None,
    random_state: None | int | np.random.Generator = None,
) -> BootstrapResult:
    """Bootstrap estimate of a statistic and its standard error (ensembles-and-SVM notes, §2).

    Parameters
    ----------
    data : array-like of shape (n,) or (n, ...)
        The sample :math:`X`; resampling draws whole rows (first axis).
    statistic : callable
        :math:`s`, mapping an array like ``data`` (with ``m`` rows) to a number.
    n_resamples : int, default=1000
        Number of bootstrap sets B (at least 2).
    sample_size : int or None, default=None
        Rows per bootstrap set m; ``None`` means m = n.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    BootstrapResult

    Notes
    -----
    With :math:`\\tilde X_k` drawn with replacement from :math:`X`,

    .. math:: \\bar s = \\frac{1}{B} \\sum_{k=1}^B s(\\tilde X_k), \\qquad
              \\sigma_s^2 = \\frac{1}{B - 1} \\sum_{k=1}^B \\big(s(\\tilde X_k) - \\bar s\\big)^2.

    The notes write the variance formula; the standard error is its square root.
    """
    data = np.asarray(data)
    if data.ndim == 0 or data.shape[0] < 1:
        raise ValueError(f"data must have at least one row, got shape {data.shape}.")
    check_int(n_resamples, "n_resamples", min_value=2)
    n = data.shape[0]
    m = check_int(sample_size, "sample_size", min_value=1, allow_none=True)
    if m is None:
        m = n
    rng = check_random_state(random_state)
    draws = rng.integers(0, n, size=(n_resamples, m))
    replicates = np.array([float(statistic(data[rows])) for rows in draws])
    return BootstrapResult(
        estimate=float(replicates.mean()),
        standard_error=float(replicates.std(ddof=1)),
        replicates=replicates,
    )


class VotingClassifier(ClassifierMixin, BaseEstimator):
    """Heterogeneous vote over classifiers of different kinds (ensembles-and-SVM notes, §1).

    Parameters
    ----------
    estimators : list of (str, estimator)
        Named classifiers with ``fit``/``predict`` (and ``predict_proba`` for soft voting).
    voting : {"hard", "soft"}, default="hard"
        Majority vote of the predicted labels, or argmax of the averaged class probabilities.
    weights : array-like of shape (n_estimators,) or None
        Vote weights (uniform if None).
    prefit : bool, default=False
        If True the estimators are already fitted: ``fit`` only records the classes and uses
        them as they are; otherwise ``fit`` fits a clone of each.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of fitted estimators
    named_estimators_ : dict of str to fitted estimator

    Notes
    -----
    Hard: :math:`\\hat y = \\arg\\max_k \\sum_j w_j [h_j(x) = k]`; soft:
    :math:`\\hat y = \\arg\\max_k \\sum_j w_j P_j(k \\mid x)`, the member's probability
    columns being aligned on ``classes_`` (a class a member does not know has probability
    0). Ties go to the first class in ``classes_``, as in scikit-learn.
    """

    def __init__(self, estimators, voting: str = "hard", weights=None, prefit: bool = False):
        self.estimators = estimators
        self.voting = voting
        self.weights = weights
        self.prefit = prefit

    def fit(self, X, y, sample_weight=None) -> "VotingClassifier":
        """Fit clones of the members on ``(X, y)`` (or adopt them when ``prefit``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Passed to every member's ``fit``.
        """
        check_choice(self.voting, "voting", ("hard", "soft"))
        if not self.estimators:
            raise ValueError("estimators must be a non-empty list of (name, estimator).")
        names = [name for name, _ in self.estimators]
        if len(set(names)) != len(names):
            raise ValueError(f"Estimator names must be unique, got {names}.")
        if self.weights is not None and len(self.weights) != len(self.estimators):
            raise ValueError(
                f"weights has {len(self.weights)} entries for {len(self.estimators)} estimators."
            )
        X, y = check_X_y(X, y)
        self.classes_ = np.unique(y)
        self.n_features_in_ = X.shape[1]
        fit_kw = {} if sample_weight is None else {"sample_weight": sample_weight}
        if self.prefit:
            for name, est in self.estimators:
                if not hasattr(est, "classes_"):
                    raise ValueError(f"prefit=True but estimator {name!r} is not fitted.")
            self.estimators_ = [est for _, est in self.estimators]
        else:
            self.estimators_ = [clone(est).fit(X, y, **fit_kw) for _, est in self.estimators]
        self.named_estimators_ = dict(zip(names, self.estimators_))
        return self

    def _weights(self) -> np.ndarray:
        if self.weights is None:
            return np.ones(len(self.estimators_))
        return np.asarray(self.weights, dtype=np.float64)

    @property
    def predict_proba(self) -> Callable[..., np.ndarray]:
        """Weighted average of the members' class probabilities: (n_samples, n_classes).

        Only with ``voting="soft"``, as in scikit-learn: the hard vote's prediction is not
        the argmax of averaged probabilities, so under ``voting="hard"`` the attribute is
        absent (``AttributeError``).
        """
        if self.voting != "soft":
            raise AttributeError("predict_proba is not available when voting='hard': the "
                                 "prediction is a vote of labels; set voting='soft'.")
        return self._average_proba

    def _average_proba(self, X) -> np.ndarray:
        X = check_fitted_input(self, X, attribute="estimators_")
        w = self._weights()
        total = 0.0
        for wj, est in zip(w, self.estimators_):
            proba = np.asarray(est.predict_proba(X))
            aligned = np.zeros((proba.shape[0], self.classes_.shape[0]))
            aligned[:, label_indices(self.classes_, np.asarray(est.classes_))] = proba
            total = total + wj * aligned
        return total / w.sum()

    def __sklearn_tags__(self):
        """scikit-learn's tags: a classifier that also transforms (:meth:`transform`) into
        integer class indices (no float dtype preserved).

        Returns
        -------
        sklearn.utils.Tags
        """
        tags = super().__sklearn_tags__()
        tags.transformer_tags = transformer_tags(preserves_dtype=[])
        return tags

    def fit_transform(self, X, y, sample_weight=None) -> np.ndarray:
        """``fit(X, y, sample_weight)`` then :meth:`transform` of ``X``."""
        return self.fit(X, y, sample_weight=sample_weight).transform(X)

    def transform(self, X) -> np.ndarray:
        """Class index predicted by each member: shape (n_samples, n_estimators)."""
        X = check_fitted_input(self, X, attribute="estimators_")
        return np.stack(
            [label_indices(self.classes_, np.asarray(est.predict(X))) for est in self.estimators_],
            axis=1,
        )

    def predict(self, X) -> np.ndarray:
        """Hard or soft weighted vote: shape (n_samples,)."""
        if self.voting == "soft":
            return self.classes_[np.argmax(self._average_proba(X), axis=1)]
        votes = self.transform(X)
        w = self._weights()
        counts = np.zeros((votes.shape[0], self.classes_.shape[0]))
        rows = np.arange(votes.shape[0])
        for j in range(votes.shape[1]):
            counts[rows, votes[:, j]] += w[j]
        return self.classes_[np.argmax(counts, axis=1)]
