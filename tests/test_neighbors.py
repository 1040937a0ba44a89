"""kd-tree, brute-force search and k-NN classifier: against scipy/scikit-learn and the supervised-learning notes."""

import math

import numpy as np
import pytest
from scipy.spatial import cKDTree
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier as SkKNeighborsClassifier

from mixlib.core.exceptions import NotFittedError
from mixlib.core.distances import squared_euclidean
from mixlib.neighbors._common import _exact_rows
from mixlib.neighbors.knn import BruteForceNeighbors, KDTree, KNeighborsClassifier, default_n_neighbors

METRICS = [("euclidean", 2), ("manhattan", 1), ("chebyshev", math.inf), ("minkowski", 3)]

# Seed 002, example 3: x_1 .. x_10 (row i is x_{i+1}).
SEED_POINTS = np.array([
    [11, 0.5], [8.5, 6], [7, 8.5], [9, 4], [15, 1.5],
    [14.5, 8], [3.5, 7], [3, 2.5], [14, 5.5], [2, 5],
])


def _nested(tree: KDTree, node: int = 0):
    """(label of the node's point, left, right) with labels 1..10 as in the notes."""
    if node < 0:
        return None
    if tree.node_axis_[node] < 0:  # leaf_size=1: a single point
        assert tree.node_end_[node] - tree.node_start_[node] == 1
        return (int(tree.index_[tree.node_start_[node]]) + 1, None, None)
    label = int(tree.index_[tree.node_pivot_[node]]) + 1
    return (label, _nested(tree, tree.node_left_[node]), _nested(tree, tree.node_right_[node]))


def test_seed_example_tree_structure():
    """Median splits alternating x / y give the tree of the exercise (upper median when even)."""
    tree = KDTree(SEED_POINTS, leaf_size=1)
    expected = (
        4,  # x = 9 is the median (rank 5 of 0..9) of the abscissae
        (2, (8, (10, None, None), None), (3, (7, None, None), None)),  # split on y = 6
        (9, (5, (1, None, None), None), (6, None, None)),  # split on y = 5.5
    )
    assert _nested(tree) == expected
    internal = tree.node_axis_ >= 0
    assert tree.n_nodes == 10 and internal.sum() == 6


@pytest.mark.parametrize(
    ("query", "examined", "neighbours"),
    [
        # x = (4, 5): after the left subtree the queue holds x_10 (d^2 = 4) and x_7 (4.25);
        # the plane x = 9 is at distance 5 > 2.06, so the right subtree is pruned.
        ((4, 5), [4, 2, 8, 10, 3, 7], [10, 7]),
        # y = (8, 1): the root's right subtree must be visited (plane x = 9 at distance 1),
        # x_1 replaces x_2, then the plane y = 5.5 (distance 4.5 > sqrt(10)) prunes x_6.
        ((8, 1), [4, 2, 8, 10, 3, 7, 9, 5, 1], [1, 4]),
    ],
)
def test_seed_example_search_trace(query, examined, neighbours):
    """The 2-NN searches of the exercise, detailed by hand with the notes' pruning rule."""
    tree = KDTree(SEED_POINTS, leaf_size=1)
    order, found = tree.query_trace(query, k=2)
    assert (order + 1).tolist() == examined
    assert (found + 1).tolist() == neighbours


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("leaf_size", [1, 7])
@pytest.mark.parametrize(("metric", "p"), METRICS)
def test_kdtree_matches_ckdtree(seed, leaf_size, metric, p):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 3)) * [1.0, 3.0, 0.5]
    Q = rng.normal(size=(60, 3)) * 2.0
    k = 5
    expected_d, expected_i = cKDTree(X).query(Q, k=k, p=p)
    for searcher in (KDTree(X, leaf_size, metric=metric, p=p), BruteForceNeighbors(X, metric=metric, p=p)):
        distances, indices = searcher.query(Q, k)
        np.testing.assert_allclose(distances, expected_d, rtol=1e-13, atol=0)
        # Continuous data: all distances distinct, so the indices must agree exactly.
        assert (np.diff(expected_d, axis=1) > 0).all()
        np.testing.assert_array_equal(indices, expected_i)
    if metric == "euclidean":  # the BLAS distances, without the exact recomputation
        distances, indices = BruteForceNeighbors(X).query(Q, k, exact=False)
        np.testing.assert_allclose(distances, expected_d, rtol=1e-7)
        np.testing.assert_array_equal(indices, expected_i)


@pytest.mark.parametrize(("metric", "p"), METRICS)
def test_kdtree_with_ties_returns_valid_neighbours(metric, p):
    """On an integer grid (many equidistant points) the k distances still equal scipy's."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(200, 2)).astype(float)
    Q = rng.integers(0, 4, size=(30, 2)) + 0.5
    expected_d, _ = cKDTree(X).query(Q, k=6, p=p)
    for searcher in (KDTree(X, 4, metric=metric, p=p), BruteForceNeighbors(X, metric=metric, p=p)):
        distances, indices = searcher.query(Q, 6)
        np.testing.assert_allclose(distances, expected_d, rtol=1e-13)
        assert all(len(set(row)) == 6 for row in indices.tolist())
        diff = np.abs(X[indices] - Q[:, None, :])
        np.testing.assert_allclose(np.linalg.norm(diff, ord=p, axis=2), distances, rtol=1e-13)


def test_tree_invariants_and_pruning():
    """Every internal node splits its block at the median along axis depth mod d; the search
    of a low-dimensional query examines only a small part of the points."""
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(2000, 2))
    tree = KDTree(X, leaf_size=5)
    stack = [(0, 0)]
    while stack:
        node, depth = stack.pop()
        lo, hi = tree.node_start_[node], tree.node_end_[node]
        if tree.node_axis_[node] < 0:
            assert hi - lo <= 5
            continue
        j = tree.node_axis_[node]
        assert j == depth % 2
        mid = tree.node_pivot_[node]
        assert mid == lo + (hi - lo) // 2
        split = tree.data_[mid, j]
        assert (tree.data_[lo:mid, j] <= split).all() and (tree.data_[mid + 1:hi, j] >= split).all()
        for child, c_lo, c_hi in ((tree.node_left_[node], lo, mid), (tree.node_right_[node], mid + 1, hi)):
            if c_hi > c_lo:
                assert (tree.node_start_[child], tree.node_end_[child]) == (c_lo, c_hi)
                stack.append((child, depth + 1))
            else:
                assert child == -1
    np.testing.assert_array_equal(tree.data_, X[tree.index_])
    examined, _ = tree.query_trace([0.5, 0.5], k=3)
    assert len(examined) < 100


def test_query_validation():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="k=11 exceeds"):
        KDTree(X).query(X, 11)
    with pytest.raises(ValueError, match="metric must be one of"):
        BruteForceNeighbors(X, metric="cosine")
    with pytest.raises(ValueError, match="p must be a float >= 1, got 0.5"):
        KDTree(X, metric="minkowski", p=0.5)
    with pytest.raises(ValueError, match="leaf_size must be an int >= 1"):
        KDTree(X, leaf_size=0)
    with pytest.raises(ValueError, match="X has 3 features"):
        KDTree(X).query(np.zeros((1, 3)))


def test_default_n_neighbors_is_the_nearest_odd_to_sqrt_n():
    for n in range(1, 2000):
        k = default_n_neighbors(n)
        assert k % 2 == 1 and k <= n
        best = min(range(1, n + 2, 2), key=lambda odd: abs(odd - math.sqrt(n)))
        assert abs(k - math.sqrt(n)) == pytest.approx(abs(best - math.sqrt(n)))


def _blobs(seed, n=240, n_classes=3, d=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.normal(size=(n, d)) + 1.5 * rng.normal(size=(n_classes, d))[y]
    labels = np.array(["alpha", "beta", "gamma", "delta"])[:n_classes]
    return X, labels[y], rng.normal(size=(80, d)) * 1.5


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize(("metric", "p"), METRICS[:3])
def test_classifier_matches_sklearn(seed, algorithm, weights, metric, p):
    X, y, Q = _blobs(seed)
    ours = KNeighborsClassifier(n_neighbors=7, weights=weights, metric=metric, p=p, algorithm=algorithm)
    ours.fit(X, y)
    sk_metric = {"euclidean": "euclidean", "manhattan": "manhattan", "chebyshev": "chebyshev"}[metric]
    theirs = SkKNeighborsClassifier(n_neighbors=7, weights=weights, metric=sk_metric, algorithm="brute")
    theirs.fit(X, y)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    proba = ours.predict_proba(Q)
    # equal vote shares, but for the 1e-9 lead of the predicted class among tied ones
    np.testing.assert_allclose(proba, theirs.predict_proba(Q), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(ours.classes_[proba.argmax(axis=1)], ours.predict(Q))
    top_two = np.sort(proba, axis=1)[:, -2:]
    tie_free = top_two[:, 1] - top_two[:, 0] > 1e-6
    assert tie_free.sum() > 60
    np.testing.assert_allclose(proba[tie_free], theirs.predict_proba(Q)[tie_free], rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_array_equal(ours.predict(Q)[tie_free], theirs.predict(Q)[tie_free])


def test_default_k_and_auto_algorithm():
    X, y, Q = _blobs(2, n=150)
    model = KNeighborsClassifier().fit(X, y)
    assert model.n_neighbors_ == 13  # sqrt(150) = 12.2
    assert isinstance(model.index_, BruteForceNeighbors)
    theirs = SkKNeighborsClassifier(n_neighbors=13).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(Q), theirs.predict_proba(Q))
    many = np.random.default_rng(2).normal(size=(16384, 2))
    labels = np.where(many[:, 0] > 0, "right", "left")
    assert isinstance(KNeighborsClassifier().fit(many, labels).index_, BruteForceNeighbors)
    tree = KNeighborsClassifier(algorithm="kd_tree").fit(many, labels)
    assert isinstance(tree.index_, KDTree)
    np.testing.assert_array_equal(tree.predict(many[:200]),
                                  KNeighborsClassifier().fit(many, labels).predict(many[:200]))


def test_tie_break_takes_the_nearest_tied_neighbour():
    # k=2 on the line: neighbours of 0.2 are 0 ('b', distance 0.2) and 0.5 ('a', 0.3): a tie,
    # broken for 'b' (scikit-learn would take the first class, 'a').
    X = np.array([[0.0], [0.5], [1.0]])
    y = np.array(["b", "a", "c"])
    assert KNeighborsClassifier(n_neighbors=2).fit(X, y).predict([[0.2]]).tolist() == ["b"]
    # k=5: votes a:2, b:2, c:1; the nearest point is 'c' (not tied), the next one 'b'.
    X = np.array([[0.0], [0.1], [0.2], [0.3], [0.4], [0.5]])
    y = np.array(["c", "b", "a", "a", "b", "c"])
    assert KNeighborsClassifier(n_neighbors=5).fit(X, y).predict([[0.0]]).tolist() == ["b"]


def test_points_tied_with_the_kth_neighbour_all_vote():
    # k=3 around 0: 'a' at 0.1 and 0.2, then three 'b' at distance 1 (one of them duplicated).
    X = np.array([[0.1], [0.2], [-1.0], [1.0], [1.0]])
    y = np.array(["a", "a", "b", "b", "b"])
    all_ties = KNeighborsClassifier(n_neighbors=3, ties="all").fit(X, y)
    np.testing.assert_allclose(all_ties.predict_proba([[0.0]]), [[0.4, 0.6]])
    assert all_ties.predict([[0.0]]).tolist() == ["b"]
    by_index = KNeighborsClassifier(n_neighbors=3, ties="index", algorithm="brute").fit(X, y)
    np.testing.assert_allclose(by_index.predict_proba([[0.0]]), [[2 / 3, 1 / 3]])


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_all_ties_rule_ignores_row_order_and_algorithm(weights):
    """On one-hot data most queries have ties at the k-th distance; with ties="all" the votes
    depend neither on the order of the training rows nor on the search structure."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 4, size=(150, 6))
    X = np.eye(4)[codes].reshape(150, 24)
    y = np.where(codes[:, 0] + rng.integers(0, 2, 150) > 2, "hi", "lo")
    Q = np.eye(4)[rng.integers(0, 4, size=(40, 6))].reshape(40, 24)
    reference = KNeighborsClassifier(9, weights=weights, algorithm="brute").fit(X, y)
    _, indices, mask, _ = reference._voters(Q)
    assert (mask.sum(axis=1) > 9).mean() > 0.5  # ties are frequent here
    expected = reference._votes(Q)[0]
    order = rng.permutation(150)
    for algorithm, rows in (("kd_tree", np.arange(150)), ("brute", order), ("kd_tree", order)):
        model = KNeighborsClassifier(9, weights=weights, algorithm=algorithm, leaf_size=4).fit(X[rows], y[rows])
        np.testing.assert_allclose(model._votes(Q)[0], expected, rtol=1e-12)
        # the shares, but for the 1e-9 lead of the class predict picks among tied ones
        np.testing.assert_allclose(model.predict_proba(Q), reference.predict_proba(Q), atol=1e-9)


def test_distance_weights_exact_match_and_sample_weight():
    X, y, _ = _blobs(5, n=60)
    model = KNeighborsClassifier(n_neighbors=5, weights="distance").fit(X, y)
    proba = model.predict_proba(X)  # each point is at distance 0 of itself only
    np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)], y)
    np.testing.assert_array_equal(proba.max(axis=1), 1.0)


@pytest.mark.parametrize("ties", ["all", "index"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("n_neighbors", [None, 4, 9])
def test_integer_sample_weights_are_repeated_rows(ties, weights, n_neighbors):
    X, y, Q = _blobs(8, n=50)
    count = np.random.default_rng(8).integers(0, 4, size=50)
    count[0] = 1
    weighted = KNeighborsClassifier(n_neighbors, weights=weights, ties=ties)
    weighted.fit(X, y, sample_weight=count)
    repeated = KNeighborsClassifier(n_neighbors, weights=weights, ties=ties)
    repeated.fit(np.repeat(X, count, axis=0), np.repeat(y, count))
    assert weighted.n_neighbors_ == repeated.n_neighbors_
    np.testing.assert_allclose(weighted.predict_proba(Q), repeated.predict_proba(Q), rtol=1e-12)
    np.testing.assert_array_equal(weighted.predict(Q), repeated.predict(Q))


def test_fractional_sample_weights_fill_k_hand_worked():
    # On the line, from 0: 'a' (weight 0.5), 'b' at 1 (1), 'b' at 2 (1), 'a' at 3 (2); k=2
    # is reached at the point at 2, which counts 0.5 under ties="index" and fully under "all".
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["a", "b", "b", "a"])
    weight = np.array([0.5, 1.0, 1.0, 2.0])
    by_index = KNeighborsClassifier(2, ties="index").fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(by_index.predict_proba([[0.0]]), [[0.25, 0.75]])
    all_ties = KNeighborsClassifier(2, ties="all").fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(all_ties.predict_proba([[0.0]]), [[0.2, 0.8]])
    # the default k comes from the total weight 4.5, rounded down: the odd k nearest sqrt(4)
    assert KNeighborsClassifier().fit(X, y, sample_weight=weight).n_neighbors_ == 3
    with pytest.raises(ValueError, match="n_neighbors=5 exceeds the total sample weight"):
        KNeighborsClassifier(5).fit(X, y, sample_weight=weight)


def test_classifier_validation_and_sklearn_meta_estimators():
    X, y, _ = _blobs(6, n=90)
    with pytest.raises(ValueError, match="weights must be 'uniform' or 'distance', got 'gaussian'"):
        KNeighborsClassifier(weights="gaussian").fit(X, y)
    with pytest.raises(ValueError, match="ties must be 'all' or 'index', got 'random'"):
        KNeighborsClassifier(ties="random").fit(X, y)
    with pytest.raises(ValueError, match="algorithm must be"):
        KNeighborsClassifier(algorithm="ball_tree").fit(X, y)
    with pytest.raises(ValueError, match="k=91 exceeds"):
        KNeighborsClassifier(n_neighbors=91).fit(X, y)
    with pytest.raises(NotFittedError, match="not fitted"):
        KNeighborsClassifier().predict(X)
    assert clone(KNeighborsClassifier(n_neighbors=3)).get_params()["n_neighbors"] == 3
    search = GridSearchCV(KNeighborsClassifier(), {"n_neighbors": [1, 5, 9]}, cv=3).fit(X, y)
    assert search.best_params_["n_neighbors"] in (1, 5, 9)


@pytest.mark.parametrize(("metric", "p"), METRICS)
def test_query_ties_returns_every_point_tied_with_the_kth(metric, p):
    """Both structures give the k nearest plus all points within the k-th distance, sorted,
    exactly as an exhaustive search over the exact distances."""
    rng = np.random.default_rng(11)
    X = rng.integers(0, 3, size=(120, 3)) / 3.0  # fractions: BLAS is not exact, ties abound
    Q = rng.integers(0, 3, size=(25, 3)) / 3.0
    k = 7
    exact = np.linalg.norm(Q[:, None, :] - X[None, :, :], ord=p, axis=2)
    for searcher in (KDTree(X, 5, metric=metric, p=p), BruteForceNeighbors(X, metric=metric, p=p)):
        assert_query_ties(searcher, Q, k, exact, rtol=1e-13)


def test_exact_rows_condition():
    """A row is 'exact' when its coordinates are integers and 4 ||x||^2 < 2**bits."""
    X = np.array([[0.0, 1, -2], [0.5, 0, 0], [2.0**24, 0, 0], [2.0**25, 2.0**25 - 1, 0],
                  [2.0**25, 2.0**25, 0], [1 / 3, 1e15, 0]])
    np.testing.assert_array_equal(_exact_rows(X, 53), [True, False, True, True, False, False])
    X = np.array([[0.0, 1, -2], [0.5, 0, 0], [2.0**10, 2.0**10, 0], [2.0**11 - 1, 1, 0],
                  [2.0**11, 0, 0], [3, 2.0**11, 0]])
    np.testing.assert_array_equal(_exact_rows(X, 24), [True, False, True, True, False, False])


def tie_sets(exact, k, rtol=1e-12):
    """Per query (row of the exact distances), every point within ``1 + rtol`` times the k-th
    distance, nearest first, ties by index."""
    kth = np.sort(exact, axis=1)[:, k - 1]
    rows = []
    for row in range(len(exact)):
        expected = np.flatnonzero(exact[row] <= kth[row] * (1 + rtol))
        rows.append(expected[np.lexsort((expected, exact[row, expected]))])
    return rows


def assert_query_ties(searcher, Q, k, exact, rtol=0.0):
    """``searcher.query_ties`` returns the tie sets of the exact distances, with those
    distances to ``rtol`` (0: bit for bit)."""
    distances, indices, mask = searcher.query_ties(Q, k, 1e-12)
    for row, expected in enumerate(tie_sets(exact, k)):
        np.testing.assert_array_equal(indices[row][mask[row]], expected)
        np.testing.assert_allclose(distances[row][mask[row]], exact[row, expected], rtol=rtol,
                                   atol=0.0)


def _exhaustive_ties(X, Q, k, rtol):
    """Every point within the k-th exact distance (coordinate differences), per query."""
    diff = Q[:, None, :] - X[None, :, :]
    exact = np.sqrt(np.einsum("...j,...j->...", diff, diff))
    return exact, tie_sets(exact, k, rtol)


def _mixed_near_ties(seed, n_integer=150):
    """Integer rows far from the origin (large norms, BLAS still exact on them), plus for each
    query fractional rows at squared distance 1, 2, 3, 4 from it (3-4-5 triangles, ties with
    the integer rows up to rounding) or a relative 1e-13 .. 1e-9 beyond (not ties, but within
    the BLAS error); a few fractional queries too."""
    rng = np.random.default_rng(seed)
    X = 1000.0 + rng.integers(0, 3, size=(n_integer, 4))
    Q = 1000.0 + rng.integers(0, 3, size=(20, 4))
    steps = np.array([[0.6, 0.8, 0, 0], [0.6, 0.8, 1, 0], [0.6, 0.8, 1, 1], [1.2, 1.6, 0, 0]])
    stretch = np.sqrt(1 + np.array([0.0, 1e-13, 1e-11, 1e-9]))
    near = Q[:, None, None, :] + steps[None, :, None, :] * stretch[None, None, :, None]
    X = np.vstack([X, near.reshape(-1, 4)])[rng.permutation(n_integer + near[..., 0].size)]
    return X, np.vstack([Q, Q[:4] + [0.1, 0.2, -0.3, 0.7]])


@pytest.mark.parametrize(("seed", "n_integer"), [(0, 150), (1, 150), (0, 500), (1, 500)])
@pytest.mark.parametrize("k", [1, 7, 20])
def test_brute_ties_exact_on_mixed_integral_and_fractional_rows(seed, n_integer, k):
    """Pairs of integer rows keep their BLAS value (float32 product when they are the
    majority, norms close to its 2**24 bound), the others are recomputed: ties are the
    exhaustive search's even where BLAS is off by far more than the tie tolerance."""
    X, Q = _mixed_near_ties(seed, n_integer)
    searcher = BruteForceNeighbors(X)
    assert 0 < searcher._exact_rows.sum() < len(X)
    assert (searcher._single is None) == (n_integer == 150)
    exact, expected = _exhaustive_ties(X, Q, k, 1e-12)
    blas = np.sqrt(squared_euclidean(Q, X))
    assert (np.abs(blas - exact) > 10 * 1e-12 * exact).sum() > 100  # BLAS cannot decide ties
    distances, indices, mask = searcher.query_ties(Q, k, 1e-12)
    for row in range(len(Q)):
        np.testing.assert_array_equal(indices[row][mask[row]], expected[row])
        np.testing.assert_array_equal(distances[row][mask[row]], exact[row, expected[row]])
    distances, indices = searcher.query(Q, k)
    np.testing.assert_array_equal(distances, np.take_along_axis(exact, indices, axis=1))


def test_brute_ties_exact_beyond_the_integer_bound():
    """Integer rows with 4 ||x||^2 >= 2**53 are not exact in BLAS (errors of several units on
    distances of 1 or 2): they are recomputed, so the ties are still the exact ones."""
    rng = np.random.default_rng(12)
    X = 2.0**27 + rng.integers(0, 3, size=(100, 3))
    Q = 2.0**27 + rng.integers(0, 3, size=(20, 3))
    searcher = BruteForceNeighbors(X)
    assert not searcher._exact_rows.any()
    exact, expected = _exhaustive_ties(X, Q, 5, 1e-12)
    assert np.abs(squared_euclidean(Q, X) - exact**2).max() >= 1.0
    distances, indices, mask = searcher.query_ties(Q, 5, 1e-12)
    for row in range(len(Q)):
        np.testing.assert_array_equal(indices[row][mask[row]], expected[row])
        np.testing.assert_array_equal(distances[row][mask[row]], exact[row, expected[row]])


@pytest.mark.parametrize(("metric", "p"), METRICS)
def test_brute_ties_kth_read_through_float32(metric, p):
    """The k-th value is first bounded with float32 values: on integer points whose distances
    (up to 1e9) are not float32 numbers, half the k-th values round down in float32, and the
    bound must still keep the k-th and every point tied with it (duplicated rows)."""
    rng = np.random.default_rng(13)
    X = rng.integers(0, 30000, size=(250, 2)).astype(float)
    X = np.vstack([X, X[:80]])
    Q = rng.integers(0, 30000, size=(40, 2)).astype(float)
    searcher = BruteForceNeighbors(X, metric=metric, p=p)
    for k in (1, 6, 25):
        diff = np.abs(Q[:, None, :] - X[None, :, :])
        exact = np.linalg.norm(diff, ord=p, axis=2)
        kth = np.sort(exact, axis=1)[:, k - 1]
        if metric == "euclidean":  # squared k-th values that float32 rounds down
            assert (np.float32(kth**2).astype(float) < kth**2).sum() >= 5
        assert_query_ties(searcher, Q, k, exact, rtol=1e-15)


@pytest.mark.parametrize("n_small", [0, 400])
def test_brute_ties_float32_product_bound(n_small):
    """Integer rows beyond the float32 bound (4 ||x||^2 >= 2**24, exact in float64 only) among
    small ones: their pairs take the float64 product, and the ties (many: a coarse grid plus
    duplicates) are the exhaustive search's; a float32 product would be off by units."""
    rng = np.random.default_rng(14)
    big = 6001.0 + 3 * rng.integers(0, 6, size=(120, 3))
    X = np.vstack([rng.integers(0, 4, size=(n_small, 3)), big, big[:30]]).astype(float)
    Q = np.vstack([rng.integers(0, 4, size=(15, 3)), 6001.0 + 3 * rng.integers(0, 6, size=(25, 3))])
    searcher = BruteForceNeighbors(X)
    assert (searcher._single is None) == (n_small == 0)
    single = squared_euclidean(Q.astype(np.float32), X.astype(np.float32))
    for k in (1, 5, 30):
        exact, expected = _exhaustive_ties(X, Q, k, 1e-12)
        assert (np.abs(single - exact**2)[15:] >= 1).any()
        distances, indices, mask = searcher.query_ties(Q, k, 1e-12)
        for row in range(len(Q)):
            np.testing.assert_array_equal(indices[row][mask[row]], expected[row])
            np.testing.assert_array_equal(distances[row][mask[row]], exact[row, expected[row]])
