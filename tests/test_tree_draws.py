"""Candidate draws of the trees: the permutation ordered only as far as it is read, the first
varying features, the ranks of the features; each against its plain computation, and the
trees they grow against those of a full sort."""

import numpy as np
import pytest

import mixlib.tree._histogram_search
import mixlib.tree._packed_search
import mixlib.tree._split
from mixlib.ensemble import RandomForestClassifier
from mixlib.tree._bins import (
    _draw_permutation,
    _order_tail,
    _sorted_features,
    _varying_first,
    _varying_first_within,
    bin_features,
)
from mixlib.tree.decision_tree import DecisionTreeClassifier


@pytest.mark.parametrize("n_features", [1, 2, 31, 240, 1025])
@pytest.mark.parametrize("head", [1, 7, 30])
@pytest.mark.parametrize("ties", [False, True])
def test_partial_permutation_is_the_full_one_where_read(n_features, head, ties):
    rng = np.random.default_rng(n_features + head)
    keys = rng.random((200, n_features))
    if ties:  # equal keys: the packed sort breaks ties by feature, as a stable argsort
        keys = np.floor(keys * 4) / 4
    bits = (n_features - 1).bit_length()
    if bits <= 10:  # the packed sort (more features take argsort)
        scaled = keys * 2.0 ** (53 + bits)
        full = np.argsort(keys, axis=1, kind="stable")
        np.testing.assert_array_equal(_sorted_features(scaled, bits, None), full)
        perm = _sorted_features(scaled, bits, head)
        np.testing.assert_array_equal(perm[:, :head], full[:, :head])
        np.testing.assert_array_equal(np.sort(perm, axis=1), np.sort(full, axis=1))
    # The same draw from a generator, its tail ordered for some nodes.
    perm, scaled = _draw_permutation(np.random.default_rng(1), 200, n_features, head)
    full = np.argsort(np.random.default_rng(1).random((200, n_features)), axis=1)
    np.testing.assert_array_equal(perm[:, :head], full[:, :head])
    nodes = np.flatnonzero(rng.random(200) < 0.3)
    _order_tail(perm, scaled, nodes, head)
    np.testing.assert_array_equal(perm[nodes], full[nodes])
    np.testing.assert_array_equal(perm[:, :head], full[:, :head])


def test_varying_first_within_reads_only_the_head_of_narrow_rows():
    rng = np.random.default_rng(4)
    varying = rng.random((300, 50)) < 0.3
    k, head = 5, 12
    wide = np.count_nonzero(varying[:, :head], axis=1) < k
    varying[~wide, head:] = rng.random((np.count_nonzero(~wide), 50 - head)) < 0.5
    np.testing.assert_array_equal(_varying_first_within(varying, k, head, wide),
                                  _varying_first(varying, k))


@pytest.mark.parametrize("kind", ["binary", "few", "continuous", "chained"])
def test_bin_features_ranks_and_each_ranks_extremes(kind):
    rng = np.random.default_rng(7)
    if kind == "binary":
        XT = (rng.random((8, 400)) < 0.1).astype(float)
    elif kind == "few":
        XT = rng.integers(0, 6, (8, 400)) * 0.25
    elif kind == "continuous":
        XT = rng.normal(size=(8, 400))
    else:  # values closer than FEATURE_THRESHOLD to the previous distinct one share a rank
        XT = rng.integers(0, 3, (8, 400)) + rng.integers(0, 3, (8, 400)) * 6e-8
    XT[0] = 2.5  # a constant feature
    binned = bin_features(XT)
    for f, values in enumerate(XT):
        distinct = np.unique(values)
        rank_of_distinct = np.cumsum(np.r_[True, np.diff(distinct) > 1e-7]) - 1
        expected = rank_of_distinct[np.searchsorted(distinct, values)]
        np.testing.assert_array_equal(binned.ranks[f], expected)
        n = rank_of_distinct[-1] + 1
        for r in range(n):
            in_rank = values[expected == r]
            assert binned.low[f, r] == in_rank.min() and binned.high[f, r] == in_rank.max()
        assert np.isposinf(binned.low[f, n:]).all() and np.isneginf(binned.high[f, n:]).all()


def _fully_sorted(monkeypatch):
    """Make every draw sort the whole permutation of every node (the plain computation)."""
    for module in (mixlib.tree._histogram_search, mixlib.tree._packed_search, mixlib.tree._split):
        monkeypatch.setattr(module, "_draw_permutation",
                            lambda rng, n_nodes, n_features, head: _draw_permutation(
                                rng, n_nodes, n_features, None))


def _tree_arrays(model):
    trees = [e.tree_ for e in model.estimators_] if hasattr(model, "estimators_") else [
        model.tree_]
    return [(t.feature, t.threshold, t.value) for t in trees]


@pytest.mark.parametrize("data", ["one_hot", "sparse_binary", "continuous", "ties_many_classes"])
@pytest.mark.parametrize("model", ["forest", "tree_weighted", "tree_leaf3"])
def test_partial_permutations_grow_the_trees_of_full_ones(data, model, monkeypatch):
    rng = np.random.default_rng(11)
    if data == "one_hot":  # one-hot blocks: splits leave many features constant
        codes = rng.integers(0, 4, (500, 40))
        X = np.eye(4)[codes].reshape(500, -1)
        y = (codes[:, 3] + (codes[:, 7] == 2) + rng.integers(0, 2, 500)) % 3
    elif data == "sparse_binary":  # small nodes vary in few features: draws read far
        X = (rng.random((500, 200)) < 0.03).astype(float)
        y = (X[:, :20].sum(axis=1) + rng.integers(0, 2, 500)) % 4
    elif data == "continuous":
        X = rng.normal(size=(500, 30))
        y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    else:
        X = rng.integers(0, 3, (500, 25)).astype(float)
        y = rng.integers(0, 7, 500)
    weight = rng.random(500) + 0.2 if model == "tree_weighted" else None

    def fit():
        if model == "forest":
            est = RandomForestClassifier(15, random_state=3)
        elif model == "tree_weighted":
            est = DecisionTreeClassifier(max_features="sqrt", random_state=3)
        else:
            est = DecisionTreeClassifier(max_features=3, min_samples_leaf=3, random_state=3)
        return est.fit(X, y) if weight is None else est.fit(X, y, sample_weight=weight)

    ours = _tree_arrays(fit())
    _fully_sorted(monkeypatch)
    plain = _tree_arrays(fit())
    assert len(ours) == len(plain)
    for a, b in zip(ours, plain):
        for x, z in zip(a, b):
            np.testing.assert_array_equal(x, z)
