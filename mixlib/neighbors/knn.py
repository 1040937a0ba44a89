"""k-nearest neighbours: the k-NN classifier, with a kd-tree or brute force behind it.

The search structures live in their own modules and are re-exported here:
:class:`KDTree` (:mod:`mixlib.neighbors.kd_tree`: the supervised-learning notes' median kd-tree, section 1.1,
searched for all queries at once with per-query bounded queues and the notes' pruning rule)
and :class:`BruteForceNeighbors` (:mod:`mixlib.neighbors._brute`: one BLAS distance matrix per
cache-sized block of queries). Both also return every training point tied with the k-th
neighbour (``query_ties``), which the classifier's default tie rule needs.
"""


from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.neighbors._brute import BruteForceNeighbors
from mixlib.neighbors.kd_tree import KDTree
from mixlib.neighbors._common import _check_k, _check_metric
from mixlib.core.validation import (
    check_choice,
    check_fitted_input,
    check_int,
    check_sample_weight,
    check_X_y,
)

__all__ = ["KDTree", "BruteForceNeighbors", "KNeighborsClassifier", "default_n_neighbors"]

# Relative tolerance under which two distances count as tied (ties="all" of the classifier):
# far above the rounding of a distance computed from coordinate differences.
_TIE_RTOL = 1e-12
# Relative tolerance under which two vote totals count as tied.
_VOTE_RTOL = 1e-12
# Share of its probability by which the class predict picks among classes tied at the top of
# the vote leads the others in predict_proba (far above _VOTE_RTOL, far below any real margin).
_TIE_LEAD = 1e-9


def default_n_neighbors(n_samples: int) -> int:
    """The odd ``k`` nearest to ``sqrt(n_samples)`` (supervised-learning notes, remark 2).

    Notes
    -----
    ``k = 2 floor(sqrt(n) / 2) + 1`` (computed with the exact integer square root): for
    ``sqrt(n)`` in ``[2m, 2m + 2)`` the nearest odd integer is ``2m + 1``. It never exceeds
    ``n``.
    """
    if n_samples < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}.")
    return 2 * (math.isqrt(n_samples) // 2) + 1


class KNeighborsClassifier(ClassifierMixin, BaseEstimator):
    """k-nearest-neighbour classifier (supervised-learning notes, section 1).

    Parameters
    ----------
    n_neighbors : int or None, default=None
        ``k``; ``None`` takes the odd integer nearest to ``sqrt(n_samples)``
        (:func:`default_n_neighbors`).
    weights : {"uniform", "distance"}, default="uniform"
        Each neighbour votes with weight 1, or ``1 / distance``; a query at distance 0 from some
        training points takes the vote of those points only.
    metric : {"euclidean", "manhattan", "chebyshev", "minkowski"}, default="euclidean"
    p : float, default=2
        Minkowski exponent (``metric="minkowski"`` only).
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        ``"auto"`` always uses brute force. Rule from measurements (one BLAS thread, 15
        neighbours, Gaussian data, fit + predict): brute force was faster in the cases
        tried up to 20000 points in 2 to 16 dimensions (CPU time, 500 queries: 3 features
        0.09 s against 0.17 s, 16 features 0.11 s against 0.53 s) and on one-hot splice
        (``benchmarks/bench_neighbors.py``), with one exception measured: 100000 points, 2
        features, 2000 queries, brute 1.8-2.2 s against 1.3-1.8 s for the kd-tree (an
        earlier measurement, 300000 points and 5000 queries, gave 12.3 s against 14.7 s).
        The batched kd-tree prunes well in low dimension but pays a Python-level step per
        bucket, while brute force is one BLAS product per cache-sized block. ``"kd_tree"``
        remains available (and is the notes' structure).
    leaf_size : int, default=30
        Leaf bucket size of the kd-tree.
    ties : {"all", "index"}, default="all"
        Training points exactly as far as the k-th neighbour: ``"all"`` lets every one of them
        vote (so more than ``k`` points may vote; the result does not depend on the order of
        the training rows nor on the search algorithm), ``"index"`` keeps exactly ``k``: the
        search decides which of the tied points are kept (brute force: those
        ``numpy.argpartition`` puts among the first ``k``, not the lowest indices; ``KDTree``:
        those its search meets first), so the vote can depend on the algorithm and the row
        order. Such ties are the rule on one-hot data (most splice queries have one at the
        k-th distance), hence ``"all"`` by default.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_neighbors_ : int
        The ``k`` used.
    index_ : KDTree or BruteForceNeighbors
        The fitted search structure.

    Notes
    -----
    The class of ``x`` is ``argmax_c sum_{i in N_k(x)} s_i w_i [y_i = c]`` with ``s_i`` the
    sample weight of neighbour ``i`` and ``w_i`` its vote weight; ``N_k(x)`` holds the ``k``
    nearest training points plus, with ``ties="all"``, every point tied with the k-th
    (distances equal up to a relative ``1e-12``). **Tie-break of the vote:** when several
    classes reach the maximal vote, the prediction is the class of the nearest voter among
    those belonging to a tied class (voters ordered by distance, then training index), a
    deterministic alternative to the random draw of the supervised-learning notes, remark 1.

    **Sample weights count rows:** a row of weight 2 is the row given twice, 0 the row left
    out, so ``k`` is a total weight. ``N_k(x)`` takes the nearest points (by distance, then
    index) until their weights add up to ``k``; the point that reaches ``k`` counts with the
    part of its weight needed (``ties="index"``), or every point tied with it counts in full
    (``ties="all"``). The default ``k`` is computed from the total weight (rounded down).
    With integer weights the prediction is that of the data with repeated rows.
    """

    def __init__(
        self,
        n_neighbors: int | None = None,
        weights: str = "uniform",
        metric: str = "euclidean",
        p: float = 2,
        algorithm: str = "auto",
        leaf_size: int = 30,
        ties: str = "all",
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.metric = metric
        self.p = p
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.ties = ties

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> "KNeighborsClassifier":
        """Store the training set and build the search structure.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            How many times each row counts (see the Notes); all 1 by default.
        """
        X, y = check_X_y(X, y)
        check_choice(self.weights, "weights", ("uniform", "distance"))
        check_choice(self.ties, "ties", ("all", "index"))
        check_choice(self.algorithm, "algorithm", ("auto", "kd_tree", "brute"))
        _check_metric(self.metric, self.p)
        n_samples = X.shape[0]
        self._sample_weight = check_sample_weight(sample_weight, n_samples)
        self._weighted = sample_weight is not None
        if self._weighted:
            total = float(self._sample_weight.sum())
            k = (default_n_neighbors(max(1, math.floor(total))) if self.n_neighbors is None
                 else self.n_neighbors)
            check_int(k, "n_neighbors", min_value=1)
            if k > total * (1 + _VOTE_RTOL):
                raise ValueError(f"n_neighbors={k} exceeds the total sample weight ({total:g}): "
                                 "a weight counts as that many copies of its row.")
            self.n_neighbors_ = int(k)
        else:
            k = default_n_neighbors(n_samples) if self.n_neighbors is None else self.n_neighbors
            check_int(k, "n_neighbors", min_value=1)  # named as the user gives it
            self.n_neighbors_ = _check_k(k, n_samples)
        self.classes_, self._y_codes = np.unique(y, return_inverse=True)
        self.n_features_in_ = X.shape[1]
        if self.algorithm == "kd_tree":
            self.index_ = KDTree(X, leaf_size=self.leaf_size, metric=self.metric, p=self.p,
                                 check_input=False)
        else:
            self.index_ = BruteForceNeighbors(X, metric=self.metric, p=self.p, check_input=False)
        return self

    def kneighbors(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Distances and training rows of the ``n_neighbors_`` nearest neighbours of each row.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)

        Returns
        -------
        distances, indices : ndarray of shape (n_queries, n_neighbors_)
        """
        X = check_fitted_input(self, X, attribute="index_")
        return self.index_._nearest(X, self.n_neighbors_)

    def _query(self, X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(self.index_, BruteForceNeighbors):
            # Uniform votes under ties="index" only need the order of the distances: skip the
            # exact recomputation; ties="all" compares distances, so it needs them exact.
            exact = self.weights == "distance" or self.ties == "all"
            return self.index_._nearest(X, k, exact=exact)
        return self.index_._nearest(X, k)

    def _voters(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Neighbours that vote: distances, indices, mask and counted sample weights, each
        (n_queries, width).

        With ``ties="all"`` the search structure returns the ``k`` nearest plus every point
        tied with the k-th (``query_ties``: one distance matrix per block for brute force, a
        radius pass over the buckets for the kd-tree); ``mask`` selects the real entries.
        """
        X = check_fitted_input(self, X, attribute="index_")
        if self._weighted:
            return self._weighted_voters(X)
        k = self.n_neighbors_
        if self.ties == "all":
            distances, indices, mask = self.index_._nearest_ties(X, k, _TIE_RTOL)
        else:
            distances, indices = self._query(X, k)
            mask = np.ones(distances.shape, dtype=bool)
        return distances, indices, mask, mask.astype(np.float64)  # every row weighs 1

    def _weighted_voters(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                       np.ndarray]:
        """:meth:`_voters` when sample weights count rows: the nearest points up to a total
        weight of ``k`` (see the class Notes), searched among twice as many points each time
        some query has not reached ``k`` yet."""
        k, n_train = self.n_neighbors_, self._sample_weight.shape[0]
        width = min(k, n_train)
        while True:
            distances, indices, mask = self.index_._nearest_ties(X, width, _TIE_RTOL)
            weight = np.where(mask, self._sample_weight[indices], 0.0)
            reached = np.cumsum(weight, axis=1) >= k * (1 - _VOTE_RTOL)
            if width == n_train or reached.any(axis=1).all():
                break
            width = min(2 * width, n_train)
        rows = np.arange(X.shape[0])
        last = np.argmax(reached, axis=1)
        if self.ties == "all":
            bound = distances[rows, last] * (1 + _TIE_RTOL)
            counted = np.where(distances <= bound[:, None], weight, 0.0)
        else:
            before = np.cumsum(weight, axis=1) - weight
            counted = np.clip(k - before, 0.0, weight)
        return distances, indices, counted > 0, counted

    def _votes(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Vote matrix (n_queries, n_classes), voter class codes and mask (n_queries, width)."""
        distances, indices, mask, weight = self._voters(X)
        if self.weights == "distance":
            exact = (distances == 0.0) & mask
            has_exact = exact.any(axis=1, keepdims=True)
            inverse = np.divide(1.0, distances, out=np.zeros_like(distances), where=mask & ~exact)
            weight = weight * np.where(has_exact, exact.astype(float), inverse)
        codes = self._y_codes.take(indices)
        n_classes = len(self.classes_)
        cells = (np.arange(0, codes.shape[0] * n_classes, n_classes)[:, None] + codes).ravel()
        votes = np.bincount(cells, weight.ravel(), minlength=len(codes) * n_classes)
        return votes.reshape(len(codes), n_classes), codes, mask

    @staticmethod
    def _winner(votes: np.ndarray, codes: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray,
                                                                                 np.ndarray]:
        """Index of the predicted class of each query (the class of the nearest voter among
        the classes tied at the top of the vote) and the mask of those tied classes."""
        best = votes.max(axis=1, keepdims=True)
        tied = votes >= best - _VOTE_RTOL * np.abs(best)
        voter_tied = tied.ravel().take(codes + np.arange(0, votes.size, votes.shape[1])[:, None])
        first = np.argmax(voter_tied & mask, axis=1)
        return codes.ravel().take(first + np.arange(0, codes.size, codes.shape[1])), tied

    def _shares(self, X: ArrayLike) -> np.ndarray:
        """Vote shares (n_queries, n_classes), the top ties leaning to the predicted class."""
        votes, codes, mask = self._votes(X)
        n_classes = votes.shape[1]
        winner, tied = self._winner(votes, codes, mask)
        total = votes.sum(axis=1, keepdims=True)
        shares = np.divide(votes, total, out=np.full_like(votes, 1.0 / n_classes), where=total > 0)
        n_tied = tied.sum(axis=1)
        leaning = np.flatnonzero(n_tied > 1)
        if leaning.size:
            lead = _TIE_LEAD * shares[leaning, winner[leaning]]
            others = tied[leaning]
            others[np.arange(leaning.size), winner[leaning]] = False
            shares[leaning] -= others * (lead / (n_tied[leaning] - 1))[:, None]
            shares[leaning, winner[leaning]] += lead
        return shares

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Share of the (weighted) vote of each class, shape (n_queries, n_classes).

        When several classes share the largest vote, the one :meth:`predict` picks (the
        class of the nearest tied voter) leads the others by a relative ``1e-9``, taken from
        them, so that the argmax of the shares is always the predicted class.
        """
        return self._shares(X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Majority class of the neighbours, ties broken by the nearest tied neighbour."""
        winner, _ = self._winner(*self._votes(X))  # validates X (and fitted) first
        return self.classes_[winner]
