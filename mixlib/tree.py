"""Binary decision trees on numeric features (CART-style, Gini or entropy).

Trees are grown level by level and the split search is vectorised over all the nodes of a
level (of one tree, or of many trees grown together by a forest), their rows and their
candidate features at once; there is no Python loop over samples or nodes. For each level,
the class counts left of every candidate cut come either from a histogram (one
``bincount`` over (candidate, node, value rank, class), then a cumulative sum over ranks:
used when features have few distinct values, e.g. one-hot data), or from sorting the
gathered ``(k, n_rows)`` candidate columns by (node, value) and one cumulative sum per
class; the children's impurities of all valid cuts are then evaluated in one array
expression. The fitted tree is a set of flat arrays (``feature``, ``threshold``, ``left``,
``right``, ``value``) and prediction walks all samples down the tree together, one level per
step.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

from ._base import BaseEstimator, ClassifierMixin
from ._validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
)

__all__ = ["DecisionTreeClassifier", "TreeArrays", "apply_trees"]

#: Two feature values closer than this are treated as equal (no threshold between them).
FEATURE_THRESHOLD = 1e-7
_EPSILON = np.finfo(np.float64).eps


@dataclass
class TreeArrays:
    """A fitted binary tree as flat arrays indexed by node id (breadth-first: root is 0).

    Attributes
    ----------
    feature : ndarray of shape (n_nodes,)
        Feature tested at each internal node; -1 at leaves.
    threshold : ndarray of shape (n_nodes,)
        Samples with ``x[feature] <= threshold`` go left; NaN at leaves.
    left, right : ndarray of shape (n_nodes,)
        Ids of the children; -1 at leaves.
    value : ndarray of shape (n_nodes, n_classes)
        Weighted class proportions of the training samples reaching each node.
    impurity : ndarray of shape (n_nodes,)
        Impurity of each node under the tree's criterion.
    n_node_samples : ndarray of shape (n_nodes,)
        Number of training rows (with positive weight) reaching each node.
    weighted_n_node_samples : ndarray of shape (n_nodes,)
        Their total weight.
    depth : ndarray of shape (n_nodes,)
        Depth of each node (root 0).
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    depth: np.ndarray

    @property
    def n_nodes(self) -> int:
        return int(self.feature.shape[0])

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.left < 0))

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id reached by each row of ``X`` (shape (n_samples, n_features))."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        active = self.left[node] >= 0
        while active.any():
            r, n = rows[active], node[active]
            go_left = X[r, self.feature[n]] <= self.threshold[n]
            node[r] = np.where(go_left, self.left[n], self.right[n])
            active[r] = self.left[node[r]] >= 0
        return node


def apply_trees(trees: list[TreeArrays], X: np.ndarray, mask: np.ndarray | None = None):
    """Leaf reached by rows of ``X`` in each of several trees, all walked together.

    Parameters
    ----------
    trees : list of TreeArrays
    X : ndarray of shape (n_samples, n_features)
    mask : ndarray of shape (n_trees, n_samples), optional
        Which (tree, row) pairs to walk; all by default.

    Returns
    -------
    tree, row, leaf : ndarrays of shape (n_pairs,)
        The walked pairs (in ``numpy.nonzero`` order of ``mask``) and the leaf of each, as a
        node id of its own tree.

    Notes
    -----
    The trees are stacked into one set of arrays (node ids shifted by each tree's offset);
    at every step, each pair still at an internal node moves to ``left`` if
    ``x[feature] <= threshold``, else to ``right``, and pairs that reached a leaf leave the
    walk, so a step costs one gather per pair still walking.
    """
    sizes = np.array([t.n_nodes for t in trees])
    offset = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    shift = np.repeat(offset, sizes)
    feature = np.concatenate([t.feature for t in trees])
    threshold = np.concatenate([t.threshold for t in trees])
    left = np.concatenate([t.left for t in trees]) + shift
    right = np.concatenate([t.right for t in trees]) + shift
    if mask is None:
        mask = np.ones((len(trees), X.shape[0]), dtype=bool)
    tree, row = np.nonzero(mask)
    flat = np.ascontiguousarray(X).reshape(-1)
    leaf = offset[tree]
    walking = np.flatnonzero(feature[leaf] >= 0)
    node, base = leaf[walking], row[walking] * X.shape[1]
    while walking.size:
        go_right = flat.take(base + feature[node]) > threshold[node]
        node = np.where(go_right, right[node], left[node])
        done = feature[node] < 0
        leaf[walking[done]] = node[done]
        keep = ~done
        walking, node, base = walking[keep], node[keep], base[keep]
    return tree, row, leaf - offset[tree]


def node_impurity(counts: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of nodes from their weighted class counts.

    Parameters
    ----------
    counts : ndarray of shape (..., n_classes)
        Weighted class counts, total weight ``w = counts.sum(-1) > 0``.
    criterion : {"gini", "entropy"}

    Returns
    -------
    ndarray of shape (...)

    Notes
    -----
    With :math:`p_k = c_k / w`: Gini :math:`1 - \\sum_k p_k^2`; entropy (bits)
    :math:`-\\sum_k p_k \\log_2 p_k`.
    """
    w = counts.sum(axis=-1)
    p = counts / w[..., None]
    if criterion == "gini":
        return 1.0 - np.einsum("...k,...k->...", p, p)
    return -xlogy(p, p).sum(axis=-1) / np.log(2.0)


def _children_cost(
    left: np.ndarray, right: np.ndarray, wl: np.ndarray, wr: np.ndarray, criterion: str
) -> np.ndarray:
    """``w_L I(L) + w_R I(R)`` of candidate splits.

    ``left``/``right`` (shape (..., n_classes)) are the children's weighted class counts and
    ``wl``/``wr`` (shape (...)) their totals, all positive.
    """
    if criterion == "gini":
        # w I(t) = w - sum_k c_k^2 / w for each child.
        return (wl + wr) - (
            np.einsum("...k,...k->...", left, left) / wl
            + np.einsum("...k,...k->...", right, right) / wr
        )
    # w I(t) = (w log w - sum_k c_k log c_k) / log 2 for each child.
    return (
        xlogy(wl, wl) - xlogy(left, left).sum(-1) + xlogy(wr, wr) - xlogy(right, right).sum(-1)
    ) / np.log(2.0)


def _segment_varying(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Which rows of ``values`` (shape (m, n_rows), columns grouped by node from ``starts``)
    vary within each node: boolean array of shape (n_nodes, m)."""
    high = np.maximum.reduceat(values, starts, axis=1)
    return (high > np.minimum.reduceat(values, starts, axis=1) + FEATURE_THRESHOLD).T


def _permutation_order(keys: np.ndarray, m: int) -> np.ndarray:
    """Features of each node (row of ``keys``, shape (n_nodes, n_features)), the ``m`` with
    the smallest keys first and ordered by key, the others after them in arbitrary order:
    the head of a uniform random permutation."""
    perm = (np.argpartition(keys, m - 1, axis=1) if m < keys.shape[1]
            else np.argsort(keys, axis=1))
    head = np.argsort(np.take_along_axis(keys, perm[:, :m], axis=1), axis=1)
    perm[:, :m] = np.take_along_axis(perm[:, :m], head, axis=1)
    return perm


def _order_tail(perm: np.ndarray, keys: np.ndarray, nodes: np.ndarray, m: int) -> np.ndarray:
    """Positions ``m:`` of ``perm`` for ``nodes``, ordered by key (the rest of the
    permutation)."""
    tail = perm[nodes, m:]
    return np.take_along_axis(
        tail, np.argsort(np.take_along_axis(keys[nodes], tail, axis=1), axis=1), axis=1
    )


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
    first ``2 k`` features of the permutation only (drawn with ``argpartition`` of random
    keys, then ordered), and on all of them for the nodes where fewer than ``k`` of those
    vary (the rest of the permutation is then ordered by its keys too).
    """
    n_nodes, n_features = starts.shape[0], XT.shape[0]
    if rng is None:
        # Every feature is a candidate; constant ones simply have no valid cut.
        return (np.broadcast_to(np.arange(n_features), (n_nodes, n_features)),
                np.ones((n_nodes, n_features), dtype=bool))
    sizes = np.diff(np.append(starts, rows.shape[0]))
    seg = np.repeat(np.arange(n_nodes), sizes)
    m = min(n_features, 2 * k_features)
    keys = rng.random((n_nodes, n_features))
    perm = _permutation_order(keys, m)
    varying = np.zeros((n_nodes, n_features), dtype=bool)
    varying[:, :m] = _segment_varying(XT[perm[seg, :m].T, rows], starts)
    if m < n_features:
        short = np.flatnonzero(varying[:, :m].sum(axis=1) < k_features)
        if short.size:
            in_short = np.zeros(n_nodes, dtype=bool)
            in_short[short] = True
            sub = in_short[seg]
            sub_starts = np.concatenate(([0], np.cumsum(sizes[short])[:-1]))
            perm[short, m:] = _order_tail(perm, keys, short, m)
            varying[short, m:] = _segment_varying(
                XT[perm[seg[sub], m:].T, rows[sub]], sub_starts
            )
    # Stable sort puts the varying features first, in permutation order.
    first = np.argsort(~varying, axis=1, kind="stable")[:, :k_features]
    feats = np.take_along_axis(perm, first, axis=1)
    usable = np.take_along_axis(varying, first, axis=1)
    return feats, usable


@dataclass
class BinnedFeatures:
    """Dense ranks of each feature's values, for histogram split search.

    Values closer than ``FEATURE_THRESHOLD`` to the previous distinct value share a rank.

    Attributes
    ----------
    ranks : ndarray of shape (n_features, n_samples)
        Rank of every value within its feature (0 = smallest).
    low, high : ndarray of shape (n_features, n_bins)
        Smallest and largest value of each rank (+inf / -inf past a feature's last rank).
    n_bins : int
        Largest number of ranks of a feature.
    """

    ranks: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_bins: int


def bin_features(XT: np.ndarray) -> BinnedFeatures:
    """Rank the values of every feature of ``XT`` (shape (n_features, n_samples))."""
    order = np.argsort(XT, axis=1)
    Xs = np.take_along_axis(XT, order, axis=1)
    first = np.ones(Xs.shape, dtype=bool)
    first[:, 1:] = Xs[:, 1:] > Xs[:, :-1] + FEATURE_THRESHOLD
    sorted_ranks = (np.cumsum(first, axis=1) - 1).astype(np.int32)
    ranks = np.empty_like(sorted_ranks)
    np.put_along_axis(ranks, order, sorted_ranks, axis=1)
    n_bins = int(sorted_ranks[:, -1].max()) + 1
    last = np.ones(Xs.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    low = np.full((XT.shape[0], n_bins), np.inf)
    high = np.full((XT.shape[0], n_bins), -np.inf)
    f, i = np.nonzero(first)
    low[f, sorted_ranks[f, i]] = Xs[f, i]
    f, i = np.nonzero(last)
    high[f, sorted_ranks[f, i]] = Xs[f, i]
    return BinnedFeatures(ranks=ranks, low=low, high=high, n_bins=n_bins)


def _column_histograms(
    codes: np.ndarray,
    xrows: np.ndarray,
    w: np.ndarray,
    seg: np.ndarray,
    cols: np.ndarray,
    per_node: int,
    counts: bool,
    all_columns: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Weighted (rank, class) histograms of every node for one feature per node and column.

    Parameters
    ----------
    codes : ndarray of shape (n_features, n_samples)
        ``rank * n_classes + class`` of every (feature, training row), C-contiguous.
    xrows, w, seg : ndarrays of shape (n_rows,)
        Training row, weight and node (0..n_nodes-1) of each row, grouped by node.
    cols : ndarray of shape (n_nodes, c)
        The feature of each node in each of the ``c`` columns.
    per_node : int
        ``n_bins * n_classes``.
    counts : bool
        Also count the rows (unweighted) per (column, node, rank).
    all_columns : bool, default=False
        ``cols`` holds every feature in column order for every node (gathered directly).

    Returns
    -------
    hist_w : ndarray of shape (c, n_nodes, per_node)
    hist_n : ndarray of shape (c, n_nodes, per_node) or None
        Row counts per (rank, class) cell (``None`` unless ``counts``).

    Notes
    -----
    Columns are histogrammed in chunks of about ``HISTOGRAM_CHUNK`` (column, row) pairs, one
    ``bincount`` per chunk: the working arrays stay small enough for the cache while few
    numpy calls are made. Within a cell the weights are summed in row order, whatever the
    chunking.
    """
    n_nodes, c = cols.shape
    n_samples, flat = codes.shape[1], codes.reshape(-1)
    n_cells = n_nodes * per_node
    n_rows = seg.shape[0]
    chunk = min(c, max(1, HISTOGRAM_CHUNK // max(n_rows, 1)))
    # Cell offset of (column within the chunk, row): its node's block in its column's block.
    sizes = np.bincount(seg, minlength=n_nodes)  # rows are grouped by node
    offset = np.repeat(np.arange(n_nodes) * per_node, sizes) + (np.arange(chunk) * n_cells)[:, None]
    start = None if all_columns else cols.T * n_samples  # where each feature starts in flat
    unit = bool(np.all(w == 1.0))  # unweighted: integer counts are the weighted histogram
    hist_w = np.empty(c * n_cells)
    hist_n = np.empty(c * n_cells, dtype=np.intp) if counts else None
    for lo in range(0, c, chunk):
        hi = min(c, lo + chunk)
        if all_columns:  # column j is feature j for every node: a plain gather
            cell = codes[lo:hi].take(xrows, axis=1)
        else:
            cell = np.repeat(start[lo:hi], sizes, axis=1)  # (hi - lo, n_rows)
            cell += xrows
            cell = flat.take(cell)
        cell += offset[: hi - lo]
        cell = cell.reshape(-1)
        size = (hi - lo) * n_cells
        n = np.bincount(cell, minlength=size) if unit or counts else None
        if unit:
            hist_w[lo * n_cells:hi * n_cells] = n
        else:
            weights = np.broadcast_to(w, (hi - lo, n_rows)).reshape(-1)
            hist_w[lo * n_cells:hi * n_cells] = np.bincount(cell, weights, minlength=size)
        if counts:
            hist_n[lo * n_cells:hi * n_cells] = n
    shape = (c, n_nodes, per_node)
    return hist_w.reshape(shape), None if hist_n is None else hist_n.reshape(shape)


def _present_bins(hist_w: np.ndarray, n_bins: int) -> np.ndarray:
    """Which (column, node, rank) cells of ``hist_w`` (shape (c, n_nodes, n_bins *
    n_classes), positive weights) hold rows: boolean array of shape (c, n_nodes, n_bins).

    The class totals come from one matrix-vector product, much faster than a sum over a
    short last axis."""
    c, n_nodes, per_node = hist_w.shape
    n_classes = per_node // n_bins
    total = hist_w.reshape(-1, n_classes) @ np.ones(n_classes)
    return total.reshape(c, n_nodes, n_bins) > 0


def _accumulate_bins(a: np.ndarray) -> np.ndarray:
    """Cumulative sum of ``a`` along axis 2 (the ranks), added in rank order as
    ``numpy.cumsum`` does; with few ranks, one whole-array addition per rank."""
    if a.shape[2] > 32:
        return np.cumsum(a, axis=2)
    out = a.copy()
    for b in range(1, a.shape[2]):
        out[:, :, b] += out[:, :, b - 1]
    return out


def _varying_columns(hist_w: np.ndarray, n_bins: int) -> np.ndarray:
    """Whether each (node, column) has rows of at least two ranks: shape (n_nodes, c)."""
    n_present = _accumulate_bins(_present_bins(hist_w, n_bins).astype(np.intp))[:, :, -1]
    return (n_present > 1).T


def _histogram_cuts(
    binned: BinnedFeatures,
    codes: np.ndarray,
    w: np.ndarray,
    xrows: np.ndarray,
    seg: np.ndarray,
    sizes: np.ndarray,
    k_features: int,
    rng: np.random.Generator | None,
    n_classes: int,
    min_samples_leaf: int,
):
    """Draw the candidate features and find the valid cuts, from per-node histograms.

    The candidates are those of :func:`draw_candidates` (the first ``k_features`` features,
    in the order of a uniform random permutation, that are not constant in the node; the
    same draws of ``rng``), but constancy is read from the histograms themselves (a feature
    varies in a node when its rows fall in two ranks or more), and features are histogrammed
    in batches along the permutation only until a node has ``k_features`` varying ones:
    first ``k`` features for every node, then ``k`` more, then the rest for the nodes still
    short.

    Returns ``(node, col, cut, left, threshold_of, feats)``: ``cut`` is the rank after which
    the cut falls, ``left`` the class counts left of it, ``threshold_of(nodes, cols, cuts)``
    the two values the threshold falls between and ``feats`` (shape (n_nodes, k)) the
    candidate features.
    """
    n_nodes = sizes.shape[0]
    n_features = codes.shape[0]
    n_bins = binned.n_bins
    per_node = n_bins * n_classes
    counts = min_samples_leaf > 1

    def histograms(cols, nodes=None):
        if nodes is None:
            return _column_histograms(codes, xrows, w, seg, cols, per_node, counts,
                                      all_columns=rng is None)
        inside = np.zeros(n_nodes, dtype=bool)
        inside[nodes] = True
        sub = inside[seg]
        local = np.cumsum(inside) - 1
        return _column_histograms(codes, xrows[sub], w[sub], local[seg[sub]], cols, per_node,
                                  counts)

    if rng is None:  # every feature, in column order, all usable
        feats = np.broadcast_to(np.arange(n_features), (n_nodes, n_features))
        hist_w, hist_n = histograms(feats)
        usable = np.ones((n_nodes, n_features), dtype=bool)
    else:
        k = k_features
        keys = rng.random((n_nodes, n_features))
        m = min(n_features, 2 * k)
        perm = _permutation_order(keys, m)
        varying = np.zeros((n_nodes, n_features), dtype=bool)
        blocks = [(np.arange(n_nodes), 0, *histograms(perm[:, :k]))]
        varying[:, :k] = _varying_columns(blocks[0][2], n_bins)
        step = max(1, (k + 2) // 3)  # short nodes usually lack only a few
        bounds = [(lo, min(lo + step, m)) for lo in range(k, m, step)]
        bounds += [(m, n_features)] if m < n_features else []
        for lo, hi in bounds:
            short = np.flatnonzero(np.count_nonzero(varying[:, :lo], axis=1) < k)
            if short.size == 0 or lo >= hi:
                break
            if lo == m:  # beyond the sorted head: order the rest of the permutation
                perm[short, m:] = _order_tail(perm, keys, short, m)
            block_w, block_n = histograms(perm[short, lo:hi], short)
            varying[short, lo:hi] = _varying_columns(block_w, n_bins)
            blocks.append((short, lo, block_w, block_n))
        # Nodes with k varying features among the first k keep those; for the others, a
        # stable sort puts the varying features first, in permutation order.
        first = np.broadcast_to(np.arange(k), (n_nodes, k)).copy()
        hist_w = blocks[0][2].copy()
        hist_n = blocks[0][3].copy() if counts else None
        if len(blocks) > 1:
            short = blocks[1][0]
            first[short] = np.argsort(~varying[short], axis=1, kind="stable")[:, :k]
            for b, (nodes, lo, block_w, block_n) in enumerate(blocks):
                members, local = (short, short) if b == 0 else (nodes, np.arange(nodes.size))
                position = first[members] - lo
                i, j = np.nonzero((position >= 0) & (position < block_w.shape[0]))
                hist_w[j, members[i]] = block_w[position[i, j], local[i]]
                if counts:
                    hist_n[j, members[i]] = block_n[position[i, j], local[i]]
        feats = np.take_along_axis(perm, first, axis=1)
        usable = np.take_along_axis(varying, first, axis=1)
    k = feats.shape[1]
    present = _present_bins(hist_w, n_bins)  # every weight is positive
    hist_w = hist_w.reshape(k, n_nodes, n_bins, n_classes)
    if counts:
        n_left = _accumulate_bins(hist_n.reshape(k, n_nodes, n_bins, n_classes).sum(axis=3))
        valid = present & (n_left >= min_samples_leaf)
        valid &= (sizes[None, :, None] - n_left) >= min_samples_leaf
    else:  # one row on each side: some rows of a later rank
        n_present = _accumulate_bins(present.astype(np.intp))
        valid = present & (n_present < n_present[:, :, -1:])
    valid &= usable.T[:, :, None]
    node, col, cut = np.nonzero(valid.transpose(1, 0, 2))  # ordered by (node, col, cut)
    left = _accumulate_bins(hist_w)[col, node, cut]

    def threshold_of(nodes, cols, cuts):
        f = feats[nodes, cols]
        later = present[cols, nodes] & (np.arange(n_bins) > cuts[:, None])
        return binned.high[f, cuts], binned.low[f, np.argmax(later, axis=1)]

    return node, col, cut, left, threshold_of, feats


#: (Column, row) pairs histogrammed per ``bincount`` call (see :func:`_column_histograms`).
HISTOGRAM_CHUNK = 1 << 16

#: The histogram search is used when (candidates x nodes x ranks x (classes + 1)) stays
#: below this many cells; otherwise the nodes' rows are sorted.
HISTOGRAM_MAX_CELLS = 1 << 22


def _sorted_cuts(
    XT: np.ndarray,
    YT: np.ndarray,
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

    Returns ``(node, col, pos, left, Gs)``: the cut falls between sorted positions ``pos``
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
    left = np.empty((pos.shape[0], YT.shape[0]))
    if pos.size:
        for c, y_c in enumerate(YT):
            cum = np.cumsum(y_c[sorted_rows], axis=1)  # (k, n_rows)
            left[:, c] = cum[col, pos] - np.where(first > 0, cum[col, first - 1], 0.0)
    return node, col, pos, left, Gs


def level_splits(
    XT: np.ndarray,
    YT: np.ndarray,
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
    w: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best threshold split of every node of one tree level, searched all at once.

    Parameters
    ----------
    XT : ndarray of shape (n_features, n_samples)
        The training data, transposed and C-contiguous.
    YT : ndarray of shape (n_classes, n_samples)
        Weighted one-hot labels, transposed (column ``i`` is ``w_i e_{y_i}``, all
        ``w_i > 0``).
    rows : ndarray of shape (n_rows,)
        Rows (of ``YT``) of the level's nodes, grouped node by node.
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
        Ranks of the data; with ``codes`` (shape (n_features, n_samples):
        ``rank * n_classes + class`` of every training value) and ``w`` (weight of each row
        of ``YT``, shape (n_yrows,)) it enables the histogram search.

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
    one ``bincount`` gives the weighted class histogram of every (candidate, node, rank) and
    a cumulative sum over ranks the left counts of every cut; a cut after rank ``r`` is
    valid when the node has rows of rank ``r``. Both searches give the same splits (up to
    values closer than ``FEATURE_THRESHOLD``, merged globally by the ranks but only between
    neighbours by the sort).
    """
    n_rows, n_nodes = rows.shape[0], starts.shape[0]
    sizes = np.diff(np.append(starts, n_rows))
    seg = np.repeat(np.arange(n_nodes), sizes)
    feature = np.full(n_nodes, -1, dtype=np.intp)
    threshold = np.full(n_nodes, np.nan)
    best_cost = np.full(n_nodes, np.inf)
    n_classes = YT.shape[0]
    n_candidates = XT.shape[0] if rng is None else k_features
    use_histogram = binned is not None and (
        n_candidates * n_nodes * binned.n_bins * (n_classes + 1) <= HISTOGRAM_MAX_CELLS
    )
    if use_histogram:
        node, col, pos, left, threshold_of, feats = _histogram_cuts(
            binned, codes, w[rows], xrows, seg, sizes, k_features, rng, n_classes,
            min_samples_leaf,
        )
        if node.size == 0:
            return feature, threshold, best_cost
    else:
        feats, usable = draw_candidates(XT, xrows, starts, k_features, rng)
        node, col, pos, left, Gs = _sorted_cuts(
            XT, YT, rows, xrows, starts, seg, sizes, feats, usable, min_samples_leaf,
            rng is None,
        )
        if node.size == 0:
            return feature, threshold, best_cost

        def threshold_of(nodes, cols, cuts):
            return Gs[cols, cuts], Gs[cols, cuts + 1]

    # Clipped: the node totals are summed in another order, so an absent class could
    # otherwise come out as -1e-15 (NaN entropy).
    right = np.maximum(counts[node] - left, 0.0)
    wl = left.sum(axis=1)
    wr = right.sum(axis=1)
    cost = _children_cost(left, right, wl, wr, criterion)
    # Per node: least cost, then first candidate column, then lowest cut.
    if use_histogram:  # cuts come ordered by (node, column, cut): the first least cost
        first = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
        least = np.fmin.reduceat(cost, first)
        best = np.flatnonzero(cost == np.repeat(least, np.diff(np.r_[first, cost.shape[0]])))
    else:
        best = np.lexsort((pos, col, cost, node))
    best = best[np.r_[True, node[best][1:] != node[best][:-1]]]
    nodes, p, c = node[best], pos[best], col[best]
    lo, hi = threshold_of(nodes, c, p)
    mid = lo / 2.0 + hi / 2.0
    threshold[nodes] = np.where((mid == hi) | ~np.isfinite(mid), lo, mid)
    feature[nodes] = feats[nodes, c]
    best_cost[nodes] = cost[best]
    return feature, threshold, best_cost


def grow_trees(
    XT: np.ndarray,
    y_idx: np.ndarray,
    n_classes: int,
    samples: list[tuple[np.ndarray, np.ndarray]],
    *,
    criterion: str,
    max_depth: int | None,
    min_samples_split: int,
    min_samples_leaf: int,
    min_impurity_decrease: float,
    k_features: int,
    rng: np.random.Generator,
    binned: BinnedFeatures | None = None,
) -> list[TreeArrays]:
    """Grow one tree per sample, all of them together, level by level.

    Parameters
    ----------
    XT : ndarray of shape (n_features, n_samples)
        The training data, transposed and C-contiguous.
    y_idx : ndarray of shape (n_samples,)
        Class index of each training row.
    n_classes : int
    samples : list of (rows, weights)
        For each tree, the distinct training rows it uses (shape (n_t,)) and their positive
        weights (shape (n_t,)); e.g. a bootstrap sample as rows with their counts.
    criterion, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease :
        As in :class:`DecisionTreeClassifier`.
    k_features : int
        Candidate features per node; features are drawn from ``rng`` when it is less than
        ``n_features``.
    rng : numpy.random.Generator
    binned : BinnedFeatures, optional
        ``bin_features(XT)``, when the caller grows several times on the same data
        (AdaBoost); computed here otherwise.

    Returns
    -------
    list of TreeArrays
        One per sample, node ids breadth-first within each tree.

    Notes
    -----
    The trees' rows are stacked as "virtual rows" (a training row used by several trees
    appears once per tree) and each level of every tree is searched by one call of
    :func:`level_splits`, so the per-level cost of the Python and numpy calls is shared by
    all the trees grown together. The features are ranked once (:func:`bin_features`) for
    the histogram search of :func:`level_splits`; setting ``HISTOGRAM_MAX_CELLS = 0``
    forces the sort-based search. A node is a leaf when it is at ``max_depth``, has fewer
    than ``max(min_samples_split, 2 min_samples_leaf)`` rows, is pure, has no valid split,
    or its best split decreases the impurity by less than ``min_impurity_decrease``
    (relative to its tree's total weight, see :class:`DecisionTreeClassifier`).
    """
    depth_limit = np.inf if max_depth is None else max_depth
    min_split = max(min_samples_split, 2 * min_samples_leaf)
    feature_rng = rng if k_features < XT.shape[0] else None
    base = np.concatenate([rows for rows, _ in samples])
    y_rows = y_idx[base]
    w_rows = np.concatenate([w for _, w in samples])
    Y = np.zeros((base.shape[0], n_classes))
    Y[np.arange(base.shape[0]), y_rows] = w_rows
    YT = np.ascontiguousarray(Y.T)
    if HISTOGRAM_MAX_CELLS <= 0:
        binned = None
    elif binned is None:
        binned = bin_features(XT)
    codes = None if binned is None else binned.ranks.astype(np.intp) * n_classes + y_idx
    tree_weight = np.array([w.sum() for _, w in samples])
    rows = np.arange(base.shape[0])
    starts = np.concatenate(([0], np.cumsum([r.shape[0] for r, _ in samples])[:-1]))
    tree_of = np.arange(len(samples))
    levels = []
    next_id, depth = len(samples), 0
    while starts.size:
        n_nodes = starts.shape[0]
        sizes = np.diff(np.append(starts, rows.shape[0]))
        counts = np.add.reduceat(Y[rows], starts, axis=0)
        w_node = counts.sum(axis=1)
        imp = node_impurity(counts, criterion)
        feature = np.full(n_nodes, -1, dtype=np.intp)
        threshold = np.full(n_nodes, np.nan)
        can_split = (depth < depth_limit) & (sizes >= min_split) & (imp > _EPSILON)
        seg = np.repeat(np.arange(n_nodes), sizes)
        if can_split.any():
            cand = np.flatnonzero(can_split)
            sub_rows = rows[can_split[seg]]
            sub_starts = np.concatenate(([0], np.cumsum(sizes[cand])[:-1]))
            f, thr, cost = level_splits(
                XT, YT, sub_rows, base[sub_rows], sub_starts, counts[cand], k_features,
                criterion, min_samples_leaf, feature_rng, binned, codes, w_rows,
            )
            with np.errstate(invalid="ignore"):
                gain = (w_node[cand] / tree_weight[tree_of[cand]]) * (
                    imp[cand] - cost / w_node[cand]
                )
            ok = (f >= 0) & (gain + _EPSILON >= min_impurity_decrease)
            feature[cand[ok]] = f[ok]
            threshold[cand[ok]] = thr[ok]
        split = feature >= 0
        n_split = int(split.sum())
        left = np.full(n_nodes, -1, dtype=np.intp)
        right = np.full(n_nodes, -1, dtype=np.intp)
        left[split] = next_id + 2 * np.arange(n_split)
        right[split] = left[split] + 1
        levels.append((feature, threshold, left, right, counts / w_node[:, None], imp, sizes,
                       w_node, np.full(n_nodes, depth, dtype=np.intp), tree_of))
        if n_split == 0:
            break
        keep = split[seg]
        rows, seg = rows[keep], seg[keep]
        rank = np.cumsum(split) - 1
        value = XT.reshape(-1).take(feature[seg] * XT.shape[1] + base[rows])
        child = 2 * rank[seg] + (value > threshold[seg])
        # Small unsigned keys let numpy use its (linear-time) radix sort.
        order = np.argsort(child.astype(np.uint16) if n_split < 2**15 else child, kind="stable")
        rows = rows[order]
        starts = np.searchsorted(child[order], np.arange(2 * n_split))
        tree_of = np.repeat(tree_of[split], 2)
        next_id += 2 * n_split
        depth += 1
    *fields, tree = [np.concatenate(parts) for parts in zip(*levels)]
    # Breadth-first ids over all trees -> ids within each tree (same order).
    order = np.argsort(tree, kind="stable")
    first = np.concatenate(([0], np.cumsum(np.bincount(tree, minlength=len(samples)))))
    local = np.empty_like(order)
    local[order] = np.arange(order.shape[0]) - first[tree[order]]
    for k in (2, 3):  # left, right
        fields[k] = np.where(fields[k] >= 0, local[np.maximum(fields[k], 0)], -1)
    return [TreeArrays(*(f[order[first[t]:first[t + 1]]] for f in fields))
            for t in range(len(samples))]


def check_growth_limits(max_depth: int | None, min_samples_split: int) -> None:
    """Validate the depth and node-size limits shared by the CART and ID3 trees.

    Parameters
    ----------
    max_depth : int >= 1 or None
        Maximum depth (root at depth 0); ``None``: unlimited.
    min_samples_split : int >= 2
        A node with fewer rows is a leaf.

    Raises
    ------
    ValueError
        Naming the parameter, the bad value and the values expected.
    """
    if max_depth is not None and (not isinstance(max_depth, numbers.Integral) or max_depth < 1):
        raise ValueError(f"max_depth must be None or an int >= 1, got {max_depth!r}.")
    if not isinstance(min_samples_split, numbers.Integral) or min_samples_split < 2:
        raise ValueError(f"min_samples_split must be an int >= 2, got {min_samples_split!r}.")


def resolve_max_features(max_features, n_features: int) -> int:
    """Number of candidate features per split for ``max_features``.

    ``None`` -> all; ``"sqrt"`` -> ``max(1, floor(sqrt(p)))``; ``"log2"`` ->
    ``max(1, floor(log2(p)))``; an int -> itself (1 <= k <= p); a float in (0, 1] ->
    ``max(1, floor(f p))``.
    """
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        if not 1 <= max_features <= n_features:
            raise ValueError(
                f"max_features={max_features} must be in [1, n_features={n_features}]."
            )
        return int(max_features)
    if isinstance(max_features, numbers.Real) and 0.0 < max_features <= 1.0:
        return max(1, int(max_features * n_features))
    raise ValueError(
        f"max_features must be None, 'sqrt', 'log2', an int in [1, n_features] or a float "
        f"in (0, 1], got {max_features!r}."
    )


class DecisionTreeClassifier(ClassifierMixin, BaseEstimator):
    """Binary classification tree on numeric features, grown greedily depth first.

    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
        Node impurity (entropy in bits).
    max_depth : int or None, default=None
        Maximum depth (root at depth 0); ``None`` grows until leaves are pure or too small.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    min_samples_leaf : int, default=1
        Every child keeps at least this many rows.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted decrease (see Notes) reaches this value.
    max_features : None, "sqrt", "log2", int or float, default=None
        Number of features drawn at random (among those not constant in the node) as split
        candidates at each node, as in random forests; ``None`` uses all of them.
    random_state : None, int or numpy.random.Generator
        Source of the per-node feature draws.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    tree_ : TreeArrays
        The fitted tree.

    Notes
    -----
    A split of node :math:`t` (weight :math:`w_t`) into :math:`L, R` is chosen to minimise
    :math:`w_L I(L) + w_R I(R)`; its impurity decrease is

    .. math:: \\Delta = \\frac{w_t}{w} \\Big(I(t) - \\frac{w_L}{w_t} I(L)
              - \\frac{w_R}{w_t} I(R)\\Big),

    with :math:`w` the total training weight (scikit-learn's definition). Rows with zero
    weight are dropped before growing. Leaves predict the class with the largest weighted
    proportion (the first such class on ties).
    """

    def __init__(
        self,
        criterion: str = "gini",
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        min_impurity_decrease: float = 0.0,
        max_features=None,
        random_state: None | int | np.random.Generator = None,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state

    def _check_params(self) -> None:
        if self.criterion not in ("gini", "entropy"):
            raise ValueError(f"criterion must be 'gini' or 'entropy', got {self.criterion!r}.")
        check_growth_limits(self.max_depth, self.min_samples_split)
        if not isinstance(self.min_samples_leaf, numbers.Integral) or self.min_samples_leaf < 1:
            raise ValueError(
                f"min_samples_leaf must be an int >= 1, got {self.min_samples_leaf!r}."
            )
        if not self.min_impurity_decrease >= 0.0:
            raise ValueError(
                f"min_impurity_decrease must be >= 0, got {self.min_impurity_decrease!r}."
            )

    def fit(self, X, y, sample_weight=None) -> "DecisionTreeClassifier":
        """Grow the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        """
        self._check_params()
        X, y = check_X_y(X, y)
        weight = check_sample_weight(sample_weight, X.shape[0])
        classes, y_idx = np.unique(y, return_inverse=True)
        return self._fit_transposed(np.ascontiguousarray(X.T), y_idx, classes, weight)

    def _fit_transposed(
        self,
        XT: np.ndarray,
        y_idx: np.ndarray,
        classes: np.ndarray,
        weight: np.ndarray,
        binned: BinnedFeatures | None = None,
    ) -> "DecisionTreeClassifier":
        """Grow on validated data: ``XT`` (n_features, n_samples) C-contiguous, class
        indices ``y_idx`` into ``classes``, weights ``weight`` (and ``bin_features(XT)``
        if already computed): what :meth:`fit` does after validation, for ensembles that
        fit many trees on the same data."""
        self._check_params()
        self.classes_ = classes
        self.n_features_in_ = XT.shape[0]
        k_features = resolve_max_features(self.max_features, XT.shape[0])
        rng = check_random_state(self.random_state)
        rows = np.flatnonzero(weight > 0)
        (self.tree_,) = grow_trees(
            XT, y_idx, classes.shape[0], [(rows, weight[rows])],
            criterion=self.criterion, max_depth=self.max_depth,
            min_samples_split=self.min_samples_split, min_samples_leaf=self.min_samples_leaf,
            min_impurity_decrease=self.min_impurity_decrease, k_features=k_features, rng=rng,
            binned=binned,
        )
        return self

    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the tree was fitted on {self.n_features_in_}."
            )
        return X

    def apply(self, X) -> np.ndarray:
        """Leaf id of each row: ndarray of shape (n_samples,)."""
        X = self._check_X(X)
        return self.tree_.apply(X)

    def predict_proba(self, X) -> np.ndarray:
        """Weighted class proportions of the leaf of each row: shape (n_samples, n_classes)."""
        leaves = self.apply(X)
        return self.tree_.value[leaves]

    def predict(self, X) -> np.ndarray:
        """Majority class of the leaf of each row: shape (n_samples,)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def get_depth(self) -> int:
        """Depth of the fitted tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves
