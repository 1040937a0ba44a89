"""k-nearest neighbours: a kd-tree, brute-force search through BLAS, and a k-NN classifier.

The kd-tree follows the course notes (seed 002, section 1.1): each internal node holds the
training point whose coordinate along the splitting axis is the median of its subset, the axis
cycles with the depth (``axis = depth mod n_features``), points on the lower side go to the
left subtree and the others to the right one. The k-NN search keeps a bounded max-priority
queue of the ``k`` best candidates and visits the far subtree of a node only when the queue is
not full or when its largest distance exceeds the distance ``|a_j - b_j|`` of the query to the
splitting hyperplane (the notes' pruning rule). The tree is stored in flat arrays (one entry
per node), and small subsets become leaf buckets searched with one vectorised distance
computation.
"""

from __future__ import annotations

import heapq
import math
import numbers

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from mixlib._base import BaseEstimator, ClassifierMixin
from mixlib._distances import squared_euclidean
from mixlib._validation import check_array, check_is_fitted, check_sample_weight, check_X_y

__all__ = ["KDTree", "BruteForceNeighbors", "KNeighborsClassifier", "default_n_neighbors"]

_METRICS = ("euclidean", "manhattan", "chebyshev", "minkowski")
# Relative tolerance under which two distances count as tied (ties="all" of the classifier):
# far above the rounding of a distance computed from coordinate differences.
_TIE_RTOL = 1e-12
_NODE_FIELDS = ("start", "end", "axis", "pivot", "split", "left", "right")
_CDIST_NAMES = {"manhattan": "cityblock", "chebyshev": "chebyshev", "minkowski": "minkowski"}


def _check_metric(metric: str, p: float) -> float:
    """Validate ``metric``/``p`` and return the exponent of the reduced distance.

    The reduced distance is ``sum_j |x_j - z_j|^q`` (``q`` returned), or the maximum of the
    ``|x_j - z_j|`` for Chebyshev (``q = inf``); it orders points as the distance does.
    """
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {_METRICS}, got {metric!r}.")
    if metric == "euclidean":
        return 2.0
    if metric == "manhattan":
        return 1.0
    if metric == "chebyshev":
        return math.inf
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or not p >= 1:
        raise ValueError(f"p must be a real number >= 1 for the Minkowski metric, got {p!r}.")
    return math.inf if p == math.inf else float(p)


def _check_k(k, n_train: int) -> int:
    if not isinstance(k, numbers.Integral) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}.")
    if k > n_train:
        raise ValueError(f"k={k} exceeds the number of training points ({n_train}).")
    return int(k)


def _reduced_to_distance(reduced: np.ndarray, exponent: float) -> np.ndarray:
    """Distance from reduced distance: ``r^(1/q)`` (identity for Chebyshev/Manhattan)."""
    if exponent in (1.0, math.inf):
        return reduced
    if exponent == 2.0:
        return np.sqrt(reduced)
    return np.power(reduced, 1.0 / exponent)


def _reduced_distances(diff: np.ndarray, exponent: float) -> np.ndarray:
    """Reduced distances of the difference vectors ``diff`` (..., n_features) over the last axis."""
    if exponent == 2.0:
        return np.einsum("...j,...j->...", diff, diff)
    absolute = np.abs(diff)
    if exponent == math.inf:
        return absolute.max(axis=-1)
    if exponent == 1.0:
        return absolute.sum(axis=-1)
    return np.power(absolute, exponent).sum(axis=-1)


def _pack_neighbors(
    row: np.ndarray, index: np.ndarray, distance: np.ndarray, n_queries: int,
    grouped: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Variable-length neighbour lists (one entry per (query ``row``, training ``index``,
    ``distance``)) as padded arrays of shape (n_queries, width), each row sorted by
    distance then index, padded with distance inf; plus the mask of the real entries.

    ``grouped``: the entries are already ordered by (row, index), as ``numpy.nonzero``
    gives them; otherwise they are sorted so first. A stable sort of each padded row by
    distance then keeps equal distances in index order."""
    if not grouped:
        order = np.lexsort((index, row))
        row, index, distance = row[order], index[order], distance[order]
    counts = np.bincount(row, minlength=n_queries)
    slot = np.arange(row.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
    distances = np.full((n_queries, int(counts.max(initial=1))), np.inf)
    indices = np.zeros(distances.shape, dtype=np.intp)
    distances[row, slot], indices[row, slot] = distance, index
    order = np.argsort(distances, axis=1, kind="stable")
    distances = np.take_along_axis(distances, order, axis=1)
    indices = np.take_along_axis(indices, order, axis=1)
    return distances, indices, np.isfinite(distances)


def _is_integral(X: np.ndarray, other_sq_norm: float) -> bool:
    """Whether squared distances between the rows of ``X`` and points of squared norm at most
    ``other_sq_norm`` (integer coordinates too) are computed exactly in floating point: every
    coordinate an integer and ``4 max(||x||^2, other)`` below ``2**53`` (one-hot data)."""
    if not np.array_equal(X, np.round(X)):
        return False
    largest = float(np.einsum("ij,ij->i", X, X).max(initial=0.0))
    return 4.0 * max(largest, other_sq_norm) < 2.0**53


def _sort_neighbors(distances: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row by increasing distance, then by increasing index (ties)."""
    order = np.lexsort((indices, distances), axis=-1)
    return (np.take_along_axis(distances, order, axis=1), np.take_along_axis(indices, order, axis=1))


class KDTree:
    """kd-tree with median splits along cycling coordinates (seed 002, section 1.1).

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

    def __init__(self, X: ArrayLike, leaf_size: int = 30, metric: str = "euclidean", p: float = 2) -> None:
        if not isinstance(leaf_size, numbers.Integral) or isinstance(leaf_size, bool) or leaf_size < 1:
            raise ValueError(f"leaf_size must be a positive int, got {leaf_size!r}.")
        self._exponent = _check_metric(metric, p)
        self.leaf_size = int(leaf_size)
        self.metric = metric
        self.p = p
        X = check_array(X)
        self._build(X)

    def _build(self, X: np.ndarray) -> None:
        """Median splits, depth first, into the flat node arrays (node 0 is the root)."""
        n_samples, n_features = X.shape
        index = np.arange(n_samples)
        columns: dict[str, list] = {name: [] for name in _NODE_FIELDS}

        def new_node(lo: int, hi: int) -> int:
            values = {"start": lo, "end": hi, "axis": -1, "pivot": -1, "split": np.nan,
                      "left": -1, "right": -1}
            for name, value in values.items():
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
            index[lo:hi] = block[np.argpartition(X[block, j], size // 2)]
            mid = lo + size // 2
            columns["axis"][node], columns["pivot"][node] = j, mid
            columns["split"][node] = float(X[index[mid], j])
            for child_lo, child_hi, side in ((lo, mid, "left"), (mid + 1, hi, "right")):
                if child_hi > child_lo:
                    columns[side][node] = child = new_node(child_lo, child_hi)
                    stack.append((child, child_lo, child_hi, depth + 1))
        self.index_ = index
        self.data_ = np.ascontiguousarray(X[index])
        for name, values in columns.items():
            dtype = np.float64 if name == "split" else np.intp
            setattr(self, f"node_{name}_", np.asarray(values, dtype=dtype))
        # Python lists of the same arrays: scalar access in the traversal is much faster.
        self._lists = tuple(columns[name] for name in _NODE_FIELDS)
        self._rows = list(self.data_)
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
        self._sq_norms = np.einsum("ij,ij->i", self.data_, self.data_)
        self._integral = _is_integral(self.data_, 0.0)

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
        distances of the ``k`` found are finally recomputed from coordinate differences.
        Among training points exactly as far as the k-th neighbour, the search keeps some of
        them (which ones depends on the visiting order), so under exact ties the returned
        set can differ from brute force. :meth:`query_trace` follows the notes' one-query,
        depth-first search step by step.
        """
        X = check_array(X)
        if X.shape[1] != self.data_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, the tree was built on {self.data_.shape[1]}.")
        k = _check_k(k, self.data_.shape[0])
        return self._query(X, k, self._leaf_bounds(X))

    def _leaf_bounds(self, X: np.ndarray) -> np.ndarray:
        """Reduced distance from every query to every bucket's bounding box: shape
        (n_queries, n_leaves)."""
        bounds = np.empty((X.shape[0], self._leaf_start.shape[0]))
        for leaf in range(self._leaf_start.shape[0]):
            gap = np.maximum(self._leaf_low[leaf] - X, 0.0)
            gap += np.maximum(X - self._leaf_high[leaf], 0.0)
            bounds[:, leaf] = _reduced_distances(gap, self._exponent)
        return bounds

    def _query(self, X: np.ndarray, k: int, bounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`query` on validated ``X``, with the :meth:`_leaf_bounds` of its rows."""
        n_queries = X.shape[0]
        best = np.full((n_queries, k), np.inf)
        where = np.zeros((n_queries, k), dtype=np.intp)
        exact_blas = self._integral and _is_integral(X, float(self._sq_norms.max(initial=0)))
        q_sq = np.einsum("ij,ij->i", X, X)

        def scan(queries: np.ndarray, positions: np.ndarray) -> None:
            points = self.data_[positions]
            if self._exponent == 2.0:  # ||q||^2 - 2 q.z + ||z||^2 through BLAS
                reduced = X[queries] @ points.T
                reduced *= -2.0
                reduced += q_sq[queries, None]
                reduced += self._sq_norms[positions]
                np.maximum(reduced, 0.0, out=reduced)
            else:
                reduced = _reduced_distances(X[queries, None, :] - points, self._exponent)
            merged = np.concatenate((best[queries], reduced), axis=1)
            merged_at = np.concatenate(
                (where[queries], np.broadcast_to(positions, reduced.shape)), axis=1)
            keep = np.argpartition(merged, k - 1, axis=1)[:, :k]
            best[queries] = np.take_along_axis(merged, keep, axis=1)
            where[queries] = np.take_along_axis(merged_at, keep, axis=1)

        everyone = np.arange(n_queries)
        if self._pivots.size:
            scan(everyone, self._pivots)
        own = self._own_leaf(X)
        order = np.argsort(own, kind="stable")
        edges = np.searchsorted(own[order], np.arange(self._leaf_start.shape[0] + 1))
        for leaf in np.flatnonzero(np.diff(edges)):
            scan(order[edges[leaf]:edges[leaf + 1]],
                 np.arange(self._leaf_start[leaf], self._leaf_end[leaf]))
        slack = 0.0 if exact_blas or self._exponent != 2.0 else 1e-12
        for leaf in range(self._leaf_start.shape[0]):
            worst = best.max(axis=1)
            active = np.flatnonzero((bounds[:, leaf] * (1.0 - slack) < worst) & (own != leaf))
            if active.size:
                scan(active, np.arange(self._leaf_start[leaf], self._leaf_end[leaf]))
        if not exact_blas:  # integer data: the BLAS values are exact already
            best = _reduced_distances(X[:, None, :] - self.data_[where], self._exponent)
        return _sort_neighbors(_reduced_to_distance(best, self._exponent), self.index_[where])

    def query_ties(self, X: ArrayLike, k: int, rtol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``k`` nearest training points plus every point tied with the k-th.

        Same contract as :meth:`BruteForceNeighbors.query_ties`: after :meth:`query`, one
        more pass over the buckets collects, for every query, all the points within
        ``d_k (1 + rtol)``, examining a bucket only when its bounding box is that close.
        """
        X = check_array(X)
        if X.shape[1] != self.data_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, the tree was built on {self.data_.shape[1]}.")
        k = _check_k(k, self.data_.shape[0])
        bounds = self._leaf_bounds(X)
        distances, _ = self._query(X, k, bounds)
        radius = distances[:, k - 1] * (1.0 + rtol)
        reach = radius ** 2 if self._exponent == 2.0 else (
            radius if self._exponent in (1.0, math.inf) else radius ** self._exponent)
        exact_blas = self._integral and _is_integral(X, float(self._sq_norms.max(initial=0)))
        slack = 0.0 if exact_blas or self._exponent != 2.0 else 1e-10
        found = []

        def collect(queries: np.ndarray, positions: np.ndarray) -> None:
            points = self.data_[positions]
            if self._exponent == 2.0:
                reduced = squared_euclidean(X[queries], points, Y_sq=self._sq_norms[positions])
            else:
                reduced = _reduced_distances(X[queries, None, :] - points, self._exponent)
            i, j = np.nonzero(reduced <= (reach[queries] * (1.0 + slack) + slack)[:, None])
            found.append((queries[i], positions[j]))

        if self._pivots.size:
            collect(np.arange(X.shape[0]), self._pivots)
        for leaf in range(self._leaf_start.shape[0]):
            active = np.flatnonzero(bounds[:, leaf] <= reach)
            if active.size:
                collect(active, np.arange(self._leaf_start[leaf], self._leaf_end[leaf]))
        row, pos = (np.concatenate(p) for p in zip(*found))
        values = _reduced_to_distance(
            _reduced_distances(X[row] - self.data_[pos], self._exponent), self._exponent)
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
        """Detail the search of one query, as asked by the exercise of seed 002 (example 3).

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


class BruteForceNeighbors:
    """Exhaustive k-NN search: one distance matrix per block of queries.

    Euclidean distances come from :func:`mixlib._distances.squared_euclidean` (one BLAS matrix
    product per block), the ``k`` smallest of each row are selected with ``numpy.argpartition``
    (linear time, the partial sort of the notes), then, with ``exact=True``, recomputed from the
    coordinate differences, so the returned distances carry no cancellation error. Other
    metrics use :func:`scipy.spatial.distance.cdist`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    metric : {"euclidean", "manhattan", "chebyshev", "minkowski"}, default="euclidean"
    p : float, default=2
    block_bytes : int, default=2**21
        Memory budget of one block of the distance matrix (2 MiB: blocks that stay in the
        cache are faster than one large matrix).
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
        self._max_sq_norm = float(self._sq_norms.max(initial=0.0))
        self._integral = _is_integral(self.data_, 0.0)

    def query(self, X: ArrayLike, k: int = 1, exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest training points of each row of ``X``, as :meth:`KDTree.query`.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
        k : int, default=1
        exact : bool, default=True
            Recompute the Euclidean distances of the selected neighbours from the coordinate
            differences (costs a gather of ``n_queries * k * n_features`` values, often more
            than the matrix product). ``False`` returns the BLAS values, whose absolute error
            is about ``1e-16 (||x||^2 + ||z||^2)`` on the squared distance.

        Returns
        -------
        distances, indices : ndarray of shape (n_queries, k)
            Sorted by increasing distance, ties by increasing training index.
        """
        X = check_array(X)
        train = self.data_
        if X.shape[1] != train.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, fitted on {train.shape[1]}.")
        k = _check_k(k, train.shape[0])
        block = max(1, self.block_bytes // (8 * train.shape[0]))
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
                values = np.sqrt(_reduced_distances(queries[:, None, :] - train[nearest], 2.0))
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
        One distance matrix per block of queries, as :meth:`query`; the k-th value of each
        row is read with ``numpy.partition``. Euclidean distances from BLAS carry an error
        of at most about ``(n_features + 2) eps (||x||^2 + ||z||^2)`` on their squares, so
        every point whose BLAS value is within twice that bound of the k-th (widened by
        ``rtol``) is a candidate; the candidates' distances are recomputed from coordinate
        differences, and the k-th and the ties are decided on those exact values, so the
        result is the one an exhaustive exact search gives. When every coordinate is an
        integer (one-hot data) and the sums stay below ``2**53``, the BLAS values are exact
        and are used as they are.
        """
        X = check_array(X)
        train = self.data_
        if X.shape[1] != train.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, fitted on {train.shape[1]}.")
        k = _check_k(k, train.shape[0])
        block = max(1, self.block_bytes // (8 * train.shape[0]))
        parts = []
        for lo in range(0, X.shape[0], block):
            queries = X[lo:lo + block]
            if self.metric == "euclidean":
                matrix = squared_euclidean(queries, train, Y_sq=self._sq_norms)
                kth = np.partition(matrix, k - 1, axis=1)[:, k - 1]
                q_sq = np.einsum("ij,ij->i", queries, queries)
                band = 2.0 * (train.shape[1] + 2) * np.finfo(float).eps * (
                    q_sq + self._sq_norms.max())
                if self._integral and _is_integral(queries, self._max_sq_norm):
                    band[:] = 0.0  # integer sums below 2**53: BLAS is exact
                limit = (kth + band) * (1.0 + 4.0 * rtol) + band
                row, col = np.nonzero(matrix <= limit[:, None])
                if band.any():
                    values = np.sqrt(_reduced_distances(queries[row] - train[col], 2.0))
                else:
                    values = np.sqrt(matrix[row, col])
            else:
                kwargs = {"p": self.p} if self.metric == "minkowski" else {}
                matrix = cdist(queries, train, metric=_CDIST_NAMES[self.metric], **kwargs)
                kth = np.partition(matrix, k - 1, axis=1)[:, k - 1]
                row, col = np.nonzero(matrix <= (kth * (1.0 + 4.0 * rtol))[:, None])
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


def default_n_neighbors(n_samples: int) -> int:
    """The odd ``k`` nearest to ``sqrt(n_samples)`` (seed 002, remark 2).

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
    """k-nearest-neighbour classifier (seed 002, section 1).

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
        neighbours, Gaussian data, fit + predict): brute force was faster in every case
        tried, from 2000 to 300000 points in 2 to 16 dimensions (e.g. 20000 points, 3
        features, 500 queries: brute 0.04 s, kd-tree 0.15 s; 300000 points, 2 features,
        5000 queries: 12.3 s against 14.7 s): the batched kd-tree prunes well in low
        dimension but pays a Python-level step per bucket, while brute force is one BLAS
        product per cache-sized block. ``"kd_tree"`` remains available (and is the notes'
        structure); see also ``benchmarks/bench_neighbors.py``.
    leaf_size : int, default=30
        Leaf bucket size of the kd-tree.
    ties : {"all", "index"}, default="all"
        Training points exactly as far as the k-th neighbour: ``"all"`` lets every one of them
        vote (so more than ``k`` points may vote; the result does not depend on the order of
        the training rows nor on the search algorithm), ``"index"`` keeps the lowest training
        indices up to ``k`` (``KDTree`` keeps the first met instead). Such ties are the rule on
        one-hot data (most splice queries have one at the k-th distance).

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
    deterministic alternative to the random draw of seed 002, remark 1.
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
            Multiplies the vote of each training point.
        """
        X, y = check_X_y(X, y)
        if self.weights not in ("uniform", "distance"):
            raise ValueError(f"weights must be 'uniform' or 'distance', got {self.weights!r}.")
        if self.ties not in ("all", "index"):
            raise ValueError(f"ties must be 'all' or 'index', got {self.ties!r}.")
        if self.algorithm not in ("auto", "kd_tree", "brute"):
            raise ValueError(f"algorithm must be 'auto', 'kd_tree' or 'brute', got {self.algorithm!r}.")
        _check_metric(self.metric, self.p)
        n_samples = X.shape[0]
        k = default_n_neighbors(n_samples) if self.n_neighbors is None else self.n_neighbors
        self.n_neighbors_ = _check_k(k, n_samples)
        self.classes_, self._y_codes = np.unique(y, return_inverse=True)
        self._sample_weight = check_sample_weight(sample_weight, n_samples)
        if self.algorithm == "kd_tree":
            self.index_ = KDTree(X, leaf_size=self.leaf_size, metric=self.metric, p=self.p)
        else:
            self.index_ = BruteForceNeighbors(X, metric=self.metric, p=self.p)
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
        check_is_fitted(self, "index_")
        return self.index_.query(X, self.n_neighbors_)

    def _query(self, X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(self.index_, BruteForceNeighbors):
            # Uniform votes under ties="index" only need the order of the distances: skip the
            # exact recomputation; ties="all" compares distances, so it needs them exact.
            exact = self.weights == "distance" or self.ties == "all"
            return self.index_.query(X, k, exact=exact)
        return self.index_.query(X, k)

    def _voters(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Neighbours that vote: distances, indices and mask, each (n_queries, width).

        With ``ties="all"`` the search structure returns the ``k`` nearest plus every point
        tied with the k-th (``query_ties``: one distance matrix per block for brute force, a
        radius pass over the buckets for the kd-tree); ``mask`` selects the real entries.
        """
        check_is_fitted(self, "index_")
        X = check_array(X)
        k = self.n_neighbors_
        if self.ties == "all":
            return self.index_.query_ties(X, k, _TIE_RTOL)
        distances, indices = self._query(X, k)
        return distances, indices, np.ones(distances.shape, dtype=bool)

    def _votes(self, X: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Vote matrix (n_queries, n_classes), voter class codes and mask (n_queries, width)."""
        distances, indices, mask = self._voters(X)
        weight = self._sample_weight[indices] * mask
        if self.weights == "distance":
            exact = (distances == 0.0) & mask
            has_exact = exact.any(axis=1, keepdims=True)
            inverse = np.divide(1.0, distances, out=np.zeros_like(distances), where=mask & ~exact)
            weight = weight * np.where(has_exact, exact.astype(float), inverse)
        codes = self._y_codes[indices]
        n_classes = len(self.classes_)
        cells = (np.arange(len(codes))[:, None] * n_classes + codes).ravel()
        votes = np.bincount(cells, weight.ravel(), minlength=len(codes) * n_classes)
        return votes.reshape(len(codes), n_classes), codes, mask

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Share of the (weighted) vote of each class, shape (n_queries, n_classes)."""
        votes, _, _ = self._votes(X)
        total = votes.sum(axis=1, keepdims=True)
        return np.divide(votes, total, out=np.full_like(votes, 1.0 / votes.shape[1]), where=total > 0)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Majority class of the neighbours, ties broken by the nearest tied neighbour."""
        votes, codes, mask = self._votes(X)
        best = votes.max(axis=1, keepdims=True)
        tied = votes >= best - 1e-12 * np.abs(best)
        rows = np.arange(len(codes))[:, None]
        first = np.argmax(tied[rows, codes] & mask, axis=1)
        return self.classes_[codes[np.arange(len(codes)), first]]
