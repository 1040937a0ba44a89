"""The compiled histogram search (mixlib.tree._histogram_search) against a plain numpy
enumeration of the same cuts: same candidates, same cuts, the same class weights bit for bit."""

import numpy as np
import pytest

from mixlib.tree._bins import _draw_permutation, _order_tail, bin_features
from mixlib.tree._histogram_search import _sift_down, _tail_heap, histogram_cuts


def _reference_cuts(ranks, y, n_classes, xrows, w, sizes, k, min_samples_leaf, perm):
    """Every valid cut, node by node, candidate by candidate (the first ``k`` varying
    features along ``perm``, or every feature when ``perm`` is None), rank by rank; class
    weights summed row by row in row order, then rank by rank."""
    n_features, n_bins = ranks.shape[0], int(ranks.max()) + 1
    cuts, lefts = [], []
    start = 0
    for j, size in enumerate(sizes):
        rows = slice(start, start + size)
        order = range(n_features) if perm is None else perm[j]
        taken = 0
        for f in order:
            if perm is not None and taken == k:
                break
            r = ranks[f, xrows[rows]]
            if np.unique(r).size < 2:
                continue
            taken += 1
            hist = np.zeros((n_bins, n_classes))
            for rank, cls, weight in zip(r, y[xrows[rows]], w[rows]):
                hist[rank, cls] += weight
            per_rank = np.bincount(r, minlength=n_bins)
            present = np.flatnonzero(per_rank)
            left = np.zeros(n_classes)
            for here, after in zip(present[:-1], present[1:]):
                left = left + hist[here]
                n_left = per_rank[: here + 1].sum()
                if min_samples_leaf > 1 and not (n_left >= min_samples_leaf
                                                 and size - n_left >= min_samples_leaf):
                    continue
                cuts.append((j, f, here, after))
                lefts.append(left.copy())
        start += size
    return (np.array(cuts, dtype=np.intp).reshape(-1, 4),
            np.array(lefts).reshape(-1, n_classes))


@pytest.mark.parametrize("weights", ["unit", "integer", "float"])
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
@pytest.mark.parametrize("draw", [True, False])
@pytest.mark.parametrize("n_values", [2, 5, 40])
def test_cuts_are_those_of_a_plain_enumeration(weights, min_samples_leaf, draw, n_values):
    rng = np.random.default_rng(n_values * 7 + min_samples_leaf)
    n_features, n_samples, n_classes = 37, 300, 4
    # Sparse features: small nodes are constant in most of them and read their tail.
    XT = rng.integers(0, n_values, (n_features, n_samples)) * (
        rng.random((n_features, n_samples)) < 0.15)
    y = rng.integers(0, n_classes, n_samples)
    binned = bin_features(XT.astype(float))
    codes = binned.ranks.astype(np.uint16) * n_classes + y.astype(np.uint16)
    sizes = np.array([1, 2, 3, 7, 40, 120, 2, 25])
    xrows = rng.choice(n_samples, sizes.sum(), replace=False)
    w = {"unit": np.ones(sizes.sum()), "integer": rng.integers(1, 5, sizes.sum()) * 1.0,
         "float": rng.random(sizes.sum()) + 0.1}[weights]
    k = 4
    found = histogram_cuts(binned, codes, xrows, w, sizes, n_classes, k, min_samples_leaf,
                           np.random.default_rng(5) if draw else None)
    perm = None
    if draw:  # the same keys, fully ordered
        perm, _ = _draw_permutation(np.random.default_rng(5), sizes.size, n_features, None)
    cuts, left = _reference_cuts(binned.ranks, y, n_classes, xrows, w, sizes, k,
                                 min_samples_leaf, perm)
    assert len(cuts) >= 5  # the comparison compares something
    got = np.stack([found.node, found.feature, found.cut, found.next_rank], axis=1)
    np.testing.assert_array_equal(got, cuts)
    assert found.left.tobytes() == left.tobytes()


@pytest.mark.parametrize("n_features", [3, 17, 240, 1024])
def test_tail_heap_pops_the_tail_in_the_order_of_a_full_sort(n_features):
    rng = np.random.default_rng(n_features)
    head = min(n_features - 1, 6)
    perm, scaled = _draw_permutation(rng, 5, n_features, head)
    expected = perm.copy()
    _order_tail(expected, scaled, np.arange(5), head)
    heap = np.empty(n_features, dtype=np.int64)
    mask = (1 << (n_features - 1).bit_length()) - 1
    for j in range(5):
        n = _tail_heap(perm[j], scaled[j], head, heap)
        popped = []
        while n:
            popped.append(heap[0] & mask)
            n -= 1
            heap[0] = heap[n]
            _sift_down(heap, 0, n)
        np.testing.assert_array_equal(popped, expected[j, head:])
