"""Binary decision trees: equivalence with scikit-learn, traversal, feature draws, checks."""

import numpy as np
import pytest
from sklearn.base import clone as sk_clone
from sklearn.tree import DecisionTreeClassifier as SkTree

from mixlib.core.exceptions import NotFittedError
import mixlib.tree._split
from mixlib.tree._bins import _draw_permutation, _varying_first
from mixlib.tree._split import class_sum
from mixlib.tree.decision_tree import (
    DecisionTreeClassifier,
    apply_trees,
    bin_features,
    draw_candidates,
    node_impurity,
)


@pytest.fixture(params=["histogram", "packed", "sort"])
def search(request, monkeypatch):
    """Run a test with the default split searches, or force the packed-key sort (integer
    weights; the others sort the values), or force sorting the values."""
    if request.param != "histogram":
        monkeypatch.setattr(mixlib.tree._split, "HISTOGRAM_MAX_CELLS", 0)
    if request.param == "sort":
        monkeypatch.setattr(mixlib.tree._split, "PACKED_SORT", False)
    return request.param


def tie_free_problem(seed, n=300, d=4, n_classes=3):
    """Continuous features (rounded to float32, as scikit-learn stores them) and noisy labels."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    score = X[:, 0] + X[:, 1] ** 2 + 0.5 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y, rng


def children_cost(weight, impurity):
    """w_L I(L) + w_R I(R) from the children's weights and impurities."""
    return weight[0] * impurity[0] + weight[1] * impurity[1]


def compare_with_sklearn(ours, sk):
    """Walk both trees together; return (nodes compared, tied splits met).

    At every pair of nodes the sample counts, weights, class proportions and impurities
    must agree. Where both split on the same feature and threshold the walk descends; where
    they split differently the two splits must be exact ties (equal children cost, i.e. both
    are optimal) and the walk stops there.
    """
    a, s = ours.tree_, sk.tree_
    stack, compared, ties = [(0, 0)], 0, 0
    while stack:
        i, j = stack.pop()
        compared += 1
        assert a.n_node_samples[i] == s.n_node_samples[j]
        np.testing.assert_allclose(a.weighted_n_node_samples[i], s.weighted_n_node_samples[j])
        np.testing.assert_allclose(a.value[i], s.value[j][0], atol=1e-12)
        np.testing.assert_allclose(a.impurity[i], s.impurity[j], atol=1e-12)
        leaf_a, leaf_s = a.left[i] < 0, s.children_left[j] < 0
        assert leaf_a == leaf_s, f"node {i}: ours leaf={leaf_a}, sklearn leaf={leaf_s}"
        if leaf_a:
            continue
        if a.feature[i] == s.feature[j] and np.isclose(a.threshold[i], s.threshold[j], atol=1e-9):
            stack += [(a.left[i], s.children_left[j]), (a.right[i], s.children_right[j])]
            continue
        ties += 1
        kids = [a.left[i], a.right[i]]
        ours_cost = children_cost(a.weighted_n_node_samples[kids], a.impurity[kids])
        kids = [s.children_left[j], s.children_right[j]]
        sk_cost = children_cost(s.weighted_n_node_samples[kids], s.impurity[kids])
        np.testing.assert_allclose(ours_cost, sk_cost, rtol=1e-9, atol=1e-12)
    return compared, ties


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", [1, 2, 3, 5, None])
def test_tree_matches_sklearn_structure(seed, criterion, max_depth, search):
    X, y, rng = tie_free_problem(seed)
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth).fit(X, y)
    sk = SkTree(criterion=criterion, max_depth=max_depth, random_state=0).fit(X, y)
    compared, ties = compare_with_sklearn(ours, sk)
    if max_depth is not None and max_depth <= 3:
        assert ties == 0  # upper levels are tie-free on continuous data
    if ties == 0:
        assert compared == ours.tree_.n_nodes == sk.tree_.node_count
        X_test = rng.normal(size=(2000, X.shape[1]))
        np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))
        np.testing.assert_allclose(ours.predict_proba(X_test), sk.predict_proba(X_test))


@pytest.mark.parametrize(
    "params",
    [
        {"min_samples_leaf": 7, "max_depth": 6},
        {"min_samples_split": 40},
        {"min_impurity_decrease": 0.01},
        {"criterion": "entropy", "min_impurity_decrease": 0.02, "min_samples_leaf": 3},
    ],
)
def test_stopping_rules_and_weights_match_sklearn(params, search):
    X, y, rng = tie_free_problem(5, n=400)
    w = rng.uniform(0.2, 3.0, size=X.shape[0])
    ours = DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    sk = SkTree(random_state=0, **params).fit(X, y, sample_weight=w)
    compared, ties = compare_with_sklearn(ours, sk)
    if ties == 0:
        assert compared == ours.tree_.n_nodes == sk.tree_.node_count
        X_test = rng.normal(size=(2000, X.shape[1]))
        np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_full_depth_one_feature_predicts_like_sklearn(criterion, search):
    # With one feature there is no tie between features: the fully grown trees coincide.
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 10, size=(200, 1)).astype(np.float32).astype(np.float64)
    y = (np.sin(X[:, 0]) + 0.6 * rng.normal(size=200) > 0).astype(int)
    ours = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    sk = SkTree(criterion=criterion, random_state=0).fit(X, y)
    grid = np.linspace(-1, 11, 5001)[:, None]
    np.testing.assert_array_equal(ours.predict(grid), sk.predict(grid))
    np.testing.assert_array_equal(ours.predict(X), y)  # pure leaves on distinct values
    assert ours.get_n_leaves() == sk.get_n_leaves()


@pytest.mark.parametrize("discrete", [True, False])
def test_histogram_and_sort_searches_grow_the_same_trees(discrete, monkeypatch):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(400, 10))
    if discrete:
        X = np.round(X * 1.5)  # few distinct values, many ties
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=400) > 0).astype(int) + (X[:, 3] > 1)
    w = rng.uniform(0.5, 2.0, size=400)
    params = {"max_features": 3, "min_samples_leaf": 2, "criterion": "entropy"}
    trees = [DecisionTreeClassifier(random_state=4, **params).fit(X, y, sample_weight=w)]
    monkeypatch.setattr(mixlib.tree._split, "HISTOGRAM_MAX_CELLS", 0)
    trees.append(DecisionTreeClassifier(random_state=4, **params).fit(X, y, sample_weight=w))
    a, b = (t.tree_ for t in trees)
    assert a.n_nodes == b.n_nodes > 50
    for name in ("feature", "left", "right", "n_node_samples", "depth"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_allclose(a.threshold, b.threshold)
    np.testing.assert_allclose(a.value, b.value, atol=1e-12)


def test_bin_features_ranks_values():
    XT = np.array([[3.0, 1.0, 3.0, 2.0, 1.0 + 5e-8], [0.0, 0.0, 0.0, 0.0, 0.0]])
    binned = bin_features(XT)
    np.testing.assert_array_equal(binned.ranks, [[2, 0, 2, 1, 0], [0, 0, 0, 0, 0]])
    assert binned.n_bins == 3
    np.testing.assert_allclose(binned.low[0], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(binned.high[0], [1.0 + 5e-8, 2.0, 3.0])
    assert binned.low[1, 0] == 0.0 and np.isinf(binned.low[1, 1:]).all()


@pytest.mark.parametrize("n_values", [2, 5, 40])  # ranks by comparisons, then by argsort
def test_bin_features_ranks_match_unique_values(n_values):
    rng = np.random.default_rng(n_values)
    XT = rng.integers(0, n_values, size=(6, 300)) * 0.5 - 3.0
    XT[2] = 1.0  # constant feature
    XT[3, ::3] += 3e-8  # merged with its neighbour (closer than FEATURE_THRESHOLD)
    binned = bin_features(XT)
    for f, values in enumerate(XT):
        rounded = np.round(values, 6)
        distinct = np.unique(rounded)
        np.testing.assert_array_equal(binned.ranks[f], np.searchsorted(distinct, rounded))
        assert np.isinf(binned.low[f, distinct.size:]).all()
    assert binned.ranks.dtype == np.min_scalar_type(binned.n_bins - 1)  # smallest type


def test_vectorised_traversal_equals_per_sample_walk():
    X, y, rng = tie_free_problem(4, n=500, d=6)
    tree = DecisionTreeClassifier(max_depth=8).fit(X, y)
    X_test = rng.normal(size=(300, 6))
    t = tree.tree_
    expected = []
    for x in X_test:
        node = 0
        while t.left[node] >= 0:
            node = t.left[node] if x[t.feature[node]] <= t.threshold[node] else t.right[node]
        expected.append(node)
    np.testing.assert_array_equal(tree.apply(X_test), expected)


def test_trees_walked_together_reach_each_trees_own_leaves():
    # Deep and shallow trees and a single leaf, walked together (several compactions).
    X, y, rng = tie_free_problem(9, n=400, d=5)
    fitted = [DecisionTreeClassifier(max_depth=d).fit(X, y) for d in (None, 1, 3, None)]
    fitted.append(DecisionTreeClassifier().fit(X, np.zeros(400, dtype=int)))  # one leaf
    trees = [t.tree_ for t in fitted]
    X_test = rng.normal(size=(250, 5))
    mask = rng.random((len(trees), 250)) < 0.7
    tree, row, leaf = apply_trees(trees, X_test, mask)
    np.testing.assert_array_equal(np.stack([tree, row]), np.nonzero(mask))
    for t, model in enumerate(fitted):
        np.testing.assert_array_equal(leaf[tree == t], model.apply(X_test[row[tree == t]]))


def test_string_labels_and_zero_weight_rows():
    X, y, _ = tie_free_problem(6, n=200)
    labels = np.array(["a", "b", "c"])[y]
    w = np.ones(200)
    w[::4] = 0.0
    tree = DecisionTreeClassifier(max_depth=3).fit(X, labels, sample_weight=w)
    reference = DecisionTreeClassifier(max_depth=3).fit(X[w > 0], labels[w > 0])
    np.testing.assert_array_equal(tree.predict(X), reference.predict(X))
    assert set(tree.predict(X)) <= {"a", "b", "c"}


@pytest.mark.parametrize("n_classes", range(1, 10))
def test_class_sum_is_numpy_sum_bit_for_bit(n_classes):
    # class_sum adds the columns in order; numpy's sum must give the same bits (it only
    # splits rows of 8 or more entries), or trees would change with it.
    rng = np.random.default_rng(n_classes)
    a = rng.random((20000, n_classes)) * 10.0 ** rng.uniform(-8, 8, (20000, n_classes))
    for x in (a, a.reshape(50, 400, n_classes), np.asfortranarray(a), a[::3]):
        assert class_sum(x).tobytes() == x.sum(axis=-1).tobytes()


def test_node_impurity_formulas():
    counts = np.array([[3.0, 1.0], [2.0, 2.0], [4.0, 0.0]])
    np.testing.assert_allclose(node_impurity(counts, "gini"), [1 - (0.75**2 + 0.25**2), 0.5, 0.0])
    h = -(0.75 * np.log2(0.75) + 0.25 * np.log2(0.25))
    np.testing.assert_allclose(node_impurity(counts, "entropy"), [h, 1.0, 0.0])


@pytest.mark.parametrize("n_features", [1, 2, 240, 1024, 1025])
def test_permutation_sorts_generator_keys(n_features):
    # The packed integer sort orders each node's features exactly as argsort of its keys.
    keys = np.random.default_rng(n_features).random((300, n_features))
    perm, _ = _draw_permutation(np.random.default_rng(n_features), 300, n_features, None)
    np.testing.assert_array_equal(perm, np.argsort(keys, axis=1))


def test_varying_first_is_a_stable_sort_of_the_constant_flags():
    varying = np.random.default_rng(3).random((200, 37)) < 0.2
    varying[0] = False
    np.testing.assert_array_equal(
        _varying_first(varying, 6), np.argsort(~varying, axis=1, kind="stable")[:, :6]
    )


def test_draw_candidates_uniform_over_varying_features():
    # Two nodes; in node 0 features 0..9 vary and 10..39 are constant, in node 1 only
    # features 30..31 vary (fewer than k: padded, and the fallback scan must find them).
    rng = np.random.default_rng(0)
    X = np.zeros((20, 40))
    X[:10, :10] = rng.normal(size=(10, 10))
    X[10:, 30:32] = rng.normal(size=(10, 2))
    XT = np.ascontiguousarray(X.T)
    rows, starts, k = np.arange(20), np.array([0, 10]), 3
    hits = np.zeros(40)
    for _ in range(3000):
        feats, usable = draw_candidates(XT, rows, starts, k, rng)
        assert len(set(feats[0])) == k and usable[0].all() and (feats[0] < 10).all()
        np.testing.assert_array_equal(np.sort(feats[1][usable[1]]), [30, 31])
        assert usable[1].sum() == 2
        hits[feats[0]] += 1
    freq = hits[:10] / hits[:10].sum()
    np.testing.assert_allclose(freq, 0.1, atol=0.015)


def test_max_features_draws_are_reproducible_and_valid():
    X, y, _ = tie_free_problem(7, n=300, d=12)
    a = DecisionTreeClassifier(max_features="sqrt", random_state=11).fit(X, y)
    b = DecisionTreeClassifier(max_features="sqrt", random_state=11).fit(X, y)
    c = DecisionTreeClassifier(max_features="sqrt", random_state=12).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    assert not np.array_equal(a.tree_.feature, c.tree_.feature)
    # Fully grown with random features, the tree still separates distinct training points.
    np.testing.assert_array_equal(a.predict(X), y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"criterion": "mse"}, "criterion must be 'gini' or 'entropy', got 'mse'"),
        ({"max_depth": 0}, "max_depth must be None or an int >= 1, got 0"),
        ({"min_samples_split": 1}, "min_samples_split must be an int >= 2, got 1"),
        ({"min_samples_leaf": 0}, "min_samples_leaf must be an int >= 1, got 0"),
        ({"min_impurity_decrease": -1.0}, "min_impurity_decrease must be a float >= 0, got -1.0"),
        ({"max_features": "half"}, "max_features must be None, 'sqrt'"),
        ({"max_features": 9}, r"max_features=9 must be in \[1, n_features=4\]"),
    ],
)
def test_invalid_parameters(params, match):
    X, y, _ = tie_free_problem(0, n=30)
    with pytest.raises(ValueError, match=match):
        DecisionTreeClassifier(**params).fit(X, y)


def test_predict_checks():
    X, y, _ = tie_free_problem(0, n=30)
    with pytest.raises(NotFittedError, match="not fitted"):
        DecisionTreeClassifier().predict(X)
    tree = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but DecisionTreeClassifier is expecting 4 features"):
        tree.predict(X[:, :3])


def test_sklearn_meta_estimators_accept_the_tree():
    from sklearn.model_selection import GridSearchCV

    X, y, _ = tie_free_problem(1, n=150)
    copy = sk_clone(DecisionTreeClassifier(max_depth=2, criterion="entropy"))
    assert copy.get_params()["max_depth"] == 2
    search = GridSearchCV(DecisionTreeClassifier(), {"max_depth": [1, 3]}, cv=3).fit(X, y)
    assert search.best_params_["max_depth"] in (1, 3)
