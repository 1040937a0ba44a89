"""Feature ranks and candidate draws of the trees' split searches.

Each feature's values are ranked once (:func:`bin_features`), for the histogram search of
:mod:`mixlib.tree._histogram_search` and the packed-key search of
:mod:`mixlib.tree._packed_search`; the candidate features of every node are drawn along a
random permutation (:func:`_draw_permutation`), and the packed search reads which of them
vary in a node from the rows' ranks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Two feature values closer than this are treated as equal (no threshold between them).
FEATURE_THRESHOLD = 1e-7

#: Up to this many ranks, :func:`bin_features` ranks values by comparisons, not ``argsort``.
DIRECT_RANK_BINS = 16

#: Most bits a feature index takes in a packed permutation key (:func:`_draw_permutation`):
#: a key from ``Generator.random`` has 53 significant bits, so with at most 10 feature bits
#: the packed integer stays within the 63 bits of an ``int64`` (up to 1024 features).
PACKED_FEATURE_BITS = 10


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
    boolean array of shape (n_nodes, c) (:func:`_gather_ranks`, :func:`_segments_vary`)."""
    return _segments_vary(_gather_ranks(ranks, cols, xrows, seg), sizes)
