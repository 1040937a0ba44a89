"""The packed-key sort search of the trees: the same splits as the other searches and as
scikit-learn, the same random draws, and its fallback when keys would not fit."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTree

import mixlib.tree._packed_search
import mixlib.tree._split
from mixlib.ensemble import BaggingClassifier, RandomForestClassifier
from mixlib.tree._packed_search import draw_ranked_candidates
from mixlib.tree.decision_tree import DecisionTreeClassifier, bin_features, draw_candidates
from tests.test_tree import compare_with_sklearn, tie_free_problem

#: (HISTOGRAM_MAX_CELLS, PACKED_SORT) of each search: default choice, packed keys only,
#: values sorted only.
SEARCHES = {"default": (1 << 22, True), "packed": (0, True), "sort": (0, False)}


def grown_trees(make, X, y, monkeypatch, search, **fit):
    cells, packed = SEARCHES[search]
    with monkeypatch.context() as patch:
        patch.setattr(mixlib.tree._split, "HISTOGRAM_MAX_CELLS", cells)
        patch.setattr(mixlib.tree._split, "PACKED_SORT", packed)
        model = make().fit(X, y, **fit)
    return [t.tree_ for t in getattr(model, "estimators_", [model])]


def assert_same_trees(a_trees, b_trees):
    assert len(a_trees) == len(b_trees)
    for a, b in zip(a_trees, b_trees):
        for name in ("feature", "threshold", "left", "right", "n_node_samples", "value",
                     "impurity"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def mixed_problem(seed, n=300, n_classes=6):
    """Continuous, integer and binary features; labels from all three."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 9))
    X[:, 3:6] = np.round(X[:, 3:6] * 2)
    X[:, 6:] = rng.integers(0, 2, size=(n, 3))
    score = X[:, 0] + X[:, 3] * X[:, 6] + X[:, 1] * X[:, 7] + 0.7 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3, 6])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
def test_forest_trees_equal_across_searches(n_classes, criterion, min_samples_leaf,
                                            monkeypatch):
    # Bootstrap counts are integer weights: the packed search applies on every level.
    X, y = mixed_problem(n_classes, n_classes=n_classes)

    def make():
        return RandomForestClassifier(15, criterion=criterion, max_features=3,
                                      min_samples_leaf=min_samples_leaf, random_state=2)

    trees = {search: grown_trees(make, X, y, monkeypatch, search) for search in SEARCHES}
    assert sum(t.n_nodes for t in trees["sort"]) > 15 * 20
    assert_same_trees(trees["default"], trees["sort"])
    assert_same_trees(trees["packed"], trees["sort"])


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_bagged_trees_with_every_feature_equal_across_searches(criterion, monkeypatch):
    X, y = mixed_problem(4, n_classes=7)

    def make():
        return BaggingClassifier(DecisionTreeClassifier(criterion=criterion), 5,
                                 random_state=3)

    sort = grown_trees(make, X, y, monkeypatch, "sort")
    assert_same_trees(grown_trees(make, X, y, monkeypatch, "packed"), sort)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_packed_search_with_many_classes_and_counts_matches_sklearn(seed, criterion,
                                                                    monkeypatch):
    # Seven classes take the Gini running sums of squares; integer weights (as bootstrap
    # counts) stay on the packed search. Integer weights make exact ties between splits
    # likelier: compare_with_sklearn checks those are ties of equal cost.
    X, y, rng = tie_free_problem(seed, n=400, d=5, n_classes=7)
    w = rng.integers(1, 4, size=X.shape[0]).astype(float)
    monkeypatch.setattr(mixlib.tree._split, "HISTOGRAM_MAX_CELLS", 0)
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=4).fit(X, y, sample_weight=w)
    sk = SkTree(criterion=criterion, max_depth=4, random_state=0).fit(X, y, sample_weight=w)
    compared, ties = compare_with_sklearn(ours, sk)
    assert compared > 10 and ties <= 1
    full = DecisionTreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
    sk_full = SkTree(criterion=criterion, random_state=0).fit(X, y, sample_weight=w)
    compared, ties = compare_with_sklearn(full, sk_full)
    assert compared > 20


def test_keys_too_wide_fall_back_to_sorting_values_with_the_same_draws(monkeypatch):
    X, y = mixed_problem(5, n_classes=5)

    def make():
        return RandomForestClassifier(10, max_features=3, random_state=1)

    sort = grown_trees(make, X, y, monkeypatch, "sort")
    monkeypatch.setattr(mixlib.tree._packed_search, "KEY_BITS", 8)
    assert_same_trees(grown_trees(make, X, y, monkeypatch, "packed"), sort)


def test_ranked_candidates_are_the_draws_of_draw_candidates():
    # Node 0: features 0..9 vary; node 1: only 30 and 31 (fewer than k: the scan goes on
    # past 2 k features); node 2: 12..19 vary (found among the first 2 k or later).
    rng = np.random.default_rng(0)
    X = np.zeros((30, 40))
    X[:10, :10] = rng.normal(size=(10, 10))
    X[10:20, 30:32] = rng.normal(size=(10, 2))
    X[20:, 12:20] = rng.integers(0, 3, size=(10, 8))
    XT = np.ascontiguousarray(X.T)
    binned = bin_features(XT)
    rows, starts, k = np.arange(30), np.array([0, 10, 20]), 3
    sizes = np.array([10, 10, 10])
    seg = np.repeat(np.arange(3), sizes)
    for seed in range(50):
        feats, usable = draw_candidates(XT, rows, starts, k, np.random.default_rng(seed))
        ours, our_usable, r = draw_ranked_candidates(binned.ranks, rows, seg, sizes, k,
                                                     np.random.default_rng(seed))
        np.testing.assert_array_equal(ours[our_usable], feats[usable])
        np.testing.assert_array_equal(our_usable, usable)
        np.testing.assert_array_equal(r, binned.ranks[ours[seg], rows[:, None]])


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_chunks_of_nodes_do_not_change_the_trees(criterion, monkeypatch):
    # Tiny chunks: many chunks per level, nodes larger than a chunk, both Gini paths.
    X, y = mixed_problem(6, n_classes=6)

    def make():
        return RandomForestClassifier(8, criterion=criterion, max_features=4, random_state=5)

    whole = grown_trees(make, X, y, monkeypatch, "packed")
    monkeypatch.setattr(mixlib.tree._packed_search, "CHUNK_KEYS", 50)
    assert_same_trees(grown_trees(make, X, y, monkeypatch, "packed"), whole)
    monkeypatch.setattr(mixlib.tree._packed_search, "DENSE_CLASSES", 10)
    assert_same_trees(grown_trees(make, X, y, monkeypatch, "packed"), whole)
