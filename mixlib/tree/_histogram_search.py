"""The valid cuts of a level's nodes from per-node (rank, class) histograms, compiled.

Used by :func:`mixlib.tree._split.level_splits` when the features have few distinct values
(e.g. one-hot data). One compiled loop (numba) takes each node in turn, histograms its rows
feature after feature along the node's random permutation, keeps the first ``k`` features
that vary in the node, and lists their valid cuts with the class weights left of each. A
node reads its rows once per feature it examines and nothing else: no (candidate, node,
rank, class) array is built, and a node that meets constant features reads further down its
own permutation without holding back the others.

Numerics: a cell's weight is the sum of its rows' weights in row order, and the class
weights left of a cut the sum of the ranks' cells in rank order, the additions the numpy
code made (``bincount``, then a cumulative sum over the ranks): the trees are bit for bit
the same. Nothing else is computed here: the children's costs stay in numpy
(:func:`mixlib.tree._impurity.children_cost`), so the entropy's logarithms are numpy's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from mixlib.tree._bins import PACKED_FEATURE_BITS, BinnedFeatures, _draw_permutation


@dataclass
class HistogramCuts:
    """The valid cuts of a level, ordered by (node, candidate, cut).

    Attributes
    ----------
    node, feature, cut, next_rank : ndarray of int of shape (n_cuts,)
        Node, feature, the rank after which the cut falls and the node's next present rank
        of that feature (the threshold falls between the two).
    left : ndarray of shape (n_cuts, n_classes)
        Class weights left of the cut.
    """

    node: np.ndarray
    feature: np.ndarray
    cut: np.ndarray
    next_rank: np.ndarray
    left: np.ndarray

    def thresholds(self, binned: BinnedFeatures,
                   best: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two values the thresholds of the cuts ``best`` fall between: the largest
        value of rank ``cut`` and the smallest of rank ``next_rank``."""
        f = self.feature[best]
        return binned.high[f, self.cut[best]], binned.low[f, self.next_rank[best]]


def histogram_cuts(binned: BinnedFeatures, codes: np.ndarray, xrows: np.ndarray, w: np.ndarray,
                   sizes: np.ndarray, n_classes: int, k: int, min_samples_leaf: int,
                   rng: np.random.Generator | None) -> HistogramCuts:
    """The valid cuts of every node of a level.

    Parameters
    ----------
    binned : BinnedFeatures
    codes : ndarray of shape (n_features, n_samples)
        ``rank * n_classes + class`` of every (feature, training row), C-contiguous (of an
        unsigned integer type).
    xrows, w : ndarray of shape (n_rows,)
        Data row and (positive) weight of each row, grouped by node.
    sizes : ndarray of shape (n_nodes,)
        Rows per node (all positive).
    n_classes, k, min_samples_leaf :
        As in :func:`mixlib.tree._split.level_splits`.
    rng : numpy.random.Generator or None
        With ``rng``, the candidates of a node are its first ``k`` varying features in the
        order of a uniform random permutation, drawn as
        :func:`mixlib.tree._split.draw_candidates` draws it (the same draws of ``rng``);
        without, every feature in column order.

    Returns
    -------
    HistogramCuts

    Notes
    -----
    A feature varies in a node when its rows fall in two ranks or more. A cut after rank
    ``r`` is valid when the node has rows of rank ``r`` and, with ``min_samples_leaf`` at
    1, of a later rank; otherwise when both sides keep ``min_samples_leaf`` rows.
    """
    n_nodes, n_features = sizes.shape[0], codes.shape[0]
    starts = np.cumsum(sizes) - sizes
    if rng is None:  # one row, read by every node: the same compiled types as a draw
        perm, scaled = np.arange(n_features)[None, :], np.empty((1, 0))
        head, k = n_features, n_features
    else:
        head = min(n_features, 2 * k)
        perm, scaled = _draw_permutation(rng, n_nodes, n_features, head)
        if (n_features - 1).bit_length() > PACKED_FEATURE_BITS:
            head = n_features  # argsort: already the whole permutation
    weighting = _weighting(w)
    bound = n_nodes * min(k, n_features) * max(binned.n_bins - 1, 0)
    node = np.empty(bound, dtype=np.intp)
    feature = np.empty(bound, dtype=np.intp)
    cut = np.empty(bound, dtype=np.intp)
    next_rank = np.empty(bound, dtype=np.intp)
    left = np.empty((bound, n_classes))
    n_cuts = _level_cuts(
        codes, xrows.astype(np.intp, copy=False), w, w.astype(np.int64), starts,
        sizes, perm, scaled, head, rng is not None, k, binned.n_bins, n_classes,
        min_samples_leaf, weighting,
        node, feature, cut, next_rank, left,
    )
    return HistogramCuts(node[:n_cuts], feature[:n_cuts], cut[:n_cuts], next_rank[:n_cuts],
                         left[:n_cuts])


#: How the rows' weights are summed (:func:`_weighting`).
WEIGHTS_UNIT, WEIGHTS_INTEGER, WEIGHTS_FLOAT = 0, 1, 2

#: Integer weights are summed in int64 while every total stays exact as a float64.
MAX_INTEGER_TOTAL = 2**53


def _weighting(w: np.ndarray) -> int:
    """:data:`WEIGHTS_UNIT` when every weight is 1 (the histograms are row counts),
    :data:`WEIGHTS_INTEGER` when they are integers of an exact total (bootstrap counts:
    summed as integers, in any order), else :data:`WEIGHTS_FLOAT` (summed in row order)."""
    if np.all(w == 1.0):
        return WEIGHTS_UNIT
    if np.all(w == np.floor(w)) and w.sum() < MAX_INTEGER_TOTAL:
        return WEIGHTS_INTEGER
    return WEIGHTS_FLOAT


@numba.njit(cache=True, nogil=True)
def _constant(codes_row, rank_of, xrows, start, end):  # pragma: no cover - compiled
    """Whether the rows ``start .. end`` all have the same rank (``rank_of`` their code in
    ``codes_row``)."""
    first = rank_of[codes_row[xrows[start]]]
    for i in range(start + 1, end):
        if rank_of[codes_row[xrows[i]]] != first:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _histogram(codes_row, xrows, w, w_int, start, end, weighting, lanes, lane_weight,
               weight):  # pragma: no cover - compiled
    """Histogram of the rows ``start .. end`` over the cells of ``codes_row``: row counts
    (and integer weights) in four lanes, rows taken four by four, so that consecutive rows
    of one cell do not wait for each other's increment (integer sums in any order are
    exact); float weights into ``weight``, in row order."""
    lanes[:] = 0
    if weighting == WEIGHTS_INTEGER:
        lane_weight[:] = 0
    i = start
    while i + 4 <= end:
        a, b = codes_row[xrows[i]], codes_row[xrows[i + 1]]
        c, d = codes_row[xrows[i + 2]], codes_row[xrows[i + 3]]
        lanes[0, a] += 1
        lanes[1, b] += 1
        lanes[2, c] += 1
        lanes[3, d] += 1
        if weighting == WEIGHTS_INTEGER:
            lane_weight[0, a] += w_int[i]
            lane_weight[1, b] += w_int[i + 1]
            lane_weight[2, c] += w_int[i + 2]
            lane_weight[3, d] += w_int[i + 3]
        i += 4
    while i < end:
        a = codes_row[xrows[i]]
        lanes[0, a] += 1
        if weighting == WEIGHTS_INTEGER:
            lane_weight[0, a] += w_int[i]
        i += 1
    for cell in range(lanes.shape[1]):
        lanes[0, cell] += (lanes[1, cell] + lanes[2, cell]) + lanes[3, cell]
    if weighting == WEIGHTS_INTEGER:
        for cell in range(lanes.shape[1]):
            weight[cell] = ((lane_weight[0, cell] + lane_weight[1, cell])
                            + (lane_weight[2, cell] + lane_weight[3, cell]))
    elif weighting == WEIGHTS_FLOAT:
        weight[:] = 0.0
        for i in range(start, end):
            weight[codes_row[xrows[i]]] += w[i]


@numba.njit(cache=True, nogil=True)
def _sift_down(heap, i, n):  # pragma: no cover - compiled
    """Restore the min-heap order of ``heap[:n]`` below position ``i``."""
    while True:
        child = 2 * i + 1
        if child >= n:
            return
        if child + 1 < n and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= heap[i]:
            return
        heap[i], heap[child] = heap[child], heap[i]
        i = child


@numba.njit(cache=True, nogil=True)
def _tail_heap(perm_row, scaled_row, head, heap):  # pragma: no cover - compiled
    """Fill ``heap`` with the packed keys (key, then feature in the low bits, as
    :func:`mixlib.tree._bins._order_tail` packs them) of the features past ``head`` of the
    node's permutation, as a min-heap; return its size. Popping it gives the rest of the
    permutation in order, each feature for about ``log2`` of their number steps, so a node
    pays only for the features it reads."""
    n = perm_row.shape[0] - head
    for p in range(n):
        f = perm_row[head + p]
        heap[p] = np.int64(scaled_row[f]) | f
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(heap, i, n)
    return n


@numba.njit(cache=True, nogil=True)
def _level_cuts(codes, xrows, w, w_int, starts, sizes, perm, scaled, head, draw, k,
                n_bins, n_classes, min_samples_leaf, weighting,
                out_node, out_feature, out_cut, out_next, out_left):  # pragma: no cover
    """Fill the ``out_`` arrays with the valid cuts of every node (see
    :func:`histogram_cuts`); return how many there are."""
    n_features = perm.shape[1]
    per_node = n_bins * n_classes
    feature_mask = np.int64(1)
    while feature_mask < n_features:
        feature_mask <<= 1
    feature_mask -= 1
    weight = np.zeros(per_node)
    lanes = np.zeros((4, per_node), dtype=np.int64)
    lane_weight = np.zeros((4, per_node), dtype=np.int64)
    heap = np.empty(n_features, dtype=np.int64)
    left = np.zeros(n_classes)
    rank_of = np.arange(per_node) // n_classes
    n_cuts = 0
    for j in range(sizes.shape[0]):
        start, end = starts[j], starts[j] + sizes[j]
        n_candidates, in_heap = 0, 0
        for p in range(n_features):
            if draw and n_candidates == k:
                break
            if not draw:
                f = perm[0, p]
            elif p < head:
                f = perm[j, p]
            else:  # the next feature of the tail, in key order
                if p == head:
                    in_heap = _tail_heap(perm[j], scaled[j], head, heap)
                f = heap[0] & feature_mask
                in_heap -= 1
                heap[0] = heap[in_heap]
                _sift_down(heap, 0, in_heap)
            if _constant(codes[f], rank_of, xrows, start, end):
                continue  # no cut; a drawn node reads a further feature
            n_candidates += 1
            _histogram(codes[f], xrows, w, w_int, start, end, weighting, lanes, lane_weight,
                       weight)
            left[:] = 0.0
            n_left, previous = 0, -1
            for b in range(n_bins):
                in_rank = 0
                for c in range(n_classes):
                    in_rank += lanes[0, b * n_classes + c]
                if in_rank == 0:
                    continue
                if previous >= 0 and (min_samples_leaf <= 1 or (
                        n_left >= min_samples_leaf and end - start - n_left >= min_samples_leaf)):
                    out_node[n_cuts] = j
                    out_feature[n_cuts] = f
                    out_cut[n_cuts] = previous
                    out_next[n_cuts] = b
                    out_left[n_cuts, :] = left
                    n_cuts += 1
                for c in range(n_classes):
                    if weighting == WEIGHTS_UNIT:
                        left[c] += lanes[0, b * n_classes + c]
                    else:
                        left[c] += weight[b * n_classes + c]
                n_left += in_rank
                previous = b
    return n_cuts
