"""Histogram split search of the trees: feature ranks, per-node class histograms, cuts.

Used by :func:`mixlib.tree._split.level_splits` when the features have few distinct values
(e.g. one-hot data): each feature's values are ranked once, the candidate features of every
node are drawn along a random permutation, and one ``bincount`` per chunk of columns gives
the weighted (rank, class) histogram of every (candidate, node); a cumulative sum over the
ranks gives the class counts left of every cut.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Two feature values closer than this are treated as equal (no threshold between them).
FEATURE_THRESHOLD = 1e-7

#: Up to this many ranks, :func:`bin_features` ranks values by comparisons, not ``argsort``.
DIRECT_RANK_BINS = 16

#: (Column, row) pairs histogrammed per ``bincount`` call (see :func:`_column_histograms`).
HISTOGRAM_CHUNK = 1 << 16

#: Most bits a feature index takes in a packed permutation key (:func:`_draw_permutation`):
#: a key from ``Generator.random`` has 53 significant bits, so with at most 10 feature bits
#: the packed integer stays within the 63 bits of an ``int64`` (up to 1024 features).
PACKED_FEATURE_BITS = 10

#: Up to this many ranks, a cumulative sum over the ranks is one whole-array addition per
#: rank (:func:`_accumulate_bins`, :func:`_left_counts`), faster than ``numpy.cumsum`` over
#: a short axis; past it, ``cumsum``.
SHORT_RANK_AXIS = 32

#: Nodes that lack varying features after their first ``k`` drawn ones get the next ones in
#: batches of ``ceil(k / SHORT_NODE_BATCHES)`` features: such nodes usually lack only a few,
#: so a third of ``k`` at a time histograms far fewer columns than ``k`` more.
SHORT_NODE_BATCHES = 3


def _draw_permutation(rng: np.random.Generator, n_nodes: int, n_features: int,
                      head: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Features of each node ordered by the keys ``rng.random((n_nodes, n_features))`` (a
    uniform random permutation, ``argsort(keys, axis=1)``), and those keys as
    :func:`_order_tail` takes them.

    The keys are multiples of ``2**-53``: scaled in place by ``2**(53 + bits)`` they become
    exact integers with room for the feature in their low ``bits``, and one in-place integer
    sort (much faster than ``argsort``) orders them. With ``head``, only the first ``head``
    positions of each row are put in order (a partition, then a sort of those): the rest
    hold the other features in no particular order until :func:`_order_tail` orders the
    rows that read them."""
    keys = rng.random((n_nodes, n_features))
    bits = (n_features - 1).bit_length()
    if bits > PACKED_FEATURE_BITS:
        return np.argsort(keys, axis=1), keys
    keys *= 2.0 ** (53 + bits)  # exact: a power-of-2 scaling
    return _sorted_features(keys, bits, head), keys


def _sorted_features(scaled: np.ndarray, bits: int, head: int | None) -> np.ndarray:
    """Features ordered by their keys ``scaled`` (keys times ``2**(53 + bits)``, exact
    integers), the first ``head`` positions of each row only with ``head``."""
    n_features = scaled.shape[1]
    packed = scaled.astype(np.int64)
    packed |= np.arange(n_features)
    if head is not None and head < n_features:
        packed.partition(head - 1, axis=1)
        packed[:, :head].sort(axis=1)
    else:
        packed.sort(axis=1)
    packed &= (1 << bits) - 1
    return packed


def _order_tail(perm: np.ndarray, scaled: np.ndarray, nodes: np.ndarray, head: int) -> None:
    """Order, in place, the positions past ``head`` of the rows ``nodes`` of ``perm``, from
    :func:`_draw_permutation` with its keys ``scaled``: those rows become those of the
    whole permutation."""
    n_features = scaled.shape[1]
    bits = (n_features - 1).bit_length()
    if bits > PACKED_FEATURE_BITS or head >= n_features or nodes.size == 0:
        return  # already fully ordered
    tail = perm[nodes, head:]
    packed = scaled[nodes[:, None], tail].astype(np.int64)
    packed |= tail
    packed.sort(axis=1)
    packed &= (1 << bits) - 1
    perm[nodes, head:] = packed


@dataclass
class BinnedFeatures:
    """Dense ranks of each feature's values, for histogram split search.

    Values closer than ``FEATURE_THRESHOLD`` to the previous distinct value share a rank.

    Attributes
    ----------
    ranks : ndarray of shape (n_features, n_samples)
        Rank of every value within its feature (0 = smallest), of the smallest unsigned
        integer type holding ``n_bins - 1``.
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
    """Rank the values of every feature of ``XT`` (shape (n_features, n_samples)).

    The values are sorted without their positions (``numpy.sort``, much faster than
    ``argsort`` on the ties of discrete data); with at most ``DIRECT_RANK_BINS`` ranks, a
    value's rank is the number of ranks after the first whose smallest value it reaches,
    else the ranks are put back through an ``argsort``."""
    n_features, n_samples = XT.shape
    Xs = np.sort(XT, axis=1)
    first = np.ones(Xs.shape, dtype=bool)
    np.greater(Xs[:, 1:], Xs[:, :-1] + FEATURE_THRESHOLD, out=first[:, 1:])
    sorted_ranks = np.cumsum(first, axis=1, dtype=np.int32)
    sorted_ranks -= 1
    n_bins = int(sorted_ranks[:, -1].max()) + 1
    low = np.full((n_features, n_bins), np.inf)
    high = np.full((n_features, n_bins), -np.inf)
    f, i = np.divmod(np.flatnonzero(first), n_samples)  # faster than a 2-d nonzero
    low[f, sorted_ranks[f, i]] = Xs[f, i]
    # A rank's last value is just before the next rank's first one, or ends its row.
    later = i > 0
    f = np.concatenate((f[later], np.arange(n_features)))
    i = np.concatenate((i[later] - 1, np.full(n_features, n_samples - 1)))
    high[f, sorted_ranks[f, i]] = Xs[f, i]
    # The smallest integer type: gathers of ranks stay in the processor's cache.
    rank_type = np.min_scalar_type(n_bins - 1)
    if n_bins <= DIRECT_RANK_BINS:
        ranks = np.zeros(XT.shape, dtype=rank_type)
        for b in range(1, n_bins):  # low is +inf past a feature's last rank
            np.add(ranks, XT >= low[:, b : b + 1], out=ranks)
    else:
        ranks = np.empty(XT.shape, dtype=rank_type)
        np.put_along_axis(ranks, np.argsort(XT, axis=1), sorted_ranks, axis=1)
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
        ``rank * n_classes + class`` of every (feature, training row), C-contiguous (of any
        integer type).
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
            cell = codes[lo:hi].take(xrows, axis=1) + offset[: hi - lo]
        else:
            cell = np.repeat(start[lo:hi], sizes, axis=1)  # (hi - lo, n_rows)
            cell += xrows
            np.add(flat.take(cell), offset[: hi - lo], out=cell)
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
    if a.shape[2] > SHORT_RANK_AXIS:
        return np.cumsum(a, axis=2)
    out = a.copy()
    for b in range(1, a.shape[2]):
        out[:, :, b] += out[:, :, b - 1]
    return out


def _left_counts(
    hist_w: np.ndarray, col: np.ndarray, node: np.ndarray, cut: np.ndarray
) -> np.ndarray:
    """Class weights at ranks ``<= cut`` of each (``col``, ``node``) histogram of ``hist_w``
    (shape (c, n_nodes, n_bins, n_classes)): shape (n_cuts, n_classes).

    Added in rank order, as the cumulative sum of :func:`_accumulate_bins` does, but only
    for the cuts asked for (with few ranks; otherwise through that cumulative sum)."""
    if hist_w.shape[2] > SHORT_RANK_AXIS:
        return _accumulate_bins(hist_w)[col, node, cut]
    left = hist_w[col, node, 0]
    later = np.arange(cut.shape[0])
    for b in range(1, hist_w.shape[2]):
        later = later[cut[later] >= b]
        if later.size == 0:
            break
        left[later] += hist_w[col[later], node[later], b]
    return left


def _varying_first(varying: np.ndarray, k: int) -> np.ndarray:
    """Positions of the first ``k`` True entries of each row of ``varying``, then of its
    first False ones: ``argsort(~varying, kind="stable")[:, :k]``, by one sort of unique
    integer keys (much faster than a stable sort of booleans row by row)."""
    n = varying.shape[1]
    key = np.arange(n, dtype=np.int32) + (~varying) * np.int32(n)
    key.sort(axis=1)
    return key[:, :k] % n


def _varying_first_within(varying: np.ndarray, k: int, head: int,
                          wide: np.ndarray) -> np.ndarray:
    """:func:`_varying_first` of ``varying``, reading only the first ``head`` columns of
    the rows not ``wide`` (boolean, shape (n_rows,)): those rows must have ``k`` True
    entries among them (or ``head`` be every column)."""
    first = np.empty((varying.shape[0], k), dtype=np.intp)
    first[wide] = _varying_first(varying[wide], k)
    first[~wide] = _varying_first(varying[~wide, :head], k)
    return first


def _varying_columns(present: np.ndarray) -> np.ndarray:
    """Whether each (node, column) has rows of at least two ranks, from ``present`` (shape
    (c, n_nodes, n_bins), see :func:`_present_bins`): shape (n_nodes, c)."""
    return (_accumulate_bins(present.astype(np.intp))[:, :, -1] > 1).T


def _gather_ranks(ranks: np.ndarray, cols: np.ndarray, xrows: np.ndarray,
                  seg: np.ndarray) -> np.ndarray:
    """Rank of every row in each of its node's features: ``cols`` (shape (n_nodes, c))
    gives each node's features, ``xrows`` and ``seg`` (shape (n_rows,)) the data row and
    node of each row; returns shape (n_rows, c)."""
    index = (cols * ranks.shape[1]).take(seg, axis=0)  # (n_rows, c): rows of a small table
    index += xrows[:, None]
    return ranks.reshape(-1).take(index)


def _segments_vary(r: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Whether each node has rows of two ranks or more in each column of ``r`` (shape
    (n_rows, c), rows grouped by node, ``sizes`` rows per node, all positive): boolean
    array of shape (n_nodes, c). A node varies when the rank changes between two of its
    consecutive rows: one ``logical_or.reduceat`` of the changes over each node's rows."""
    starts = np.cumsum(sizes) - sizes
    change = np.empty(r.shape, dtype=bool)
    np.not_equal(r[1:], r[:-1], out=change[1:])
    change[starts] = False  # a node's first row follows another node's rows
    return np.logical_or.reduceat(change, starts, axis=0)


def _rank_varying(
    ranks: np.ndarray, cols: np.ndarray, xrows: np.ndarray, seg: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """Whether each (node, column) has rows of at least two ranks, from the rows' ranks.

    ``cols`` (shape (n_nodes, c)) gives each node's features, ``xrows`` and ``seg`` the
    data row and node of each row (grouped by node, ``sizes`` rows per node, all positive):
    boolean array of shape (n_nodes, c), as :func:`_varying_columns` reads it from
    histograms (every row has a positive weight), at a cost per (column, row) instead of
    per (column, node, rank, class) (:func:`_gather_ranks`, :func:`_segments_vary`)."""
    return _segments_vary(_gather_ranks(ranks, cols, xrows, seg), sizes)
