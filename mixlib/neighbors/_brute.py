"""Exhaustive k-NN search: one distance matrix (BLAS) per cache-sized block of queries."""

from __future__ import annotations

from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from mixlib.core.distances import squared_euclidean
from mixlib.neighbors._common import (
    _CDIST_NAMES,
    _check_k,
    _check_metric,
    _exact_rows,
    _pad_rows,
    _pairs_below,
    _reduced_distances,
    _row_differences,
    _sort_neighbors,
    _tie_lists,
)
from mixlib.core.validation import check_array

_EPS = float(np.finfo(np.float64).eps)


def _kth_upper_bound(matrix: np.ndarray, k: int) -> np.ndarray:
    """An upper bound of the k-th smallest value of each row of ``matrix`` (non-negative,
    float64 values or their float32 roundings).

    Rounding to float32 (to nearest) is monotone, so the k-th smallest float32 value of a row
    is the float32 rounding ``r`` of its k-th value ``v``, and ``v <= nextafter(r, inf)`` (the
    next float32: ``v`` is at most half a float32 spacing from ``r``; ``inf`` when ``v``
    overflows float32). The bit patterns of non-negative float32 numbers (``-0.0`` made
    ``+0.0`` by adding 0), read as uint32, are in the order of the numbers, NaN last as in
    numpy's sort (``inf - inf`` of overflowing norms), and numpy partitions uint32 rows
    faster than float32 ones (splice's 1064 x 2126 distances, copy included: 4.8 ms
    against 6.2 ms; float64: 21 ms).
    """
    with np.errstate(over="ignore"):
        keys = np.add(matrix, np.float32(0.0), dtype=np.float32).view(np.uint32)
    keys.partition(k - 1, axis=1)
    rounded = keys[:, k - 1].view(np.float32)
    return np.nextafter(rounded, np.float32(np.inf)).astype(np.float64)


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
        cache are faster than one large matrix), counted in float64. :meth:`query_ties`,
        when most rows are exact in float32, computes float32 blocks of ``4 * block_bytes``
        (8 times as many queries as a float64 block): its one matrix product per block is
        most of its cost, and fewer, larger products are faster (on splice, query_ties takes
        13 % less time with 8 MiB blocks than with 2 MiB ones).
    check_input : bool, default=True
        Validate ``X`` (:func:`mixlib.core.validation.check_array`); ``False`` when the caller
        already did (the classifier), which saves a pass over ``X``.
    """

    def __init__(
        self, X: ArrayLike, metric: str = "euclidean", p: float = 2, block_bytes: int = 2**21,
        check_input: bool = True,
    ) -> None:
        self._exponent = _check_metric(metric, p)
        self.metric = metric
        self.p = p
        self.block_bytes = int(block_bytes)
        self.data_ = check_array(X) if check_input else X
        self._sq_norms = np.einsum("ij,ij->i", self.data_, self.data_)
        self._max_sq_norm = float(self._sq_norms.max())

    @cached_property
    def _exact_rows(self) -> np.ndarray:
        """Training rows exact in float32 (:func:`~mixlib.neighbors._common._exact_rows`
        with 24 bits: integer rows of small norm, one-hot ones)."""
        return _exact_rows(self.data_, 24, self._sq_norms)

    @cached_property
    def _integral(self) -> bool:
        """Whether every training row is exact in float32."""
        return bool(self._exact_rows.all())

    @cached_property
    def _single(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """float32 operands of the products between rows exact in float32, or ``None`` when
        they are fewer than half of the training rows (:meth:`_rounded_matrix`).

        Row ``z`` exact in float32 becomes ``[-2 z, 1, ||z||^2]`` (the others 0), so that
        the product with a query row ``[x, ||x||^2, 1]`` is ``||x - z||^2`` in one
        matrix product; also returns the positions of the other rows, those rows and their
        squared norms."""
        exact = self._exact_rows
        if 2 * exact.sum() < len(exact):
            return None
        n_features = self.data_.shape[1]
        single = np.empty((len(exact), n_features + 2), dtype=np.float32)
        with np.errstate(over="ignore"):  # the other rows are zeroed below
            np.multiply(self.data_, -2.0, out=single[:, :n_features], casting="same_kind")
            single[:, n_features + 1] = self._sq_norms
        single[:, n_features] = 1.0
        inexact = np.flatnonzero(~exact)
        single[inexact] = 0.0
        return single, inexact, self.data_[inexact], self._sq_norms[inexact]

    def _check_queries(self, X: ArrayLike, k: int) -> tuple[np.ndarray, int]:
        """Validated queries (as many features as the training rows) and ``k``."""
        X = check_array(X)
        if X.shape[1] != self.data_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, fitted on {self.data_.shape[1]}.")
        return X, _check_k(k, self.data_.shape[0])

    def _block_size(self, itemsize: int, budget: int) -> int:
        """Queries per block: at most ``budget`` bytes of distances to the training rows,
        each of ``itemsize`` bytes (8 for float64, 4 for the float32 products of
        :meth:`_rounded_matrix`)."""
        return max(1, budget // (itemsize * self.data_.shape[0]))

    def _distance_block(self, queries: np.ndarray) -> np.ndarray:
        """Distances of a block of queries to the training rows, float64: squared Euclidean
        ones through BLAS (:func:`mixlib.core.distances.squared_euclidean`), the other
        metrics' own through :func:`scipy.spatial.distance.cdist`."""
        if self.metric == "euclidean":
            return squared_euclidean(queries, self.data_, Y_sq=self._sq_norms)
        kwargs = {"p": self.p} if self.metric == "minkowski" else {}
        return cdist(queries, self.data_, metric=_CDIST_NAMES[self.metric], **kwargs)

    def _rounded_matrix(self, queries: np.ndarray, q_sq: np.ndarray,
                        exact: np.ndarray | None) -> np.ndarray:
        """Squared Euclidean distances of a block of queries, rounded to float32.

        ``D[i, j]`` is the float32 rounding of a value ``b_ij`` with ``|b_ij - d_ij^2|`` at most
        the error of :func:`mixlib.core.distances.squared_euclidean` in float64: a pair of rows
        exact in float32 (:func:`~mixlib.neighbors._common._exact_rows` with 24 bits, flagged
        by ``exact`` for the queries, whose squared norms are ``q_sq``) gets its exact value
        from one float32 product (half the cost of float64) ``[x, ||x||^2, 1] .
        [-2 z, 1, ||z||^2] = ||x - z||^2``: each of its terms and partial sums is an integer
        of magnitude at most ``2 (||x||^2 + ||z||^2) < 2**24``. The other pairs (the few
        non-integer rows of splice) get a float64 product. Without enough exact training rows
        (:attr:`_single` is ``None``, ``exact`` then ``None``), all pairs take the float64
        product.
        """
        if self._single is None:
            matrix = squared_euclidean(queries, self.data_, X_sq=q_sq, Y_sq=self._sq_norms)
            with np.errstate(over="ignore"):  # float32 roundings: inf beyond its range
                return matrix.astype(np.float32)
        train, inexact_cols, inexact_rows, inexact_sq = self._single
        n_features = queries.shape[1]
        single = np.empty((len(queries), n_features + 2), dtype=np.float32)
        inexact = np.flatnonzero(~exact)
        with np.errstate(over="ignore"):  # float32 roundings: inf beyond its range
            single[:, :n_features], single[:, n_features] = queries, q_sq
            single[:, n_features + 1] = 1.0
            single[inexact] = 0.0
            matrix = single @ train.T
            if inexact_cols.size:
                matrix[:, inexact_cols] = squared_euclidean(
                    queries, inexact_rows, X_sq=q_sq, Y_sq=inexact_sq)
            if inexact.size:
                matrix[inexact] = squared_euclidean(
                    queries[inexact], self.data_, X_sq=q_sq[inexact], Y_sq=self._sq_norms)
        return matrix

    def _exact_distances(
        self, queries: np.ndarray, exact_queries: np.ndarray | None, squares: np.ndarray,
        row: np.ndarray, col: np.ndarray,
    ) -> np.ndarray:
        """Euclidean distances of the pairs (``queries[row]``, ``data_[col]``), exact.

        ``squares`` holds the pairs' BLAS squared distances (float64, or float32 from
        :meth:`_rounded_matrix`), ``row`` and ``col`` are 1-d, ``exact_queries`` flags the
        queries whose values with the training rows exact in float32 are exact (``None``:
        none is). A pair of such rows keeps its BLAS value, which is exact; the other pairs
        are recomputed as ``sum_j (x_j - z_j)^2``. Either way the value is the one the
        recomputation of every pair would give, bit for bit, and the gather of
        ``n_features`` coordinates is paid only for the pairs that need it (on splice, 2 %
        of the candidates).
        """
        if exact_queries is None:
            return np.sqrt(_reduced_distances(_row_differences(queries, self.data_, row, col), 2.0))
        squares = squares.astype(np.float64)
        inexact = np.flatnonzero(~(exact_queries[row] & self._exact_rows[col]))
        if inexact.size:
            diff = _row_differences(queries, self.data_, row[inexact], col[inexact])
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
        return self._nearest(*self._check_queries(X, k), exact=exact)

    def _nearest(self, X: np.ndarray, k: int, exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`query` on validated queries and ``k``."""
        block, n_train = self._block_size(8, self.block_bytes), self.data_.shape[0]
        exact_queries = (_exact_rows(X, 24) if exact and self.metric == "euclidean"
                         else None)
        values = np.empty((X.shape[0], k))
        indices = np.empty((X.shape[0], k), dtype=np.intp)
        for lo in range(0, X.shape[0], block):
            queries = X[lo:lo + block]
            matrix = self._distance_block(queries)
            if k < n_train:
                nearest = np.argpartition(matrix, k - 1, axis=1)[:, :k]
            else:
                nearest = np.broadcast_to(np.arange(k), (len(queries), k))
            found = np.take_along_axis(matrix, nearest, axis=1)
            if exact_queries is not None:
                rows = np.repeat(np.arange(len(queries)), k)
                found = self._exact_distances(queries, exact_queries[lo:lo + block],
                                              found.ravel(), rows, nearest.ravel())
                found = found.reshape(nearest.shape)
            values[lo:lo + block] = found
            indices[lo:lo + block] = nearest
        if exact_queries is None and self.metric == "euclidean":
            values = np.sqrt(values)
        return _sort_neighbors(values, indices)

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
        those exact values (:func:`~mixlib.neighbors._common._tie_lists`), so the result is
        the one an exhaustive exact search gives. When every training row is an integer row,
        the band of an integer query row is 0.
        """
        X, k = self._check_queries(X, k)
        return self._nearest_ties(X, k, rtol)

    def _nearest_ties(self, X: np.ndarray, k: int,
                      rtol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`query_ties` on validated queries and ``k``."""
        if self.metric == "euclidean" and self._single is not None:
            block = self._block_size(4, 4 * self.block_bytes)
        else:
            block = self._block_size(8, self.block_bytes)
        parts = [self._candidates(X[lo:lo + block], k, rtol, lo)
                 for lo in range(0, X.shape[0], block)]
        row, col, values = (np.concatenate(p) for p in zip(*parts)) if len(parts) > 1 else parts[0]
        return _tie_lists(*_pad_rows(row, col, values, X.shape[0], np.nan), k, rtol)

    def _candidates(self, queries: np.ndarray, k: int, rtol: float,
                    offset: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of a block of queries (rows ``offset + i``) that may be within
        ``d_k (1 + rtol)``, ordered by (row, column), with its exact distance."""
        if self.metric != "euclidean":
            matrix = self._distance_block(queries)
            row, col, values = _pairs_below(matrix, _kth_upper_bound(matrix, k) * (1.0 + 4.0 * rtol))
            return row + offset, col, values
        q_sq = np.einsum("ij,ij->i", queries, queries)
        exact = None if self._single is None else _exact_rows(queries, 24, q_sq)
        matrix = self._rounded_matrix(queries, q_sq, exact)
        kth = _kth_upper_bound(matrix, k)
        band = (2.0 * (queries.shape[1] + 2) * _EPS) * (q_sq + self._max_sq_norm)
        if self._integral:
            band[exact] = 0.0  # every pair of these rows is exact
        limit = (kth + band) * (1.0 + 4.0 * rtol) + band
        with np.errstate(over="ignore"):  # monotone: b <= limit gives f32(b) <= f32(limit)
            limit = limit.astype(np.float32)
        row, col, squares = _pairs_below(matrix, limit)
        return row + offset, col, self._exact_distances(queries, exact, squares, row, col)
