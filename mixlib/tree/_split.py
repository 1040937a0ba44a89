"""Split search of the trees: impurities, candidate features and the best cut of every node
of a level, all nodes at once (histograms from :mod:`mixlib.tree._bins`, or sorting)."""

from __future__ import annotations

import numpy as np

from mixlib.tree._bins import (
    FEATURE_THRESHOLD,
    BinnedFeatures,
    _draw_permutation,
    _order_tail,
)
from mixlib.tree._impurity import children_cost, class_sum, node_impurity
from mixlib.tree._packed_search import first_least, packed_level_splits, packed_search_applies

#: The histogram search is used when (candidates x nodes x ranks x (classes + 1)) stays
#: below this many cells; otherwise the nodes' rows are sorted (0 forces sorting).
HISTOGRAM_MAX_CELLS = 1 << 22

#: With integer weights, the histogram search is used only while its cells are at most this
#: many per packed key of the sort search (candidates x rows); 0 or ``PACKED_SORT = False``
#: forces one search or the other.
HISTOGRAM_CELLS_PER_KEY = 1

#: Whether integer-weighted levels may use the packed-key sort
#: (:func:`mixlib.tree._packed_search.packed_level_splits`) instead of sorting the values.
PACKED_SORT = True


def _segment_varying(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Which rows of ``values`` (shape (m, n_rows), columns grouped by node from ``starts``)
    vary within each node: boolean array of shape (n_nodes, m)."""
    high = np.maximum.reduceat(values, starts, axis=1)
    return (high > np.minimum.reduceat(values, starts, axis=1) + FEATURE_THRESHOLD).T


def draw_candidates(
    XT: np.ndarray,
    rows: np.ndarray,
    starts: np.ndarray,
    k_features: int,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate features of each node: ``k_features`` of those not constant in the node.

    Parameters
    ----------
    XT : ndarray of shape (n_features, n_samples)
        The training data, transposed (C-contiguous, so a feature's values are contiguous).
    rows : ndarray of shape (n_rows,)
        Rows of the nodes, grouped node by node; ``starts`` (shape (n_nodes,)) gives where
        each group starts.
    k_features : int
    rng : numpy.random.Generator or None
        None takes every feature, in column order, all marked usable (then ``k_features``
        is all of them; constant features just have no valid cut).

    Returns
    -------
    feats : ndarray of shape (n_nodes, k_features)
        Candidate feature ids; with ``rng``, a node with fewer varying features is padded
        with constant ones.
    usable : ndarray of shape (n_nodes, k_features)
        False on the padding.

    Notes
    -----
    The varying features are taken in the order of a uniform random permutation, so the
    first ``k`` of them are a uniform ``k``-subset of the node's varying features (what
    scikit-learn draws). To avoid scanning every column, constancy is first checked on the
    first ``2 k`` features of the permutation only (random keys sorted per node, see
    :func:`mixlib.tree._bins._draw_permutation`), and on all of them for the nodes where fewer
    than ``k`` of those vary.
    """
    n_nodes, n_features = starts.shape[0], XT.shape[0]
    if rng is None:
        # Every feature is a candidate; constant ones simply have no valid cut.
        return (np.broadcast_to(np.arange(n_features), (n_nodes, n_features)),
                np.ones((n_nodes, n_features), dtype=bool))
    sizes = np.diff(np.append(starts, rows.shape[0]))
    seg = np.repeat(np.arange(n_nodes), sizes)
    m = min(n_features, 2 * k_features)
    perm, keys = _draw_permutation(rng, n_nodes, n_features, m)  # past m: where read
    varying = np.zeros((n_nodes, n_features), dtype=bool)
    varying[:, :m] = _segment_varying(XT[perm[seg, :m].T, rows], starts)
    if m < n_features:
        short = np.flatnonzero(varying[:, :m].sum(axis=1) < k_features)
        if short.size:
            _order_tail(perm, keys, short, m)
            in_short = np.zeros(n_nodes, dtype=bool)
            in_short[short] = True
            sub = in_short[seg]
            sub_starts = np.concatenate(([0], np.cumsum(sizes[short])[:-1]))
            varying[short, m:] = _segment_varying(
                XT[perm[seg[sub], m:].T, rows[sub]], sub_starts
            )
    # Stable sort puts the varying features first, in permutation order.
    first = np.argsort(~varying, axis=1, kind="stable")[:, :k_features]
    feats = np.take_along_axis(perm, first, axis=1)
    usable = np.take_along_axis(varying, first, axis=1)
    return feats, usable


def _sorted_cuts(
    XT: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    n_classes: int,
    rows: np.ndarray,
    xrows: np.ndarray,
    starts: np.ndarray,
    seg: np.ndarray,
    sizes: np.ndarray,
    feats: np.ndarray,
    usable: np.ndarray,
    min_samples_leaf: int,
    all_columns: bool,
):
    """Valid cuts and their left class counts from the rows sorted by (node, value).

    ``y`` and ``w`` (shape (n_yrows,)) are the class index and weight of each row of
    ``rows``. Returns ``(node, col, pos, left, Gs)``: the cut falls between sorted positions ``pos``
    and ``pos + 1`` of candidate ``col``, ``Gs`` (shape (k, n_rows)) holds the sorted values.
    """
    n_rows, n_nodes = rows.shape[0], starts.shape[0]
    if all_columns:  # every feature, in column order
        G = XT[:, xrows]
    else:
        G = XT[feats[seg].T, xrows]  # (k, n_rows)
    # Order within equal values is irrelevant (no cut between them), so only the regrouping
    # by node needs a stable sort.
    order = np.argsort(G, axis=1)
    if n_nodes > 1:
        # Small unsigned keys let numpy use its (linear-time) radix sort.
        node_key = seg.astype(np.uint16) if n_nodes < 2**16 else seg
        order = np.take_along_axis(
            order, np.argsort(node_key[order], axis=1, kind="stable"), axis=1
        )
    Gs = np.take_along_axis(G, order, axis=1)
    n_left = np.arange(1, n_rows + 1) - starts[seg]
    size_ok = (n_left >= min_samples_leaf) & (sizes[seg] - n_left >= min_samples_leaf)
    valid = Gs[:, 1:] > Gs[:, :-1] + FEATURE_THRESHOLD
    valid &= size_ok[None, :-1] & usable[seg[:-1]].T
    col, pos = np.nonzero(valid)
    node = seg[pos]
    # Class counts left of each cut: one cumulative sum per class along the sorted rows,
    # minus its value just before the node's first row.
    sorted_rows = rows[order]
    first = starts[node]
    left = np.empty((pos.shape[0], n_classes))
    if pos.size:
        y_sorted, w_sorted = y[sorted_rows], w[sorted_rows]
        for c in range(n_classes):
            cum = np.cumsum(np.where(y_sorted == c, w_sorted, 0.0), axis=1)  # (k, n_rows)
            left[:, c] = cum[col, pos] - np.where(first > 0, cum[col, first - 1], 0.0)
    return node, col, pos, left, Gs


def level_splits(
    XT: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    rows: np.ndarray,
    xrows: np.ndarray,
    starts: np.ndarray,
    counts: np.ndarray,
    k_features: int,
    criterion: str,
    min_samples_leaf: int,
    rng: np.random.Generator | None,
    binned: BinnedFeatures | None = None,
    codes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best threshold split of every node of one tree level, searched all at once.

    Parameters
    ----------
    XT : ndarray of shape (n_features, n_samples)
        The training data, transposed and C-contiguous.
    y, w : ndarray of shape (n_yrows,)
        Class index and weight (positive) of each training row of the trees.
    rows : ndarray of shape (n_rows,)
        Rows (of ``y`` and ``w``) of the level's nodes, grouped node by node.
    xrows : ndarray of shape (n_rows,)
        The matching rows of the data (columns of ``XT``).
    starts : ndarray of shape (n_nodes,)
        Position in ``rows`` where each node's group starts.
    counts : ndarray of shape (n_nodes, n_classes)
        Weighted class counts of each node.
    k_features : int
        Candidate features per node (see :func:`draw_candidates`).
    criterion : {"gini", "entropy"}
    min_samples_leaf : int
    rng : numpy.random.Generator or None
    binned : BinnedFeatures, optional
        Ranks of the data: it enables the packed-key sort search (when the weights of the
        level's rows are integers) and, with ``codes`` (shape (n_features, n_samples):
        ``rank * n_classes + class`` of every training value), the histogram search.

    Returns
    -------
    feature, threshold, cost : ndarrays of shape (n_nodes,)
        Best feature (-1 if no valid split), threshold (midpoint of the two sorted values it
        falls between) and children cost ``w_L I(L) + w_R I(R)`` (inf if no valid split).

    Notes
    -----
    The candidate features of all nodes are gathered into one ``(k, n_rows)`` array, each
    row sorted by (node, value) with two argsorts (the second one stable), and the class
    counts left of every cut come from one cumulative sum per class minus its value at the
    node's start; right counts are the node totals minus the left ones. A cut between
    sorted positions ``p`` and ``p + 1`` of one node is valid when the values differ by more
    than ``FEATURE_THRESHOLD`` and both sides keep ``min_samples_leaf`` rows. Ties go to
    the first candidate column, then the lowest cut, as scikit-learn scans them.

    When the features have few distinct values (``binned`` given and
    k x n_nodes x n_bins x (n_classes + 1) <= ``HISTOGRAM_MAX_CELLS``), no sort is needed:
    :func:`mixlib.tree._histogram_search.histogram_cuts` draws the candidates and histograms
    each node's rows over (rank, class) in one compiled loop, and a sum over ranks gives the
    left counts of every cut; a cut after rank ``r`` is valid when the node has rows of rank
    ``r`` and of a later rank.

    With integer weights and more cells than ``HISTOGRAM_CELLS_PER_KEY`` per (candidate,
    row), :func:`mixlib.tree._packed_search.packed_level_splits` sorts packed integer keys
    instead of the values, with exact integer sums (the costs are bit for bit those of the
    value sort). The searches give the same splits (up to values closer than
    ``FEATURE_THRESHOLD``, merged globally by the ranks but only between neighbours by the
    value sort) and draw the same candidates from ``rng``.
    """
    n_rows, n_nodes = rows.shape[0], starts.shape[0]
    sizes = np.diff(np.append(starts, n_rows))
    seg = np.repeat(np.arange(n_nodes), sizes)
    feature = np.full(n_nodes, -1, dtype=np.intp)
    threshold = np.full(n_nodes, np.nan)
    best_cost = np.full(n_nodes, np.inf)
    n_classes = counts.shape[1]
    n_candidates = XT.shape[0] if rng is None else k_features
    cells = np.inf if binned is None else n_candidates * n_nodes * binned.n_bins * (n_classes + 1)
    packed = (PACKED_SORT and binned is not None
              and packed_search_applies(w[rows], class_sum(counts)))
    use_histogram = codes is not None and cells <= HISTOGRAM_MAX_CELLS and (
        not packed or cells <= HISTOGRAM_CELLS_PER_KEY * n_candidates * n_rows
    )
    found = None
    if not use_histogram and packed:
        found = packed_level_splits(binned, xrows, y[rows], w[rows], sizes, counts,
                                    k_features, criterion, min_samples_leaf, rng)
    if found is not None:
        nodes, f, lo, hi, cost = found
        feature[nodes], threshold[nodes], best_cost[nodes] = f, _midpoint(lo, hi), cost
        return feature, threshold, best_cost
    if use_histogram:
        # Imported here: numba's import (about 0.3 s) is paid only by the processes that
        # grow trees on few-valued features.
        from mixlib.tree._histogram_search import histogram_cuts

        cuts = histogram_cuts(binned, codes, xrows, w[rows], sizes, n_classes, k_features,
                              min_samples_leaf, rng)
        node, left = cuts.node, cuts.left
        if node.size == 0:
            return feature, threshold, best_cost
    else:
        feats, usable = draw_candidates(XT, xrows, starts, k_features, rng)
        node, col, pos, left, Gs = _sorted_cuts(
            XT, y, w, n_classes, rows, xrows, starts, seg, sizes, feats, usable,
            min_samples_leaf,
            rng is None,
        )
        if node.size == 0:
            return feature, threshold, best_cost
    # Clipped: the node totals are summed in another order, so an absent class could
    # otherwise come out as -1e-15 (NaN entropy).
    right = np.maximum(counts[node] - left, 0.0)
    wl = class_sum(left)
    wr = class_sum(right)
    cost = children_cost(left, right, wl, wr, criterion)
    # Per node: least cost, then first candidate column, then lowest cut.
    if use_histogram:  # cuts come ordered by (node, candidate, cut)
        best = first_least(node, cost)
        nodes = node[best]
        threshold[nodes] = _midpoint(*cuts.thresholds(binned, best))
        feature[nodes] = cuts.feature[best]
    else:
        best = np.lexsort((pos, col, cost, node))
        best = best[np.r_[True, node[best][1:] != node[best][:-1]]]
        nodes, p, c = node[best], pos[best], col[best]
        threshold[nodes] = _midpoint(Gs[c, p], Gs[c, p + 1])
        feature[nodes] = feats[nodes, c]
    best_cost[nodes] = cost[best]
    return feature, threshold, best_cost


def _midpoint(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Threshold between sorted values ``lo < hi``: their midpoint, or ``lo`` where the
    midpoint rounds to ``hi`` or overflows."""
    mid = lo / 2.0 + hi / 2.0
    return np.where((mid == hi) | ~np.isfinite(mid), lo, mid)
