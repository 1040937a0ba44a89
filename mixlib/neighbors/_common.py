"""Shared pieces of the k-NN searches: metric checks, reduced distances, neighbour lists."""

from __future__ import annotations

import math

import numpy as np

from mixlib.core.validation import check_choice, check_float, check_int

_METRICS = ("euclidean", "manhattan", "chebyshev", "minkowski")
_CDIST_NAMES = {"manhattan": "cityblock", "chebyshev": "chebyshev", "minkowski": "minkowski"}


def _check_metric(metric: str, p: float) -> float:
    """Validate ``metric``/``p`` and return the exponent of the reduced distance.

    The reduced distance is ``sum_j |x_j - z_j|^q`` (``q`` returned), or the maximum of the
    ``|x_j - z_j|`` for Chebyshev (``q = inf``); it orders points as the distance does.
    """
    check_choice(metric, "metric", _METRICS)
    if metric == "euclidean":
        return 2.0
    if metric == "manhattan":
        return 1.0
    if metric == "chebyshev":
        return math.inf
    check_float(p, "p", low=1, finite=False)
    return math.inf if p == math.inf else float(p)


def _check_k(k, n_train: int) -> int:
    check_int(k, "k", min_value=1)
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


def _row_differences(
    X: np.ndarray, Z: np.ndarray, row: np.ndarray, col: np.ndarray,
) -> np.ndarray:
    """Differences ``X[row] - Z[col]`` of pairs of rows, shape (n_pairs, n_features)
    (``numpy.take`` gathers rows about 3 times faster than fancy indexing on small arrays)."""
    return X.take(row, axis=0) - Z.take(col, axis=0)


def _pairs_below(matrix: np.ndarray, limit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(i, j)`` with ``matrix[i, j] <= limit[i]`` of a C-ordered 2-d ``matrix``, row
    by row (as ``numpy.nonzero`` gives them), and their values: through the flat positions
    ``f = i n + j`` (``n`` columns; ``i = f // n``, ``j = f - i n``), about 3 times faster
    than ``numpy.nonzero`` and a gather on a block of the distance matrix."""
    flat = np.flatnonzero(matrix <= limit[:, None])
    row = flat // matrix.shape[1]
    return row, flat - row * matrix.shape[1], matrix.ravel()[flat]


def _pad_rows(
    row: np.ndarray, index: np.ndarray, distance: np.ndarray, n_queries: int, fill: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Entries (query ``row``, training ``index``, ``distance``) grouped by increasing row as
    padded arrays of shape (n_queries, width), ``width`` the largest count of a row: row
    ``i`` holds its entries in their order, then distance ``fill`` and index 0 (entry ``e``
    goes to position ``row[e] * width + slot``, ``slot`` its rank within its row)."""
    counts = np.bincount(row, minlength=n_queries)
    width = int(counts.max(initial=1))
    flat = np.arange(row.shape[0]) + (row * width - (np.cumsum(counts) - counts)[row])
    distances = np.full(n_queries * width, fill)
    indices = np.zeros(n_queries * width, dtype=np.intp)
    distances[flat], indices[flat] = distance, index
    return distances.reshape(n_queries, width), indices.reshape(n_queries, width)


def _pack_neighbors(
    row: np.ndarray, index: np.ndarray, distance: np.ndarray, n_queries: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Variable-length neighbour lists (one entry per (query ``row``, training ``index``,
    ``distance``)) as padded arrays of shape (n_queries, width), each row sorted by
    distance then index (one lexsort of the entries by row, distance, index), padded with
    distance inf (index 0); plus the mask of the finite distances."""
    order = np.lexsort((index, distance, row))
    distances, indices = _pad_rows(row[order], index[order], distance[order], n_queries, np.inf)
    return distances, indices, np.isfinite(distances)


def _exact_rows(X: np.ndarray, bits: int, sq_norms: np.ndarray | None = None) -> np.ndarray:
    """Rows whose squared distances to one another are computed exactly in a floating-point
    format of ``bits`` significand bits (53: float64, 24: float32).

    Row ``x`` qualifies when every coordinate is an integer and ``4 ||x||^2 < 2**bits`` (one-hot
    rows do, for both formats). For two such rows ``x``, ``z`` the coordinates are
    representable, and every partial sum of ``x.z``, ``||x||^2``, ``||z||^2`` and of
    ``||x||^2 - 2 x.z + ||z||^2`` (or of ``sum_j (x_j - z_j)^2``) is an integer of magnitude at
    most ``2 (||x||^2 + ||z||^2) <= 4 max(||x||^2, ||z||^2) < 2**bits``, so both the BLAS
    formula and the coordinate differences give the exact value, bit for bit.
    ``sq_norms``: the rows' squared norms ``||x||^2``, when already computed.
    """
    if sq_norms is None:
        sq_norms = np.einsum("ij,ij->i", X, X)
    integral = np.all(X == np.round(X), axis=1)
    return integral & (4.0 * sq_norms < 2.0**bits)


def _sort_neighbors(distances: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row by increasing distance, then by increasing index (ties)."""
    order = np.lexsort((indices, distances), axis=-1)
    return (np.take_along_axis(distances, order, axis=1), np.take_along_axis(indices, order, axis=1))


def _tie_lists(
    distances: np.ndarray, indices: np.ndarray, k: int, rtol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` nearest points of each query and every point tied with the k-th, from its
    candidates.

    Row ``i`` of ``distances`` and ``indices`` (n_queries, n_candidates) holds the exact
    distances and training indices of the candidates of query ``i`` in increasing index
    order, padded with NaN; the candidates include the ``k`` nearest points. With ``d_(k)``
    the k-th smallest distance of the row, the points kept are those with
    ``d <= r = d_(k) (1 + rtol)``, sorted by distance, then index (a stable sort of the
    row), in padded arrays of the largest count's width (distance ``inf``, index 0), with
    the mask of the finite distances.
    """
    radius = np.partition(distances, k - 1, axis=1)[:, k - 1] * (1.0 + rtol)
    kept = distances <= radius[:, None]  # NaN padding is never kept
    counts = kept.sum(axis=1)
    width = int(counts.max())
    masked = np.where(kept, distances, np.nan)  # sorted last
    flat = np.argsort(masked, axis=1, kind="stable")[:, :width]
    flat += np.arange(0, masked.size, masked.shape[1])[:, None]
    distances, indices = masked.ravel()[flat], indices.ravel()[flat]
    dropped = np.arange(width) >= counts[:, None]
    distances[dropped], indices[dropped] = np.inf, 0
    return distances, indices, np.isfinite(distances)
