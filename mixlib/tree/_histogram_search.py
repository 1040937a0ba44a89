"""The valid cuts of a level's nodes from per-node (rank, class) histograms.

:class:`HistogramSearch` draws each node's candidate features and histograms them with the
helpers of :mod:`mixlib.tree._bins`; :class:`HistogramCuts` holds the valid cuts it finds,
for :func:`mixlib.tree._split.level_splits` to score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mixlib.tree._bins import (
    SHORT_NODE_BATCHES,
    BinnedFeatures,
    _accumulate_bins,
    _column_histograms,
    _draw_permutation,
    _left_counts,
    _order_tail,
    _present_bins,
    _rank_varying,
    _varying_columns,
    _varying_first_within,
)


@dataclass
class NodeRows:
    """The training rows of a level's nodes, grouped by node.

    Attributes
    ----------
    xrows, w, seg : ndarray of shape (n_rows,)
        Data row, weight and node (0..n_nodes-1) of each row.
    sizes : ndarray of shape (n_nodes,)
        Rows per node (all positive).
    """

    xrows: np.ndarray
    w: np.ndarray
    seg: np.ndarray
    sizes: np.ndarray

    def subset(self, nodes: np.ndarray) -> "NodeRows":
        """The rows of ``nodes`` (sorted), renumbered ``0..len(nodes)-1``."""
        inside = np.zeros(self.sizes.shape[0], dtype=bool)
        inside[nodes] = True
        sub = inside[self.seg]
        return NodeRows(self.xrows[sub], self.w[sub], (np.cumsum(inside) - 1)[self.seg[sub]],
                        self.sizes[nodes])


@dataclass
class CandidateHistograms:
    """Each node's ``k`` candidate features and their histograms.

    Attributes
    ----------
    feats, usable : ndarray of shape (n_nodes, k)
        Candidate features, and whether each varies in its node.
    hist_w : ndarray of shape (k, n_nodes, n_bins * n_classes)
        Weighted (rank, class) histogram of every (candidate, node).
    hist_n : ndarray like ``hist_w`` or None
        Row counts per cell (only when ``min_samples_leaf > 1``).
    present : ndarray of shape (k, n_nodes, n_bins)
        Whether each (candidate, node, rank) holds rows.
    """

    feats: np.ndarray
    usable: np.ndarray
    hist_w: np.ndarray
    hist_n: np.ndarray | None
    present: np.ndarray


@dataclass
class HistogramCuts:
    """The valid cuts of a level, ordered by (node, candidate, cut).

    Attributes
    ----------
    node, col, cut : ndarray of int of shape (n_cuts,)
        Node, candidate column and the rank after which the cut falls.
    left : ndarray of shape (n_cuts, n_classes)
        Class weights left of the cut.
    feats : ndarray of shape (n_nodes, k)
        Candidate features of every node.
    present : ndarray of shape (k, n_nodes, n_bins)
        Whether each (candidate, node, rank) holds rows.
    binned : BinnedFeatures
    """

    node: np.ndarray
    col: np.ndarray
    cut: np.ndarray
    left: np.ndarray
    feats: np.ndarray
    present: np.ndarray
    binned: BinnedFeatures

    def thresholds(self, nodes: np.ndarray, cols: np.ndarray,
                   cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two values a threshold falls between: the largest value of rank ``cut`` and
        the smallest of the node's next present rank."""
        f = self.feats[nodes, cols]
        later = self.present[cols, nodes] & (np.arange(self.binned.n_bins) > cuts[:, None])
        return self.binned.high[f, cuts], self.binned.low[f, np.argmax(later, axis=1)]


class HistogramSearch:
    """Candidate draws and valid cuts of a level's nodes from (rank, class) histograms.

    Parameters
    ----------
    binned : BinnedFeatures
    codes : ndarray of shape (n_features, n_samples)
        ``rank * n_classes + class`` of every (feature, training row), C-contiguous.
    n_classes : int
    min_samples_leaf : int
    """

    def __init__(self, binned: BinnedFeatures, codes: np.ndarray, n_classes: int,
                 min_samples_leaf: int) -> None:
        self.binned, self.codes = binned, codes
        self.n_bins, self.n_classes = binned.n_bins, n_classes
        self.min_samples_leaf = min_samples_leaf
        self.counts = min_samples_leaf > 1

    def cuts(self, rows: NodeRows, k_features: int,
             rng: np.random.Generator | None) -> HistogramCuts:
        """The valid cuts of every node of ``rows``.

        With ``rng``, the candidates are those of :func:`mixlib.tree._split.draw_candidates`
        (the first ``k_features`` features, in the order of a uniform random permutation,
        that are not constant in the node; the same draws of ``rng``,
        :meth:`drawn_features`); without, every feature (:meth:`all_features`).
        """
        if rng is None:
            candidates = self.all_features(rows)
        else:
            candidates = self.drawn_features(rows, k_features, rng)
        node, col, cut = self.valid_cuts(rows, candidates)
        k, n_nodes = candidates.feats.shape[1], rows.sizes.shape[0]
        hist_w = candidates.hist_w.reshape(k, n_nodes, self.n_bins, self.n_classes)
        return HistogramCuts(node, col, cut, _left_counts(hist_w, col, node, cut),
                             candidates.feats, candidates.present, self.binned)

    def histograms(self, rows: NodeRows, cols: np.ndarray,
                   all_columns: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """Histograms of the features ``cols`` (shape (n_nodes, c)) of every node of
        ``rows`` (:func:`mixlib.tree._bins._column_histograms`)."""
        return _column_histograms(self.codes, rows.xrows, rows.w, rows.seg, cols,
                                  self.n_bins * self.n_classes, self.counts,
                                  all_columns=all_columns)

    def all_features(self, rows: NodeRows) -> CandidateHistograms:
        """Every feature, in column order, for every node (no draw)."""
        n_nodes, n_features = rows.sizes.shape[0], self.codes.shape[0]
        feats = np.broadcast_to(np.arange(n_features), (n_nodes, n_features))
        hist_w, hist_n = self.histograms(rows, feats, all_columns=True)
        return CandidateHistograms(feats, np.ones((n_nodes, n_features), dtype=bool), hist_w,
                                   hist_n, _present_bins(hist_w, self.n_bins))

    def drawn_features(self, rows: NodeRows, k: int,
                       rng: np.random.Generator) -> CandidateHistograms:
        """The first ``k`` features of a random permutation that vary in each node.

        Constancy is read from the histograms themselves (a feature varies in a node when
        its rows fall in two ranks or more), and features are histogrammed along the
        permutation only until a node has ``k`` varying ones: the first ``k`` for every
        node, then batches (:data:`mixlib.tree._bins.SHORT_NODE_BATCHES`) for the nodes
        still short, up to ``2 k`` features. Past those, constancy of the rest is read from
        their rows' ranks (:func:`mixlib.tree._bins._rank_varying`: few rows per node, many
        columns) and the ``k`` features then drawn are histogrammed anew.
        """
        n_nodes, n_features = rows.sizes.shape[0], self.codes.shape[0]
        perm, keys = _draw_permutation(rng, n_nodes, n_features, 2 * k)  # past 2 k: tail only
        varying = np.zeros((n_nodes, n_features), dtype=bool)
        hist_w, hist_n = self.histograms(rows, perm[:, :k])
        present = _present_bins(hist_w, self.n_bins)
        varying[:, :k] = _varying_columns(present)
        blocks = [(np.arange(n_nodes), 0, hist_w, hist_n, present)]
        tail = self._extend_short_nodes(rows, keys, perm, varying, k, blocks)
        candidates = CandidateHistograms(perm[:, :k], varying[:, :k], hist_w, hist_n, present)
        if len(blocks) > 1:
            self._first_varying(rows, perm, varying, k, blocks, tail, candidates)
        return candidates

    def _extend_short_nodes(self, rows: NodeRows, keys: np.ndarray, perm: np.ndarray,
                            varying: np.ndarray, k: int, blocks: list) -> np.ndarray | None:
        """Histogram further permuted features of the nodes with fewer than ``k`` varying.

        Fills ``varying`` and appends ``(nodes, first column, hist_w, hist_n, present)`` to
        ``blocks`` for each batch; returns the nodes still short after ``2 k`` features,
        whose remaining columns' constancy came from ranks (None if there are none): their
        rows of ``perm`` (from :func:`mixlib.tree._bins._draw_permutation`, with ``keys``)
        are ordered past ``2 k`` here.
        """
        n_features = perm.shape[1]
        m = min(n_features, 2 * k)
        step = max(1, -(-k // SHORT_NODE_BATCHES))
        bounds = [(lo, min(lo + step, m)) for lo in range(k, m, step)]
        bounds += [(m, n_features)] if m < n_features else []
        for lo, hi in bounds:
            short = np.flatnonzero(np.count_nonzero(varying[:, :lo], axis=1) < k)
            if short.size == 0 or lo >= hi:
                return None
            sub = rows.subset(short)
            if lo == m:
                _order_tail(perm, keys, short, m)
                varying[short, m:] = _rank_varying(self.binned.ranks, perm[short, m:],
                                                   sub.xrows, sub.seg, sub.sizes)
                return short
            block_w, block_n = self.histograms(sub, perm[short, lo:hi])
            block_present = _present_bins(block_w, self.n_bins)
            varying[short, lo:hi] = _varying_columns(block_present)
            blocks.append((short, lo, block_w, block_n, block_present))
        return None

    def _first_varying(self, rows: NodeRows, perm: np.ndarray, varying: np.ndarray, k: int,
                       blocks: list, tail: np.ndarray | None,
                       candidates: CandidateHistograms) -> None:
        """Make each short node's candidates its first ``k`` varying features.

        Nodes with ``k`` varying features among the first ``k`` keep those; for the others
        a stable sort puts the varying features first, in permutation order
        (:func:`mixlib.tree._bins._varying_first`), and their histograms are gathered from
        the batches of :meth:`_extend_short_nodes` (histogrammed anew for the ``tail``
        nodes, whose features past ``2 k`` were only ranked). Updates ``candidates``.
        """
        n_nodes = perm.shape[0]
        short = blocks[1][0]
        first = np.broadcast_to(np.arange(k), (n_nodes, k)).copy()
        # Short nodes other than the tail have k varying features among the first 2 k.
        in_tail = np.zeros(n_nodes, dtype=bool)
        if tail is not None:
            in_tail[tail] = True
        first[short] = _varying_first_within(varying[short], k, min(perm.shape[1], 2 * k),
                                             in_tail[short])
        hist_w, hist_n, present = candidates.hist_w, candidates.hist_n, candidates.present
        for b, (nodes, lo, block_w, block_n, block_present) in enumerate(blocks):
            members, local = (short, short) if b == 0 else (nodes, np.arange(nodes.size))
            position = first[members] - lo
            i, j = np.nonzero((position >= 0) & (position < block_w.shape[0]))
            # (column, node) pairs as rows of the flattened blocks: one gather each.
            target = j * n_nodes + members[i]
            source = position[i, j] * block_w.shape[1] + local[i]
            _copy_cells(hist_w, target, block_w, source)
            _copy_cells(present, target, block_present, source)
            if self.counts:
                _copy_cells(hist_n, target, block_n, source)
        candidates.feats = perm[:, :k].copy()
        candidates.feats[short] = perm[short[:, None], first[short]]
        candidates.usable = varying[:, :k].copy()
        candidates.usable[short] = varying[short[:, None], first[short]]
        if tail is not None:
            late = tail[(first[tail] >= min(perm.shape[1], 2 * k)).any(axis=1)]
            if late.size:
                late_w, late_n = self.histograms(rows.subset(late), candidates.feats[late])
                hist_w[:, late] = late_w
                present[:, late] = _present_bins(late_w, self.n_bins)
                if self.counts:
                    hist_n[:, late] = late_n

    def valid_cuts(self, rows: NodeRows,
                   candidates: CandidateHistograms) -> tuple[np.ndarray, ...]:
        """``node, col, cut`` of every valid cut, ordered by (node, col, cut).

        A cut after rank ``r`` is valid when the node has rows of rank ``r`` and, with
        ``min_samples_leaf`` at 1, some of a later rank; otherwise when both sides keep
        ``min_samples_leaf`` rows. Only usable (varying) candidates are cut.
        """
        k, n_nodes = candidates.feats.shape[1], rows.sizes.shape[0]
        present = candidates.present
        if self.counts:
            per_rank = candidates.hist_n.reshape(k, n_nodes, self.n_bins, self.n_classes)
            n_left = _accumulate_bins(per_rank.sum(axis=3))
            valid = present & (n_left >= self.min_samples_leaf)
            valid &= (rows.sizes[None, :, None] - n_left) >= self.min_samples_leaf
        else:  # one row on each side: some rows of a later rank
            n_present = _accumulate_bins(present.astype(np.intp))
            valid = present & (n_present < n_present[:, :, -1:])
        valid &= candidates.usable.T[:, :, None]
        return np.nonzero(valid.transpose(1, 0, 2))


def _copy_cells(dest: np.ndarray, target: np.ndarray, src: np.ndarray,
                source: np.ndarray) -> None:
    """``dest[target] = src[source]`` over the (column, node) pairs of C-contiguous arrays of
    shape (c, n_nodes, ...), the pairs given as flat indices ``column * n_nodes + node``."""
    dest.reshape(-1, *dest.shape[2:])[target] = src.reshape(-1, *src.shape[2:])[source]
