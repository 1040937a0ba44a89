"""A classifier on quantile-binned features, so a tree for categorical data (ID3) can learn from
numeric ones."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone
from mixlib.core.validation import check_fitted_input, check_sample_weight, check_X_y


class QuantileDiscretised(ClassifierMixin, BaseEstimator):
    """A classifier on features binned into training quantiles (for ID3 on numeric data).

    Parameters
    ----------
    estimator : estimator
        A classifier for categorical features (e.g. :class:`mixlib.tree.id3.ID3Classifier`).
    n_bins : int, default=4
        Number of quantile bins of a numeric feature.
    max_categories : int, default=8
        A feature with at most this many distinct training values (one-hot indicators,
        ambiguity codes, small integer codes such as heart_cleveland's ``cp`` or ``thal``) is
        categorical and passed unchanged; a feature with more is numeric and replaced by the
        code ``0 .. n_bins - 1`` of its quantile bin.

    Attributes
    ----------
    edges_ : list of ndarray or None
        Per feature, the ``n_bins - 1`` inner bin edges (training quantiles
        ``q = 1/n_bins, ..., (n_bins - 1)/n_bins``), or None for a feature kept as is.
    estimator_ : fitted estimator
    classes_ : ndarray of shape (n_classes,)

    Notes
    -----
    Code of ``x`` for edges ``e_1 <= ... <= e_{B-1}``: ``#{b : e_b < x}`` (``x`` equal to an
    edge falls in the lower bin). Repeated edges (heavy ties) merge bins.
    """

    def __init__(self, estimator: Any = None, n_bins: int = 4, max_categories: int = 8) -> None:
        self.estimator = estimator
        self.n_bins = n_bins
        self.max_categories = max_categories

    def _codes(self, X: np.ndarray) -> np.ndarray:
        out = X.copy()
        for j, edges in enumerate(self.edges_):
            if edges is not None:
                out[:, j] = np.searchsorted(edges, X[:, j], side="left")
        return out

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> "QuantileDiscretised":
        """Compute the bin edges on ``X`` (n_samples, n_features) and fit the estimator."""
        if not isinstance(self.n_bins, numbers.Integral) or self.n_bins < 2:
            raise ValueError(f"n_bins must be an integer >= 2, got {self.n_bins!r}.")
        if not isinstance(self.max_categories, numbers.Integral) or self.max_categories < 1:
            raise ValueError(f"max_categories must be an integer >= 1, "
                             f"got {self.max_categories!r}.")
        if self.estimator is None:
            raise ValueError("QuantileDiscretised needs an estimator, got None.")
        X, y = check_X_y(X, y)
        quantiles = np.arange(1, self.n_bins) / self.n_bins
        if sample_weight is None:
            self.edges_ = [
                np.quantile(column, quantiles) if len(np.unique(column)) > self.max_categories
                else None
                for column in X.T
            ]
        else:
            weight = check_sample_weight(sample_weight, X.shape[0])
            kept = weight > 0
            self.edges_ = [
                weighted_quantiles(column[kept], weight[kept], quantiles)
                if len(np.unique(column[kept])) > self.max_categories else None
                for column in X.T
            ]
        self.n_features_in_ = X.shape[1]
        self.estimator_ = clone(self.estimator)
        if sample_weight is None:
            self.estimator_.fit(self._codes(X), y)
        else:
            self.estimator_.fit(self._codes(X), y, sample_weight=sample_weight)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class of every row of ``X`` (n_samples, n_features)."""
        X = check_fitted_input(self, X, attribute="edges_")
        return self.estimator_.predict(self._codes(X))


def weighted_quantiles(values: np.ndarray, weights: np.ndarray,
                       quantiles: np.ndarray) -> np.ndarray:
    """numpy's default (``"linear"``) quantiles of ``values`` repeated ``weights`` times.

    Parameters
    ----------
    values : ndarray of shape (n,)
    weights : ndarray of shape (n,)
        Positive; integer weights give exactly ``numpy.quantile(numpy.repeat(values,
        weights), quantiles)``, other weights the same formula with ``N = sum(weights)``.
    quantiles : ndarray of shape (m,)
        In [0, 1].

    Returns
    -------
    ndarray of shape (m,)

    Notes
    -----
    With the values sorted and ``W_j`` the cumulative weight up to value ``j``, the k-th
    order statistic (0-based) of the repeated sample is the first ``v_j`` with ``W_j > k``.
    The quantile ``q`` sits at position ``h = q (N - 1)`` and is
    ``x_floor(h) + (h - floor(h)) (x_floor(h)+1 - x_floor(h))``.
    """
    order = np.argsort(values, kind="stable")
    sorted_values, cumulative = values[order], np.cumsum(weights[order])
    position = quantiles * (cumulative[-1] - 1)
    low = np.floor(position)
    last = len(sorted_values) - 1

    def order_statistic(k: np.ndarray) -> np.ndarray:
        return sorted_values[np.minimum(np.searchsorted(cumulative, k, side="right"), last)]

    below, above = order_statistic(low), order_statistic(low + 1)
    return below + (position - low) * (above - below)
