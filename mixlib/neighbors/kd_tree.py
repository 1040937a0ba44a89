"""kd-tree of the supervised-learning notes (section 1.1), searched in batches.

Each internal node holds the training point whose coordinate along the splitting axis is the
median of its subset, the axis cycles with the depth (``axis = depth mod n_features``), points
on the lower side go to the left subtree and the others to the right one. The tree is stored
in flat arrays (one entry per node) and small subsets become leaf buckets. The k-NN search
keeps, for every query, a bounded queue of its ``k`` best candidates and examines a bucket
only when the queue is not full or its largest distance exceeds the distance to the bucket
(the notes' pruning rule, with the bucket's bounding box); :meth:`KDTree.query_trace` follows
the notes' one-query depth-first search step by step.
"""

from __future__ import annotations

import heapq
import math
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from mixlib.core.distances import squared_euclidean
from mixlib.neighbors._common import (
    _check_k,
    _check_metric,
    _exact_rows,
    _pack_neighbors,
    _pairs_below,
    _reduced_distances,
    _reduced_to_distance,
    _row_differences,
    _sort_neighbors,
)
from mixlib.core.validation import check_array, check_int

_NODE_FIELDS = ("start", "end", "axis", "pivot", "split", "left", "right")
# Memory for the gaps from the queries to a few buckets' boxes at once (KDTree._leaf_bounds).
_BOUND_BYTES = 2**21


def _rows(a: np.ndarray, queries: slice | np.ndarray) -> np.ndarray:
    """``a[queries]`` along the first axis: ``a`` itself for ``slice(None)`` (every query),
    else through ``numpy.take`` (about 3 times faster than fancy indexing on small arrays)."""
    return a[queries] if isinstance(queries, slice) else a.take(queries, axis=0)


class KDTree:
    """kd-tree with median splits along cycling coordinates (supervised-learning notes, section 1.1).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training points (finite).
    leaf_size : int, default=30
        A subset of at most ``leaf_size`` points becomes a leaf bucket. With ``leaf_size=1``
        every training point is the pivot of a node, exactly as in the course notes.
    metric : {"euclidean", "manhattan", "chebyshev", "minkowski"}, default="euclidean"
    p : float, default=2
        Exponent of the Minkowski metric (used only when ``metric="minkowski"``).
    check_input : bool, default=True
        Validate ``X`` (:func:`mixlib.core.validation.check_array`); ``False`` when the caller
        already did (the classifier), which saves a pass over ``X``.

    Attributes
    ----------
    data_ : ndarray of shape (n_samples, n_features)
        The training points in tree order (``data_[i] = X[index_[i]]``), so every node covers a
        contiguous block ``data_[node_start_[v]:node_end_[v]]``.
    index_ : ndarray of shape (n_samples,)
        Original row of each position of ``data_``.
    node_start_, node_end_ : ndarray of shape (n_nodes,)
        Block of positions covered by node ``v`` (pivot and both subtrees).
    node_axis_ : ndarray of shape (n_nodes,)
        Splitting coordinate ``depth mod n_features`` of an internal node, -1 for a leaf.
    node_pivot_ : ndarray of shape (n_nodes,)
        Position (in ``data_``) of the node's median point, -1 for a leaf.
    node_split_ : ndarray of shape (n_nodes,)
        Coordinate ``b_j`` of the median point along ``node_axis_`` (NaN for a leaf).
    node_left_, node_right_ : ndarray of shape (n_nodes,)
        Children (node ids, -1 for an empty subtree). The root is node 0.

    Notes
    -----
    At a node covering ``m`` points along axis ``j`` the pivot is the point of rank
    ``floor(m / 2)`` (0-based) in the ordering of ``x_j``, i.e. the upper median when ``m`` is
    even; the ``floor(m / 2)`` points before it (``x_j <= b_j``) form the left subtree and the
    rest (``x_j >= b_j``) the right one. Building costs ``O(n log n)`` on average thanks to
    linear-time selection (``numpy.argpartition``).
    """

    def __init__(self, X: ArrayLike, leaf_size: int = 30, metric: str = "euclidean", p: float = 2,
                 check_input: bool = True) -> None:
        check_int(leaf_size, "leaf_size", min_value=1)
        self._exponent = _check_metric(metric, p)
        self.leaf_size = int(leaf_size)
        self.metric = metric
        self.p = p
        self._build(check_array(X) if check_input else X)

    def _build(self, X: np.ndarray) -> None:
        """Median splits, depth first, into the flat node arrays (node 0 is the root)."""
        n_samples, n_features = X.shape
        index = np.arange(n_samples)
        columns: dict[str, list] = {name: [] for name in _NODE_FIELDS}

        def new_node(lo: int, hi: int) -> int:
            for name, value in zip(_NODE_FIELDS, (lo, hi, -1, -1, np.nan, -1, -1)):
                columns[name].append(value)
            return len(columns["start"]) - 1

        stack = [(new_node(0, n_samples), 0, n_samples, 0)]  # (node, start, end, depth)
        while stack:
            node, lo, hi, depth = stack.pop()
            size = hi - lo
            if size <= self.leaf_size:
                continue  # leaf bucket
            j = depth % n_features
            block = index[lo:hi]
            index[lo:hi] = block.take(np.argpartition(X[:, j].take(block), size // 2))
            mid = lo + size // 2
            columns["axis"][node], columns["pivot"][node] = j, mid
            columns["split"][node] = float(X[index[mid], j])
            for child_lo, child_hi, side in ((lo, mid, "left"), (mid + 1, hi, "right")):
                if child_hi > child_lo:
                    columns[side][node] = child = new_node(child_lo, child_hi)
                    stack.append((child, child_lo, child_hi, depth + 1))
        self.index_ = index
        self.data_ = X.take(index, axis=0)
        for name, values in columns.items():
            dtype = np.float64 if name == "split" else np.intp
            setattr(self, f"node_{name}_", np.asarray(values, dtype=dtype))
        # Python lists of the same arrays: scalar access in the traversal is much faster.
        self._lists = tuple(columns[name] for name in _NODE_FIELDS)
        # Leaf buckets, in tree order, with their bounding boxes (for the batch search).
        leaves = np.flatnonzero(self.node_axis_ < 0)
        self._leaves = leaves[np.argsort(self.node_start_[leaves])]  # in the order of data_
        self._leaf_start = self.node_start_[self._leaves]
        self._leaf_end = self.node_end_[self._leaves]
        edges = np.stack((self._leaf_start, self._leaf_end), axis=1).ravel()
        padded = np.vstack((self.data_, self.data_[:1]))  # an end may be n_samples
        self._leaf_low = np.minimum.reduceat(padded, edges, axis=0)[::2]
        self._leaf_high = np.maximum.reduceat(padded, edges, axis=0)[::2]
        self._pivots = self.node_pivot_[self.node_pivot_ >= 0]
        self._positions = np.arange(n_samples)
        self._sq_norms = np.einsum("ij,ij->i", self.data_, self.data_)
        self._exact_rows = _exact_rows(self.data_, 53, self._sq_norms)
        self._integral = bool(self._exact_rows.all())

    @cached_property
    def _rows(self) -> list[np.ndarray]:
        """The rows of ``data_`` as a Python list (scalar access in :meth:`_search` is faster)."""
        return list(self.data_)

    @property
    def n_nodes(self) -> int:
        """Number of nodes of the tree."""
        return len(self.node_start_)

    def _search(self, x: np.ndarray, k: int, trace: list | None = None) -> list[tuple[float, int]]:
        """k-NN search of one query ``x`` (n_features,); returns the heap of (-reduced, -pos).

        Implements ``Explore``/``Traiter`` of the notes; ``trace`` (if given) receives the
        positions of the points examined, in order.
        """
        start, end, axis, pivot, split, left, right = self._lists
        rows, data, exponent = self._rows, self.data_, self._exponent
        heap: list[tuple[float, int]] = []  # max-heap of the k best: (-reduced distance, -pos)
        xs = x.tolist()

        def process(pos: int) -> None:  # Traiter(z)
            diff = rows[pos] - x
            reduced = float(_reduced_distances(diff, exponent))
            if trace is not None:
                trace.append(pos)
            if len(heap) < k:
                heapq.heappush(heap, (-reduced, -pos))
            elif reduced < -heap[0][0]:
                heapq.heapreplace(heap, (-reduced, -pos))

        def explore(node: int) -> None:  # Explore(A, p)
            j = axis[node]
            if j < 0:  # leaf bucket: all its distances at once
                lo, hi = start[node], end[node]
                reduced = _reduced_distances(data[lo:hi] - x, exponent)
                if trace is not None:
                    trace.extend(range(lo, hi))
                offsets = range(hi - lo)
                if len(heap) == k:  # only points closer than the current k-th can enter
                    offsets = np.flatnonzero(reduced < -heap[0][0]).tolist()
                for offset in offsets:
                    value = float(reduced[offset])
                    if len(heap) < k:
                        heapq.heappush(heap, (-value, -(lo + offset)))
                    elif value < -heap[0][0]:
                        heapq.heapreplace(heap, (-value, -(lo + offset)))
                return
            pos = pivot[node]
            process(pos)
            gap = xs[j] - split[node]
            near, far = (left[node], right[node]) if gap <= 0 else (right[node], left[node])
            if near >= 0:
                explore(near)
            if far >= 0:
                plane = abs(gap) if exponent in (1.0, math.inf) else abs(gap) ** exponent
                if len(heap) < k or -heap[0][0] > plane:
                    explore(far)

        explore(0)
        return heap

    def query(self, X: ArrayLike, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest training points of each row of ``X``, all queries at once.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        k : int, default=1

        Returns
        -------
        distances : ndarray of shape (n_queries, k)
            Sorted increasingly (ties by increasing training index).
        indices : ndarray of shape (n_queries, k)
            Rows of the training ``X``.

        Notes
        -----
        The search of the notes, batched over the queries: every query keeps its bounded
        queue of the ``k`` best candidates (an array; its largest reduced distance
        ``r_k``, infinite while it holds fewer than ``k``), and a leaf bucket is examined
        only when the queue is not full or ``r_k`` exceeds the reduced distance from the
        query to the bucket's bounding box (a bound at least as tight as the distance to
        the splitting hyperplane of the notes' pruning rule). The pivots of the internal
        nodes are examined first, then each query's own bucket (reached by descending the
        tree), then the other buckets in tree order; a bucket is scanned for all the
        queries that need it with one distance computation (one matrix product for the
        Euclidean metric) and merged into their queues with ``numpy.argpartition``. The
        distances of the ``k`` found are finally made exact: recomputed from coordinate
        differences, unless both rows are integer rows (their BLAS value is exact then).
        Among training points exactly as far as the k-th neighbour, the search keeps some of
        them (which ones depends on the visiting order), so under exact ties the returned
        set can differ from brute force. :meth:`query_trace` follows the notes' one-query,
        depth-first search step by step.
        """
        return self._nearest(*self._check_queries(X, k))

    def _check_queries(self, X: ArrayLike, k: int) -> tuple[np.ndarray, int]:
        """Validated queries (as many features as the training rows) and ``k``."""
        X = check_array(X)
        if X.shape[1] != self.data_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, the tree was built on {self.data_.shape[1]}.")
        return X, _check_k(k, self.data_.shape[0])

    def _nearest(self, X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`query` on validated queries and ``k``."""
        best, where = self._k_best(X, k, self._leaf_bounds(X), self._exact_queries(X))
        return _sort_neighbors(_reduced_to_distance(best, self._exponent), self.index_[where])

    def _exact_queries(self, X: np.ndarray) -> np.ndarray | None:
        """The queries exact in float64 (:func:`~mixlib.neighbors._common._exact_rows`, 53
        bits), or ``None`` when no training row is (no pair is exact then)."""
        return _exact_rows(X, 53) if self._exact_rows.any() else None

    def _leaf_bounds(self, X: np.ndarray) -> np.ndarray:
        """Reduced distance from every query to every bucket's bounding box: shape
        (n_leaves, n_queries).

        Along coordinate ``j`` the gap from ``x`` to the box ``[l_j, h_j]`` is
        ``x_j - clip(x_j, l_j, h_j)`` (``l_j - x_j`` below the box up to its sign, ``x_j - h_j``
        above it, 0 inside); the reduced distance of the gaps is the bound. Buckets are
        handled a few at a time, as many as fit a (n_buckets, n_queries, n_features) array of
        ``_BOUND_BYTES``.
        """
        n_leaves = self._leaf_start.shape[0]
        bounds = np.empty((n_leaves, X.shape[0]))
        step = max(1, _BOUND_BYTES // (8 * X.size))
        for lo in range(0, n_leaves, step):
            gap = np.clip(X, self._leaf_low[lo:lo + step, None], self._leaf_high[lo:lo + step, None])
            np.subtract(X, gap, out=gap)
            bounds[lo:lo + step] = _reduced_distances(gap, self._exponent)
        return bounds

    def _reduced_block(self, X: np.ndarray, q_sq: np.ndarray,
                       positions: slice | np.ndarray) -> np.ndarray:
        """Reduced distances from the queries ``X`` (squared norms ``q_sq``) to the points
        ``data_[positions]``: Euclidean ones ``||x||^2 - 2 x.z + ||z||^2`` through BLAS
        (:func:`mixlib.core.distances.squared_euclidean`), the others from the coordinate
        differences."""
        points = self.data_[positions]
        if self._exponent == 2.0:
            return squared_euclidean(X, points, X_sq=q_sq, Y_sq=self._sq_norms[positions])
        return _reduced_distances(X[:, None, :] - points, self._exponent)

    def _k_best(
        self, X: np.ndarray, k: int, bounds: np.ndarray, exact_queries: np.ndarray | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Reduced distances of the ``k`` nearest points of each query, exact, and their
        positions in ``data_``, each (n_queries, k), unsorted: the search of :meth:`query`.

        ``bounds``: :meth:`_leaf_bounds` of the queries; ``exact_queries``: their
        :meth:`_exact_queries`. A bucket is scanned for every query that needs it at once
        (``slice(None)`` when all do: no copy of the queries). After a scan, the largest
        reduced distance of each queue is its k-th column (``numpy.argpartition`` puts it
        there). The values found are made exact at the end (:meth:`_exact_values`), unless
        all are exact already (integer rows).
        """
        n_queries = X.shape[0]
        best = np.full((n_queries, k), np.inf)
        where = np.zeros((n_queries, k), dtype=np.intp)
        q_sq = np.einsum("ij,ij->i", X, X)

        def scan(queries: slice | np.ndarray, positions: slice | np.ndarray) -> None:
            reduced = self._reduced_block(_rows(X, queries), _rows(q_sq, queries), positions)
            merged = np.concatenate((_rows(best, queries), reduced), axis=1)
            merged_at = np.empty(merged.shape, dtype=np.intp)
            merged_at[:, :k] = _rows(where, queries)
            merged_at[:, k:] = self._positions[positions]
            keep = np.argpartition(merged, k - 1, axis=1)[:, :k]
            keep += np.arange(0, merged.size, merged.shape[1])[:, None]  # flat positions
            best[queries] = merged.ravel()[keep]
            where[queries] = merged_at.ravel()[keep]

        if self._pivots.size:
            scan(slice(None), self._pivots)
        own = self._own_leaf(X)
        order = np.argsort(own, kind="stable")
        edges = np.searchsorted(own[order], np.arange(self._leaf_start.shape[0] + 1))
        for leaf in np.flatnonzero(np.diff(edges)):
            scan(order[edges[leaf]:edges[leaf + 1]],
                 slice(self._leaf_start[leaf], self._leaf_end[leaf]))
        exact_blas = self._integral and bool(exact_queries.all())  # then not None
        slack = 0.0 if exact_blas or self._exponent != 2.0 else 1e-12
        worst = best[:, k - 1]  # a view: each queue's largest value, kept up to date by scan
        for leaf in range(self._leaf_start.shape[0]):
            active = np.flatnonzero((bounds[leaf] * (1.0 - slack) < worst) & (own != leaf))
            if active.size:
                scan(slice(None) if active.size == n_queries else active,
                     slice(self._leaf_start[leaf], self._leaf_end[leaf]))
        if not exact_blas:  # every BLAS value is exact otherwise
            row = np.repeat(np.arange(n_queries), k)
            best = self._exact_values(X, exact_queries, row, where.ravel(), best.ravel())
        return best.reshape(n_queries, k), where

    def _exact_values(
        self, X: np.ndarray, exact_queries: np.ndarray | None, row: np.ndarray, pos: np.ndarray,
        values: np.ndarray,
    ) -> np.ndarray:
        """Reduced distances of the pairs (``X[row]``, ``data_[pos]``), exact, from their
        computed ``values`` (1-d): a finite Euclidean BLAS value of two rows exact in float64
        (``exact_queries``, ``_exact_rows``) is kept, as it is exact; every other value is
        recomputed from the coordinate differences."""
        if self._exponent != 2.0 or exact_queries is None:
            return _reduced_distances(_row_differences(X, self.data_, row, pos), self._exponent)
        redo = np.flatnonzero(~(exact_queries[row] & self._exact_rows[pos]) | ~np.isfinite(values))
        values[redo] = _reduced_distances(_row_differences(X, self.data_, row[redo], pos[redo]), 2.0)
        return values

    def query_ties(self, X: ArrayLike, k: int, rtol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``k`` nearest training points plus every point tied with the k-th.

        Same contract as :meth:`BruteForceNeighbors.query_ties`: after :meth:`query`, one
        more pass over the buckets collects, for every query, all the points within
        ``d_k (1 + rtol)``, examining a bucket only when its bounding box is that close.
        """
        return self._nearest_ties(*self._check_queries(X, k), rtol)

    def _nearest_ties(self, X: np.ndarray, k: int,
                      rtol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`query_ties` on validated queries and ``k``.

        The k-th distance is the largest of the ``k`` found by :meth:`_k_best`; the values
        of the points collected are made exact by :meth:`_exact_values`.
        """
        bounds = self._leaf_bounds(X)
        exact_queries = self._exact_queries(X)
        best, _ = self._k_best(X, k, bounds, exact_queries)
        radius = _reduced_to_distance(best, self._exponent).max(axis=1) * (1.0 + rtol)
        reach = radius ** 2 if self._exponent == 2.0 else (
            radius if self._exponent in (1.0, math.inf) else radius ** self._exponent)
        exact_blas = self._integral and bool(exact_queries.all())
        slack = 0.0 if exact_blas or self._exponent != 2.0 else 1e-10
        q_sq = np.einsum("ij,ij->i", X, X)
        limit = reach * (1.0 + slack) + slack
        found = []

        def collect(queries: slice | np.ndarray, positions: slice | np.ndarray) -> None:
            reduced = self._reduced_block(_rows(X, queries), _rows(q_sq, queries), positions)
            i, j, values = _pairs_below(reduced, _rows(limit, queries))
            found.append((i if isinstance(queries, slice) else queries[i],
                          self._positions[positions][j], values))

        if self._pivots.size:
            collect(slice(None), self._pivots)
        for leaf in range(self._leaf_start.shape[0]):
            active = np.flatnonzero(bounds[leaf] <= reach)
            if active.size:
                collect(slice(None) if active.size == X.shape[0] else active,
                        slice(self._leaf_start[leaf], self._leaf_end[leaf]))
        row, pos, values = (np.concatenate(p) for p in zip(*found))
        values = _reduced_to_distance(
            self._exact_values(X, exact_queries, row, pos, values), self._exponent)
        keep = values <= radius[row]
        return _pack_neighbors(row[keep], self.index_[pos[keep]], values[keep], X.shape[0])

    def _own_leaf(self, X: np.ndarray) -> np.ndarray:
        """Leaf bucket (its rank among the leaves, in the order of ``data_``) each query
        descends to."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        inner = self.node_axis_[node] >= 0
        while inner.any():
            r, v = rows[inner], node[inner]
            lower = X[r, self.node_axis_[v]] <= self.node_split_[v]
            child = np.where(lower, self.node_left_[v], self.node_right_[v])
            missing = child < 0  # empty side: the other child exists
            child[missing] = np.where(lower, self.node_right_[v], self.node_left_[v])[missing]
            node[r] = child
            inner[r] = self.node_axis_[child] >= 0
        rank = np.empty(self.n_nodes, dtype=np.intp)
        rank[self._leaves] = np.arange(self._leaves.shape[0])
        return rank[node]

    def query_trace(self, x: ArrayLike, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Detail the search of one query, as asked by the exercise of the supervised-learning notes (example 3).

        Parameters
        ----------
        x : array-like of shape (n_features,)
        k : int, default=1

        Returns
        -------
        examined : ndarray of shape (n_examined,)
            Training rows whose distance was computed, in the order of the search.
        neighbors : ndarray of shape (k,)
            Training rows of the ``k`` nearest neighbours, nearest first.
        """
        x = check_array(np.atleast_2d(x))[0]
        k = _check_k(k, self.data_.shape[0])
        trace: list[int] = []
        heap = self._search(x, k, trace)
        best = sorted((-r, self.index_[-pos]) for r, pos in heap)
        return self.index_[np.asarray(trace, dtype=np.intp)], np.array([i for _, i in best])
