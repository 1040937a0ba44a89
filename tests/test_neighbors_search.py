"""Exactness of the k-NN searches' internals: brute force by blocks of candidates, the kd-tree's
batched search, against straightforward exhaustive computations, bit for bit."""

import numpy as np
import pytest

from mixlib.core.distances import squared_euclidean
from mixlib.neighbors import kd_tree
from mixlib.neighbors._brute import _kth_upper_bound
from mixlib.neighbors._common import _pack_neighbors, _pad_rows, _tie_lists
from mixlib.neighbors.knn import BruteForceNeighbors, KDTree

RTOL = 1e-12


def _one_hot_mixed(seed, n_train=160, n_queries=37):
    """One-hot rows (6 four-letter positions) where some rows spread a position over 2, 3 or
    4 letters (0.5, 1/3, 0.25: splice's ambiguous bases), in both sets, and duplicated
    rows: ties at every distance, pairs exact in float32 and pairs that are not."""
    rng = np.random.default_rng(seed)

    def rows(n):
        X = np.eye(4)[rng.integers(0, 4, size=(n, 6))].reshape(n, 24)
        for i in rng.choice(n, size=n // 8, replace=False):
            letters = rng.choice(4, size=rng.integers(2, 5), replace=False)
            X[i, :4] = 0.0
            X[i, letters] = 1.0 / len(letters)
        return X

    X = rows(n_train)
    X[-10:] = X[:10]
    return X, rows(n_queries)


def _integer_grid(seed):
    """Small integer points with duplicates (zero distances, many ties), exact in float32."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(150, 3)).astype(float)
    return np.vstack([X, X[:20]]), rng.integers(0, 4, size=(31, 3)).astype(float)


def _continuous(seed):
    """Gaussian points: no row exact in float32, every candidate is recomputed."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(170, 5)), rng.normal(size=(33, 5))


DATA = {"one_hot_mixed": _one_hot_mixed, "integer_grid": _integer_grid,
        "continuous": _continuous}


def _exhaustive_ties(X, Q, k, rtol=RTOL):
    """The padded output of query_ties by exhaustive search: exact distances from coordinate
    differences, every point within (1 + rtol) of the k-th, sorted by (distance, index)."""
    diff = Q[:, None, :] - X[None, :, :]
    exact = np.sqrt(np.einsum("...j,...j->...", diff, diff))
    kth = np.sort(exact, axis=1)[:, k - 1] * (1 + rtol)
    lists = [np.flatnonzero(row <= bound) for row, bound in zip(exact, kth)]
    lists = [points[np.lexsort((points, row[points]))] for points, row in zip(lists, exact)]
    width = max(len(points) for points in lists)
    distances = np.full((len(Q), width), np.inf)
    indices = np.zeros((len(Q), width), dtype=np.intp)
    for i, points in enumerate(lists):
        distances[i, :len(points)], indices[i, :len(points)] = exact[i, points], points
    return distances, indices, np.isfinite(distances)


def _assert_same_arrays(got, expected):
    for a, b in zip(got, expected):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("block_bytes", [2**21, 3000])
def test_brute_ties_are_the_exhaustive_search(data, block_bytes):
    """query_ties gives the exhaustive search's lists bit for bit (padding included), with
    one block or many (3000 bytes: 2 to 18 queries per block, a shorter last block)."""
    X, Q = DATA[data](0)
    searcher = BruteForceNeighbors(X, block_bytes=block_bytes)
    if data == "one_hot_mixed":
        assert searcher._single is not None and not searcher._exact_rows.all()
    for k in (1, 6, 23):
        _assert_same_arrays(searcher.query_ties(Q, k, RTOL), _exhaustive_ties(X, Q, k))


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("leaf_size", [1, 6, 40])
def test_kdtree_ties_are_the_exhaustive_search(data, leaf_size):
    """The kd-tree's query_ties (exact values kept for pairs of integer rows, the others
    recomputed) gives the exhaustive search's lists bit for bit; query the k smallest
    distances (up to the rounding by which its selection may order near ties)."""
    X, Q = DATA[data](1)
    tree = KDTree(X, leaf_size)
    for k in (1, 6, 23):
        expected = _exhaustive_ties(X, Q, k)
        _assert_same_arrays(tree.query_ties(Q, k, RTOL), expected)
        distances, _ = tree.query(Q, k)
        np.testing.assert_allclose(distances, expected[0][:, :k], rtol=1e-15, atol=0)


def test_brute_float32_product_is_exact_for_integer_rows():
    """The float32 product [x, ||x||^2, 1] . [-2 z, 1, ||z||^2] gives the exact squared
    distance of integer rows up to the 2**24 bound; the other pairs the float64 value."""
    rng = np.random.default_rng(2)
    X = rng.integers(-1400, 1400, size=(60, 2)).astype(float)
    X[:5] = [[2047, 0], [0, -2047], [1447, 1447], [-1447, 1447], [5, 5.5]]  # 4||x||^2 < 2**24
    Q = np.vstack([rng.integers(-1400, 1400, size=(20, 2)), [[2047, 1], [0.5, 3]]])
    searcher = BruteForceNeighbors(X)
    q_sq = np.einsum("ij,ij->i", Q, Q)
    exact = ~np.isin(np.arange(len(Q)), [20, 21])  # [2047, 1] is beyond the bound
    matrix = searcher._rounded_matrix(Q, q_sq, exact)
    integer = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)  # exact: small integers
    pairs = exact[:, None] & searcher._exact_rows[None, :]
    assert matrix.dtype == np.float32 and pairs.sum() > 1000
    np.testing.assert_array_equal(matrix[pairs], integer[pairs])
    blas = squared_euclidean(Q, X).astype(np.float32)
    np.testing.assert_allclose(matrix[~pairs], blas[~pairs], rtol=1e-6)


def test_kth_upper_bound_through_uint32_keys():
    """The bound is the next float32 above the float32 k-th value, for values that float32
    rounds down, zeros (also -0.0), infinities and NaN of either sign (ordered last, as
    numpy sorts)."""
    rng = np.random.default_rng(3)
    matrix = rng.integers(0, 10**9, size=(40, 30)).astype(float)
    matrix[:5, :8] = 0.0
    matrix[5:10, :8] = -0.0
    matrix[10:15, 3:] = np.inf
    matrix[15:20, 1:] = np.nan
    matrix[17:20, 1:] = -np.nan  # the sign bit set, as inf - inf gives it
    matrix[20:25] = 1e39  # beyond float32: the bound is inf
    for k in (1, 2, 9, 30):
        with np.errstate(over="ignore"):
            rounded = np.sort(matrix.astype(np.float32), axis=1)[:, k - 1]
            bound = _kth_upper_bound(matrix, k)
        expected = np.nextafter(rounded, np.float32(np.inf)).astype(float)
        np.testing.assert_array_equal(bound, expected)
        kth = np.sort(matrix, axis=1)[:, k - 1]
        assert (bound >= kth)[~np.isnan(kth)].all()
    assert (_kth_upper_bound(matrix[20:25], 1) == np.inf).all()


def _assert_rows(result, expected):
    """``result`` (distances, indices, mask) holds the rows ``expected`` (values, points),
    padded with (inf, 0) to the longest row, the mask flagging the finite distances."""
    distances, indices, mask = result
    assert distances.shape == indices.shape == (len(expected), max(len(v) for v, _ in expected))
    for i, (values, points) in enumerate(expected):
        n = len(values)
        np.testing.assert_array_equal(distances[i, :n], values)
        np.testing.assert_array_equal(indices[i, :n], points)
        assert (distances[i, n:] == np.inf).all() and (indices[i, n:] == 0).all()
    np.testing.assert_array_equal(mask, np.isfinite(distances))


def _entries(seed, n_queries=9):
    """Entries (row, index, distance) grouped by row, indices increasing within a row,
    distances with ties everywhere, and a row of infinite distances."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(5, 15, size=n_queries)
    row = np.repeat(np.arange(n_queries), counts)
    index = np.concatenate([np.sort(rng.choice(50, c, replace=False)) for c in counts])
    distance = rng.integers(0, 4, size=row.size).astype(float)
    distance[row == 3] = np.inf
    return row, index, distance


def test_tie_lists_are_each_rows_ties_sorted():
    """_tie_lists (k-th of each padded row, ties within 1 + rtol, stable sort) keeps each
    row's points within (1 + rtol) of its k-th, sorted by (distance, index)."""
    row, index, distance = _entries(4)
    n_queries = row[-1] + 1
    candidates = _pad_rows(row, index, distance, n_queries, np.nan)
    assert np.isnan(candidates[0]).any()
    expected = []
    for i in range(n_queries):
        values, points = distance[row == i], index[row == i]
        kept = values <= np.sort(values)[3] * (1 + RTOL)
        order = np.lexsort((points[kept], values[kept]))
        expected.append((values[kept][order], points[kept][order]))
    _assert_rows(_tie_lists(*candidates, 4, RTOL), expected)


def test_pack_neighbors_sorts_unordered_entries():
    """_pack_neighbors (one lexsort by row, distance, index) lists each row's entries by
    (distance, index), whatever their order."""
    row, index, distance = _entries(5)
    shuffle = np.random.default_rng(5).permutation(row.size)
    expected = [(distance[row == i][order], index[row == i][order])
                for i in range(row[-1] + 1)
                for order in [np.lexsort((index[row == i], distance[row == i]))]]
    _assert_rows(_pack_neighbors(row[shuffle], index[shuffle], distance[shuffle], row[-1] + 1),
                 expected)


def test_leaf_bounds_by_chunks_are_the_box_distances(monkeypatch):
    """The reduced distance to each bucket's box, x - clip(x, l, h), is the notes'
    sum_j (max(l_j - x_j, 0) + max(x_j - h_j, 0))^q bit for bit, whatever the number of
    buckets handled at once."""
    rng = np.random.default_rng(5)
    X, Q = rng.normal(size=(200, 4)), rng.normal(size=(25, 4)) * 2
    for metric, p in (("euclidean", 2), ("manhattan", 1), ("minkowski", 3)):
        tree = KDTree(X, leaf_size=7, metric=metric, p=p)
        gap = (np.maximum(tree._leaf_low[:, None, :] - Q, 0.0)
               + np.maximum(Q - tree._leaf_high[:, None, :], 0.0))
        expected = (np.einsum("...j,...j->...", gap, gap) if p == 2
                    else np.power(gap, p).sum(axis=-1))
        for budget in (1, 3 * Q.nbytes, 2**21):  # one bucket, three, all at once
            monkeypatch.setattr(kd_tree, "_BOUND_BYTES", budget)
            np.testing.assert_array_equal(tree._leaf_bounds(Q), expected)


def test_brute_inexact_query_is_the_blockwise_blas_selection():
    """query(exact=False), the classifier's search for uniform votes with ties="index", keeps
    its definition: per block of block_bytes of float64 distances, the k smallest
    squared_euclidean values (numpy.argpartition), their square roots, sorted."""
    rng = np.random.default_rng(6)
    X, Q = rng.normal(size=(300, 7)), rng.normal(size=(50, 7))
    searcher = BruteForceNeighbors(X, block_bytes=8 * 300 * 9)  # 9 queries per block
    distances, indices = [], []
    for lo in range(0, len(Q), 9):
        matrix = squared_euclidean(Q[lo:lo + 9], X)
        nearest = np.argpartition(matrix, 4, axis=1)[:, :5]
        values = np.sqrt(np.take_along_axis(matrix, nearest, axis=1))
        order = np.lexsort((nearest, values), axis=-1)
        distances.append(np.take_along_axis(values, order, axis=1))
        indices.append(np.take_along_axis(nearest, order, axis=1))
    _assert_same_arrays(searcher.query(Q, 5, exact=False), (np.vstack(distances),
                                                             np.vstack(indices)))


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_structures_trust_the_classifier_checked_input(algorithm):
    """check_input=False (the classifier) skips a second validation and changes nothing;
    the default still rejects what check_array rejects."""
    X, Q = _one_hot_mixed(7)
    Structure = BruteForceNeighbors if algorithm == "brute" else KDTree
    _assert_same_arrays(Structure(X, check_input=False).query_ties(Q, 5, RTOL),
                        Structure(X).query_ties(Q, 5, RTOL))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        Structure(bad)
