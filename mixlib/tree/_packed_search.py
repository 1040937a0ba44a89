"""Exact split search of a level's nodes by sorting packed integer keys.

Used by :func:`mixlib.tree._split.level_splits` when the rows' weights are integers
(unweighted trees, bootstrap counts) and the features have many distinct values, where a
(rank, class) histogram per node would be mostly empty. Each (node, candidate, row) becomes
one ``int64`` key packing the node, the candidate column, the row's rank in that feature
(:class:`mixlib.tree._bins.BinnedFeatures`) and its class and weight; one ``numpy.sort`` of
the keys (a SIMD integer sort, several times faster than an ``argsort`` of the values)
orders every candidate of every node by value, and the class weights left of every cut are
cumulative sums along the sorted keys. All sums are exact integers, so the children's costs
are bit for bit those of the plain search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mixlib.tree._impurity import children_cost, class_sum
from mixlib.tree._bins import (
    BinnedFeatures,
    _draw_permutation,
    _gather_ranks,
    _order_tail,
    _rank_varying,
    _segments_vary,
    _varying_first_within,
)

#: Bits a packed key may use: an ``int64`` without its sign.
KEY_BITS = 63

#: Up to this many classes, the class weights left of every cut are summed class by class
#: (one cumulative sum each); with more, the Gini cost comes from running sums of squares
#: (:func:`_gini_costs`, a second sort but no per-class pass).
DENSE_CLASSES = 4

#: Keys sorted at once: chunks of nodes about this large keep the sort and the passes over
#: the keys in the processor's cache.
CHUNK_KEYS = 1 << 16

#: Largest total weight of a tree for the packed search: sums of squared class weights
#: must stay exact in ``float64`` (below ``2**53``).
MAX_TOTAL_WEIGHT = 2**26


def _bits(n_values: int) -> int:
    """Bits holding the integers ``0 .. n_values - 1``."""
    return int(max(n_values, 1) - 1).bit_length()


def packed_search_applies(w: np.ndarray, tree_weight: np.ndarray) -> bool:
    """Whether the weights ``w`` (shape (n_rows,)) are integers and every tree's total
    (``tree_weight``) small enough for exact integer sums of squares."""
    return bool(np.all(w == np.floor(w)) and tree_weight.max() < MAX_TOTAL_WEIGHT)


def draw_ranked_candidates(ranks: np.ndarray, xrows: np.ndarray, seg: np.ndarray,
                           sizes: np.ndarray, k: int, rng: np.random.Generator | None):
    """Candidate features of every node and their ranks at the node's rows.

    Parameters
    ----------
    ranks : ndarray of shape (n_features, n_samples)
        :attr:`BinnedFeatures.ranks`.
    xrows, seg : ndarray of shape (n_rows,)
        Data row and node of each row, grouped by node (``sizes`` rows per node).
    k : int
    rng : numpy.random.Generator or None
        As in :func:`mixlib.tree._split.draw_candidates`: the first ``k`` features of a
        uniform random permutation that vary in the node (the same draw from ``rng``), or
        every feature without ``rng``.

    Returns
    -------
    feats, usable : ndarray of shape (n_nodes, c)
        Candidate features and whether each varies in its node (``c = k``, or every
        feature without ``rng``).
    r : ndarray of shape (n_rows, c)
        Rank of every row in each of its node's candidates.

    Notes
    -----
    The first ``k`` features are gathered for every node and their constancy read from
    those ranks; only the nodes with fewer than ``k`` varying ones scan further features
    (the next ``k``, then all, as :func:`mixlib.tree._split.draw_candidates` does) and have
    their candidates gathered anew.
    """
    n_nodes, n_features = sizes.shape[0], ranks.shape[0]
    if rng is None:
        feats = np.broadcast_to(np.arange(n_features), (n_nodes, n_features))
        return feats, np.ones(feats.shape, dtype=bool), ranks.take(xrows, axis=1).T
    # Past 2 k, ordered only for the nodes that need it.
    perm, keys = _draw_permutation(rng, n_nodes, n_features, 2 * k)
    feats = np.ascontiguousarray(perm[:, :k])
    r = _gather_ranks(ranks, feats, xrows, seg)
    usable = _segments_vary(r, sizes)
    short = np.flatnonzero(np.count_nonzero(usable, axis=1) < k)
    if short.size == 0 or k >= n_features:
        return feats, usable, r
    in_short = np.zeros(n_nodes, dtype=bool)
    in_short[short] = True
    sub = in_short[seg]
    sub_xrows, sub_seg = xrows[sub], (np.cumsum(in_short) - 1)[seg[sub]]
    sub_sizes = sizes[short]
    varying = np.zeros((short.size, n_features), dtype=bool)
    varying[:, :k] = usable[short]
    m = min(n_features, 2 * k)
    varying[:, k:m] = _rank_varying(ranks, perm[short, k:m], sub_xrows, sub_seg, sub_sizes)
    still = np.flatnonzero(np.count_nonzero(varying[:, :m], axis=1) < k)
    wide = np.zeros(short.size, dtype=bool)  # the nodes whose features past m are read
    if still.size and m < n_features:
        wide[still] = True
        _order_tail(perm, keys, short[still], m)
        inner = np.zeros(short.size, dtype=bool)
        inner[still] = True
        keep = inner[sub_seg]
        varying[still, m:] = _rank_varying(ranks, perm[short[still], m:], sub_xrows[keep],
                                           (np.cumsum(inner) - 1)[sub_seg[keep]],
                                           sub_sizes[still])
    first = _varying_first_within(varying, k, m, wide)
    feats[short] = np.take_along_axis(perm[short], first, axis=1)
    usable[short] = np.take_along_axis(varying, first, axis=1)
    r[sub] = _gather_ranks(ranks, feats[short], sub_xrows, sub_seg)
    return feats, usable, r


def _segment_base(values: np.ndarray, first: np.ndarray) -> np.ndarray:
    """``values`` (a cumulative sum, non-decreasing) just before the start of each element's
    segment, segments starting where ``first`` is True (``first[0]`` True)."""
    before = np.zeros_like(values)
    before[1:] = values[:-1]
    return np.maximum.accumulate(np.where(first, before, 0))


def _starts_of(colnode: np.ndarray, k_bits: int, starts: np.ndarray,
               sizes: np.ndarray, k: int) -> np.ndarray:
    """Position in the sorted keys where each (node, candidate) of ``colnode`` begins: the
    keys of node ``s`` fill ``k * starts[s] ..`` candidate after candidate."""
    node, col = colnode >> k_bits, colnode & ((1 << k_bits) - 1)
    return k * starts[node] + col * sizes[node]


def first_least(node: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Position of the first least ``cost`` of each node, the cuts being grouped by
    ``node`` (ascending)."""
    first = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
    least = np.fmin.reduceat(cost, first)
    best = np.flatnonzero(cost == np.repeat(least, np.diff(np.r_[first, cost.shape[0]])))
    return best[np.r_[True, node[best][1:] != node[best][:-1]]]


@dataclass
class _KeyLayout:
    """Bit widths of the fields of the packed keys (see :func:`packed_level_splits`)."""

    k_bits: int
    rank_bits: int
    class_bits: int
    weight_bits: int
    gini_sums: bool


def packed_level_splits(binned: BinnedFeatures, xrows: np.ndarray, y: np.ndarray,
                        w: np.ndarray, sizes: np.ndarray, counts: np.ndarray, k: int,
                        criterion: str, min_samples_leaf: int,
                        rng: np.random.Generator | None):
    """Best cut of every node of a level, by sorting packed keys.

    Parameters
    ----------
    binned : BinnedFeatures
    xrows, y, w : ndarray of shape (n_rows,)
        Data row, class index and (positive integer) weight of each row, grouped by node.
    sizes : ndarray of shape (n_nodes,)
        Rows per node (all positive).
    counts : ndarray of shape (n_nodes, n_classes)
        Class weights of each node.
    k, criterion, min_samples_leaf, rng :
        As in :func:`mixlib.tree._split.level_splits`.

    Returns
    -------
    tuple or None
        ``(node, feature, lo, hi, cost)`` of the best valid cut of every node that has one
        (least cost, then first candidate, then lowest cut), with ``lo``/``hi`` the values
        the threshold falls between; None when the keys would not fit in
        :data:`KEY_BITS` (the caller then sorts the values; nothing is drawn from ``rng``).

    Notes
    -----
    A key is ``(node, candidate, rank, class, weight)`` in bit fields, most significant
    first. Sorted, the keys of a (node, candidate) are contiguous and ordered by rank; a cut
    after rank ``r`` is valid where the next key of the same (node, candidate) has a larger
    rank and both sides keep ``min_samples_leaf`` rows. With few classes, the class weights
    left of each cut are one cumulative sum per class; with more, :func:`_gini_costs`. The
    nodes are searched in chunks of about :data:`CHUNK_KEYS` keys, so that the sort and
    the passes over the keys work in the processor's cache.
    """
    n_nodes, n_rows = sizes.shape[0], y.shape[0]
    n_classes = counts.shape[1]
    c = binned.ranks.shape[0] if rng is None else k
    w_int = w.astype(np.int64)
    lay = _KeyLayout(_bits(c), _bits(binned.n_bins), _bits(n_classes),
                     int(w_int.max()).bit_length(),
                     criterion == "gini" and n_classes > DENSE_CLASSES)
    chunk_rows = max(1, CHUNK_KEYS // c)
    # A chunk holds under chunk_rows rows past its first node.
    tail = _bits(c * (chunk_rows + int(sizes.max()))) if lay.gini_sums else 0
    if (_bits(n_nodes) + lay.k_bits + lay.rank_bits
            + max(lay.class_bits + lay.weight_bits, tail) > KEY_BITS):
        return None
    seg = np.repeat(np.arange(n_nodes), sizes)
    feats, _, r = draw_ranked_candidates(binned.ranks, xrows, seg, sizes, k, rng)
    ends = np.cumsum(sizes)
    edges = np.searchsorted(ends, np.arange(chunk_rows, n_rows, chunk_rows), side="right")
    edges = np.unique(np.r_[0, edges, n_nodes])
    y = y.astype(np.int64)
    parts = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        a, b = ends[lo] - sizes[lo], ends[hi - 1]
        found = _chunk_best(r[a:b], seg[a:b] - lo, y[a:b], w_int[a:b], feats[lo:hi],
                            sizes[lo:hi], counts[lo:hi], lay, binned, criterion,
                            min_samples_leaf)
        parts.append((found[0] + lo, *found[1:]))
    return tuple(np.concatenate(field) for field in zip(*parts))


def _chunk_best(r, seg, y, w, feats, sizes, counts, lay: _KeyLayout, binned: BinnedFeatures,
                criterion: str, min_samples_leaf: int):
    """``(node, feature, lo, hi, cost)`` of the best cut of each node of one chunk (nodes
    numbered from 0), from the ranks ``r`` (shape (n_rows, c)) of its candidates."""
    c = feats.shape[1]
    k_bits, rank_bits, weight_bits = lay.k_bits, lay.rank_bits, lay.weight_bits
    low_bits = lay.class_bits + weight_bits
    key = r.astype(np.int64, order="C")
    # A constant candidate (usable False) gives no cut: its keys in the node share a rank.
    if lay.gini_sums:  # (node, candidate, class, rank, weight): class groups first
        shift = rank_bits + weight_bits
        key <<= weight_bits
        row = (seg.astype(np.int64) << (k_bits + lay.class_bits + shift)) | (y << shift) | w
        key |= row[:, None]
        key |= np.arange(c, dtype=np.int64) << (lay.class_bits + shift)
    else:
        key <<= low_bits
        row = (seg.astype(np.int64) << (k_bits + rank_bits + low_bits)) | (y << weight_bits) | w
        key |= row[:, None]
        key |= np.arange(c, dtype=np.int64) << (rank_bits + low_bits)
    keys = key.reshape(-1)
    keys.sort()
    starts = np.cumsum(sizes) - sizes
    if lay.gini_sums:
        keys, sums = _gini_costs(keys, lay, counts)
        run = keys >> _bits(keys.shape[0])
    else:
        run = keys >> low_bits
    # A cut follows a key whose successor has another rank of the same (node, candidate):
    # the two runs differ, but not above the rank bits.
    step = run[1:] ^ run[:-1]
    step -= 1
    cut = np.flatnonzero(step.view(np.uint64) < np.uint64((1 << rank_bits) - 1))
    colnode = run[cut] >> rank_bits
    start = _starts_of(colnode, k_bits, starts, sizes, c)
    node = colnode >> k_bits
    if min_samples_leaf > 1:
        n_left = cut + 1 - start
        ok = (n_left >= min_samples_leaf) & (sizes[node] - n_left >= min_samples_leaf)
        cut, start, node, colnode = cut[ok], start[ok], node[ok], colnode[ok]
    if lay.gini_sums:
        cost = sums(cut, start, node)
    else:
        cost = _dense_costs(keys, cut, start, node, weight_bits, counts, criterion)
    if cut.size == 0:
        empty = np.empty(0, dtype=np.intp)
        return empty, empty, np.empty(0), np.empty(0), np.empty(0)
    best = first_least(node, cost)
    cut = cut[best]
    rank_mask = (1 << rank_bits) - 1
    f = feats[node[best], colnode[best] & ((1 << k_bits) - 1)]
    lo = binned.high[f, run[cut] & rank_mask]
    hi = binned.low[f, run[cut + 1] & rank_mask]
    return node[best], f, lo, hi, cost[best]


def _prefix_at(cum: np.ndarray, cut: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Sum of the summed quantity from ``start`` to ``cut`` (inclusive), from its
    cumulative sum ``cum``."""
    return cum[cut] - np.where(start > 0, cum[start - 1], 0)


def _dense_costs(keys, cut, start, node, weight_bits, counts, criterion) -> np.ndarray:
    """Children's costs from the class weights left of each cut, one cumulative sum per
    class along the sorted keys (class and weight in their low bits)."""
    w = keys & ((1 << weight_bits) - 1)
    y = keys >> weight_bits
    n_classes = counts.shape[1]
    y &= (1 << _bits(n_classes)) - 1
    left = np.empty((cut.shape[0], n_classes))
    for k in range(n_classes):
        left[:, k] = _prefix_at(np.cumsum(np.where(y == k, w, 0)), cut, start)
    right = counts[node] - left
    return children_cost(left, right, class_sum(left), class_sum(right), criterion)


def _gini_costs(keys: np.ndarray, lay: _KeyLayout, counts: np.ndarray):
    """Running Gini sums along keys sorted by (node, candidate, class, rank, weight).

    Within a (node, candidate, class) group the keys are in rank order, so the class
    weight :math:`S_k` left of a row grows there by the row's weight :math:`w`: the row
    adds :math:`(S_k + w)^2 - S_k^2` to :math:`\\sum_k S_k^2` and :math:`w T_k` to
    :math:`\\sum_k T_k S_k` (:math:`T_k` the node's class weight). The keys are then sorted
    again by (node, candidate, rank, position), so that cumulative sums of the rows'
    weights and of these two terms give, at every cut, :math:`w_L`,
    :math:`\\sum_k L_k^2` and, with :math:`\\sum_k R_k^2 = \\sum_k T_k^2 - 2 \\sum_k T_k
    L_k + \\sum_k L_k^2`, the cost :math:`w_L + w_R - \\sum_k L_k^2 / w_L - \\sum_k R_k^2 /
    w_R` (exact integers, as in :func:`mixlib.tree._split._children_cost`).

    Returns the keys re-sorted (position in their low bits) and a function of
    ``(cut, start, node)`` giving the costs.
    """
    k_bits, class_bits, rank_bits, weight_bits = (lay.k_bits, lay.class_bits, lay.rank_bits,
                                                   lay.weight_bits)
    w = keys & ((1 << weight_bits) - 1)
    group = keys >> (rank_bits + weight_bits)  # (node, candidate, class)
    first = np.ones(keys.shape, dtype=bool)
    first[1:] = group[1:] != group[:-1]
    left = np.cumsum(w)
    left -= _segment_base(left, first)  # S_k + w, the class weight up to this row
    squares = w * (2 * left - w)
    totals = np.rint(counts).astype(np.int64)
    node_class = ((group >> (k_bits + class_bits)) * totals.shape[1]
                  + (group & ((1 << class_bits) - 1)))
    cross = w * totals.reshape(-1)[node_class]
    tail = _bits(keys.shape[0])
    order = group >> class_bits  # (node, candidate)
    order <<= rank_bits
    order |= (keys >> weight_bits) & ((1 << rank_bits) - 1)
    order <<= tail
    order |= np.arange(keys.shape[0])
    order.sort()
    position = order & ((1 << tail) - 1)
    w_cum, squares_cum, cross_cum = (np.cumsum(a.take(position)) for a in (w, squares, cross))
    total_squares = np.einsum("ij,ij->i", totals, totals)
    node_weight = totals.sum(axis=1)

    def costs(cut, start, node):
        wl = _prefix_at(w_cum, cut, start)
        wr = node_weight[node] - wl
        sl = _prefix_at(squares_cum, cut, start)
        sr = total_squares[node] - 2 * _prefix_at(cross_cum, cut, start) + sl
        wl, wr = wl.astype(np.float64), wr.astype(np.float64)
        return (wl + wr) - (sl / wl + sr / wr)

    return order, costs
