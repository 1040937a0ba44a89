"""Exhaustive k-NN search: one distance matrix (BLAS) per cache-sized block of queries."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from mixlib.core.distances import squared_euclidean
from mixlib.neighbors._common import (
    _CDIST_NAMES,
    _check_k,
    _check_metric,
    _exact_rows,
    _pack_neighbors,
    _reduced_distances,
    _sort_neighbors,
)
from mixlib.core.validation import check_array


def _kth_upper_bound(matrix: np.ndarray, k: int) -> np.ndarray:
    """An upper bound of the k-th smallest value of each row of ``matrix`` (non-negative,
    float64 values or their float32 roundings).

    Rounding to float32 (to nearest) is monotone, so the k-th smallest float32 value of a row
    is the float32 rounding ``r`` of its k-th value ``v``, and ``v <= nextafter(r, inf)`` (the
    next float32: ``v`` is at most half a float32 spacing from ``r``; ``inf`` when ``v``
    overflows float32). Partitioning float32 rows costs half as much as float64 ones.
    """
    with np.errstate(over="ignore"):
        single = matrix.astype(np.float32, copy=False)
    rounded = np.partition(single, k - 1, axis=1)[:, k - 1]
    return np.nextafter(rounded, np.float32(np.inf)).astype(np.float64)


def _nonzero(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.nonzero`` of a C-ordered 2-d ``mask`` (same pairs, row by row), through the flat
    positions and one ``divmod``: about 2.5 times faster on a block of the distance matrix."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


class BruteForceNeighbors:
    """Exhaustive k-NN search: one distance matrix per block of queries.

    Euclidean distances come from :func:`mixlib.core.distances.squared_euclidean` (one BLAS matrix
    product per block), the ``k`` smallest of each row are selected with ``numpy.argpartition``
    (linear time, the partial sort of the notes), then, with ``exact=True``, made exact: the
    pairs of integer rows (:func:`~mixlib.neighbors._common._exact_rows`, e.g. one-hot rows)
    keep their BLAS value, which is exact, and the others are recomputed from the coordinate
    differences, so the returned distances carry no cancellation error. :meth:`query_ties`
    (the classifier's default tie rule) runs the products between integer rows in float32,
    exact for them and twice as fast. Other metrics use :func:`scipy.spatial.distance.cdist`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    metric : {"euclidean", "manhattan", "chebyshev", "minkowski"}, default="euclidean"
    p : float, default=2
    block_bytes : int, default=2**21
        Memory budget of one block of the distance matrix (2 MiB: blocks that stay in the
        cache are faster than one large matrix), counted in the precision the block is
        computed in: float32 for :meth:`query_ties` when most rows are exact in float32
        (twice as many queries per block), float64 otherwise.
    """

    def __init__(
        self, X: ArrayLike, metric: str = "euclidean", p: float = 2, block_bytes: int = 2**21
    ) -> None:
        self._exponent = _check_metric(metric, p)
        self.metric = metric
        self.p = p
        self.block_bytes = int(block_bytes)
        self.data_ = check_array(X)
        self._sq_norms = np.einsum("ij,ij->i", self.data_, self.data_)
        # Rows exact in float32 (integer rows of small norm, one-hot ones): products between
        # them run in float32 when they are at least half of the rows (_rounded_matrix).
        self._exact_rows = _exact_rows(self.data_, 24)
        self._integral = bool(self._exact_rows.all())
        self._single = None
        if 2 * self._exact_rows.sum() >= len(self._exact_rows):
            single = np.where(self._exact_rows[:, None], self.data_, 0.0).astype(np.float32)
            self._single = (single, np.einsum("ij,ij->i", single, single),
                            np.flatnonzero(~self._exact_rows))

    def _checked_query(self, X, k, itemsize: int = 8) -> tuple[np.ndarray, np.ndarray, int, int]:
        """Validated queries, the training rows, ``k``, and the query block size.

        A block of queries holds at most ``block_bytes`` of distances to the training rows,
        each of ``itemsize`` bytes (8 for float64, 4 for the float32 products of
        :meth:`_rounded_matrix`).
        """
        X = check_array(X)
        train = self.data_
        if X.shape[1] != train.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, fitted on {train.shape[1]}.")
        k = _check_k(k, train.shape[0])
        return X, train, k, max(1, self.block_bytes // (itemsize * train.shape[0]))

    def _rounded_matrix(self, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Squared Euclidean distances of a block of queries, rounded to float32, and the
        queries whose values with the exact training rows are exact.

        ``D[i, j]`` is the float32 rounding of a value ``b_ij`` with ``|b_ij - d_ij^2|`` at most
        the error of :func:`mixlib.core.distances.squared_euclidean` in float64: a pair of rows
        exact in float32 (:func:`~mixlib.neighbors._common._exact_rows` with 24 bits) gets its
        exact value from a float32 product (half the cost of float64), the other pairs a float64
        product (the few non-integer rows of splice). Without enough exact training rows, all
        pairs take the float64 product and no query is exact.
        """
        if self._single is None:
            matrix = squared_euclidean(queries, self.data_, Y_sq=self._sq_norms)
            with np.errstate(over="ignore"):
                return matrix.astype(np.float32), np.zeros(len(queries), dtype=bool)
        train, sq_norms, inexact_cols = self._single
        exact = _exact_rows(queries, 24)
        single = np.where(exact[:, None], queries, 0.0).astype(np.float32)
        matrix = squared_euclidean(single, train, Y_sq=sq_norms)
        inexact = np.flatnonzero(~exact)
        with np.errstate(over="ignore"):  # float32 roundings: inf beyond its range
            if inexact_cols.size:
                matrix[:, inexact_cols] = squared_euclidean(
                    queries, self.data_[inexact_cols], Y_sq=self._sq_norms[inexact_cols])
            if inexact.size:
                matrix[inexact] = squared_euclidean(
                    queries[inexact], self.data_, Y_sq=self._sq_norms)
        return matrix, exact

    def _exact_distances(
        self, queries: np.ndarray, exact_queries: np.ndarray, matrix: np.ndarray,
        row: np.ndarray, col: np.ndarray,
    ) -> np.ndarray:
        """Euclidean distances of the pairs (``queries[row]``, ``data_[col]``), exact.

        ``matrix`` holds the BLAS squared distances of the block (float64, or float32 from
        :meth:`_rounded_matrix`), ``row`` and ``col`` are 1-d, ``exact_queries`` flags the
        queries whose values with the training rows exact in float32 are exact. A pair of
        such rows keeps its BLAS value, which is exact; the other pairs are recomputed as
        ``sum_j (x_j - z_j)^2``. Either way the value is the one the recomputation of every
        pair would give, bit for bit, and the gather of ``n_features`` coordinates is paid
        only for the pairs that need it (on splice, 2 % of the candidates).
        """
        squares = matrix[row, col].astype(np.float64)
        inexact = np.flatnonzero(~(exact_queries[row] & self._exact_rows[col]))
        if inexact.size:
            diff = queries[row[inexact]] - self.data_[col[inexact]]
            squares[inexact] = _reduced_distances(diff, 2.0)
        return np.sqrt(squares)

    def query(self, X: ArrayLike, k: int = 1, exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest training points of each row of ``X``, as :meth:`KDTree.query`.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        k : int, default=1
        exact : bool, default=True
            Exact Euclidean distances of the selected neighbours: recomputed from the
            coordinate differences unless both rows are integer rows (costs a gather of
            ``n_features`` values per recomputed pair, up to ``n_queries * k`` pairs).
            ``False`` returns the BLAS values, whose absolute error is about
            ``1e-16 (||x||^2 + ||z||^2)`` on the squared distance.

        Returns
        -------
        distances, indices : ndarray of shape (n_queries, k)
            Sorted by increasing distance, ties by increasing training index.
        """
        X, train, k, block = self._checked_query(X, k)
        distances = np.empty((X.shape[0], k))
        indices = np.empty((X.shape[0], k), dtype=np.intp)
        for lo in range(0, X.shape[0], block):
            queries = X[lo:lo + block]
            if self.metric == "euclidean":
                matrix = squared_euclidean(queries, train, Y_sq=self._sq_norms)
            else:
                kwargs = {"p": self.p} if self.metric == "minkowski" else {}
                matrix = cdist(queries, train, metric=_CDIST_NAMES[self.metric], **kwargs)
            if k < train.shape[0]:
                nearest = np.argpartition(matrix, k - 1, axis=1)[:, :k]
            else:
                nearest = np.broadcast_to(np.arange(k), (len(queries), k))
            if exact and self.metric == "euclidean":
                rows = np.repeat(np.arange(len(queries)), k)
                values = self._exact_distances(
                    queries, _exact_rows(queries, 24), matrix, rows, nearest.ravel())
                values = values.reshape(nearest.shape)
            elif self.metric == "euclidean":
                values = np.sqrt(np.take_along_axis(matrix, nearest, axis=1))
            else:
                values = np.take_along_axis(matrix, nearest, axis=1)
            distances[lo:lo + block], indices[lo:lo + block] = _sort_neighbors(values, nearest)
        return distances, indices


    def query_ties(self, X: ArrayLike, k: int, rtol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``k`` nearest training points plus every point tied with the k-th.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        k : int
        rtol : float
            A point at distance ``d <= d_k (1 + rtol)`` is tied with the k-th (``d_k``).

        Returns
        -------
        distances, indices : ndarray of shape (n_queries, width)
            Each row's points sorted by increasing distance, then index; ``width`` is the
            largest number of points of a row, shorter rows are padded (distance inf).
        mask : ndarray of shape (n_queries, width)
            True on the points within ``d_k (1 + rtol)``.

        Notes
        -----
        One distance matrix per block of queries, held as float32 roundings of values
        ``b`` (:meth:`_rounded_matrix`). Euclidean ``b`` carry an error of at most about
        ``(n_features + 2) eps (||x||^2 + ||z||^2)`` on the squared distance, and none on a
        pair of integer rows (every coordinate an integer and ``4 ||x||^2 < 2**24``,
        :func:`~mixlib.neighbors._common._exact_rows`: their float32 product is exact). An
        upper bound of the k-th ``b`` of each row is read with ``numpy.partition``
        (:func:`_kth_upper_bound`), and every point whose ``b`` is within twice the error
        bound of it (widened by ``rtol``) is a candidate; rounding to float32 is monotone,
        so comparing the roundings keeps every such point. The candidates' distances are made
        exact (:meth:`_exact_distances`: pairs of integer rows keep their exact value, the
        others are recomputed from coordinate differences; on splice, whose few ambiguous
        bases are fractions, 2 % of the candidates), and the k-th and the ties are decided on
        those exact values, so the result is the one an exhaustive exact search gives. When
        every training row is an integer row, the band of an integer query row is 0.
        """
        single = self.metric == "euclidean" and self._single is not None
        X, train, k, block = self._checked_query(X, k, itemsize=4 if single else 8)
        parts = []
        for lo in range(0, X.shape[0], block):
            queries = X[lo:lo + block]
            if self.metric == "euclidean":
                matrix, exact_queries = self._rounded_matrix(queries)
                kth = _kth_upper_bound(matrix, k)
                q_sq = np.einsum("ij,ij->i", queries, queries)
                band = 2.0 * (train.shape[1] + 2) * np.finfo(float).eps * (
                    q_sq + self._sq_norms.max())
                if self._integral:
                    band[exact_queries] = 0.0  # every pair of these rows is exact
                limit = (kth + band) * (1.0 + 4.0 * rtol) + band
                with np.errstate(over="ignore"):  # monotone: b <= limit gives f32(b) <= f32(limit)
                    limit = limit.astype(np.float32)
                row, col = _nonzero(matrix <= limit[:, None])
                values = self._exact_distances(queries, exact_queries, matrix, row, col)
            else:
                kwargs = {"p": self.p} if self.metric == "minkowski" else {}
                matrix = cdist(queries, train, metric=_CDIST_NAMES[self.metric], **kwargs)
                kth = _kth_upper_bound(matrix, k)
                row, col = _nonzero(matrix <= (kth * (1.0 + 4.0 * rtol))[:, None])
                values = matrix[row, col]
            # The k-th exact value of each row: k-th smallest of its candidates.
            counts = np.bincount(row, minlength=len(queries))
            starts = np.cumsum(counts) - counts
            width = int(counts.max())
            padded = np.full((len(queries), width), np.inf)
            padded[row, np.arange(row.shape[0]) - starts[row]] = values
            radius = np.partition(padded, k - 1, axis=1)[:, k - 1] * (1.0 + rtol)
            keep = values <= radius[row]
            parts.append((row[keep] + lo, col[keep], values[keep]))
        row, col, values = (np.concatenate(p) for p in zip(*parts))
        return _pack_neighbors(row, col, values, X.shape[0], grouped=True)
