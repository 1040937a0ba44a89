"""Tree growth engine: many trees grown together level by level, stored as flat arrays,
and walked together for prediction."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mixlib.tree._bins import BinnedFeatures, bin_features
from mixlib.tree._packed_search import packed_search_applies
from mixlib.tree._split import class_sum, level_splits, node_impurity

_EPSILON = np.finfo(np.float64).eps

#: Steps of :func:`apply_trees` between two removals of the pairs that reached a leaf.
WALK_STEPS = 4


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
    at every step, each pair moves to ``left`` if ``x[feature] <= threshold``, else to
    ``right`` (both children in one array, ``left`` of node ``i`` at ``2 i``; a leaf is
    its own child), and every ``WALK_STEPS`` steps the pairs that reached a leaf leave the
    walk, so a step costs a few gathers per pair still walking.
    """
    sizes = np.array([t.n_nodes for t in trees])
    offset = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    shift = np.repeat(offset, sizes)
    feature = np.concatenate([t.feature for t in trees])
    threshold = np.concatenate([t.threshold for t in trees])
    is_leaf = feature < 0
    stay = np.flatnonzero(is_leaf)
    children = np.empty(2 * feature.shape[0], dtype=np.intp)  # left of node i at 2 i
    children[0::2] = np.concatenate([t.left for t in trees]) + shift
    children[1::2] = np.concatenate([t.right for t in trees]) + shift
    children[2 * stay] = children[2 * stay + 1] = stay  # a leaf is its own child
    feature = np.where(is_leaf, 0, feature)  # any column: both ways lead back to the leaf
    if mask is None:
        mask = np.ones((len(trees), X.shape[0]), dtype=bool)
    tree, row = np.nonzero(mask)
    flat = np.ascontiguousarray(X).reshape(-1)
    leaf = offset[tree]
    walking = np.flatnonzero(~is_leaf[leaf])
    node, base = leaf[walking], row[walking] * X.shape[1]
    while walking.size:
        for _ in range(WALK_STEPS):
            go_right = flat.take(base + feature.take(node)) > threshold.take(node)
            node += node
            node += go_right
            node = children.take(node)
        done = is_leaf.take(node)
        leaf[walking[done]] = node[done]
        keep = ~done
        walking, node, base = walking[keep], node[keep], base[keep]
    return tree, row, leaf - offset[tree]


def node_class_weights(y: np.ndarray, w: np.ndarray, seg: np.ndarray, starts: np.ndarray,
                       n_classes: int, exact: bool) -> np.ndarray:
    """Weighted class counts of nodes: shape (n_nodes, n_classes).

    ``y`` and ``w`` (shape (n_rows,)) are the class index and weight of each row, grouped
    by node (``seg`` the node of each row, ``starts`` where each node begins). With
    integer weights (``exact``), sums in any order are exact: one ``bincount``. Otherwise
    one ``numpy.add.reduceat`` per class (pairwise summation, as ``numpy.sum``)."""
    n_nodes = starts.shape[0]
    if exact:
        flat = np.bincount(seg * n_classes + y, w, minlength=n_nodes * n_classes)
        return flat.reshape(n_nodes, n_classes)
    return np.stack([np.add.reduceat(np.where(y == c, w, 0.0), starts)
                     for c in range(n_classes)], axis=1)


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
    the histogram and packed-key searches of :func:`level_splits`; setting
    ``mixlib.tree._split.HISTOGRAM_MAX_CELLS = 0`` forces the sort-based searches, and
    ``mixlib.tree._split.PACKED_SORT = False`` the one sorting the values. A node is a leaf
    when it is at ``max_depth``, has fewer
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
    if binned is None:
        binned = bin_features(XT)
    # Small codes make the histograms' gathers cache-friendly; computed in that type (the
    # largest code is below n_bins * n_classes), as cheap as one pass over the ranks.
    code_type = np.min_scalar_type(binned.n_bins * n_classes - 1)
    codes = binned.ranks.astype(code_type)
    codes *= code_type.type(n_classes)
    codes += y_idx.astype(code_type)
    tree_weight = np.array([w.sum() for _, w in samples])
    exact = packed_search_applies(w_rows, tree_weight)
    rows = np.arange(base.shape[0])
    starts = np.concatenate(([0], np.cumsum([r.shape[0] for r, _ in samples])[:-1]))
    tree_of = np.arange(len(samples))
    levels = []
    next_id, depth = len(samples), 0
    while starts.size:
        n_nodes = starts.shape[0]
        sizes = np.diff(np.append(starts, rows.shape[0]))
        seg = np.repeat(np.arange(n_nodes), sizes)
        counts = node_class_weights(y_rows[rows], w_rows[rows], seg, starts, n_classes, exact)
        w_node = class_sum(counts)
        imp = node_impurity(counts, criterion)
        feature = np.full(n_nodes, -1, dtype=np.intp)
        threshold = np.full(n_nodes, np.nan)
        can_split = (depth < depth_limit) & (sizes >= min_split) & (imp > _EPSILON)
        if can_split.any():
            cand = np.flatnonzero(can_split)
            sub_rows = rows[can_split[seg]]
            sub_starts = np.concatenate(([0], np.cumsum(sizes[cand])[:-1]))
            f, thr, cost = level_splits(
                XT, y_rows, w_rows, sub_rows, base[sub_rows], sub_starts, counts[cand], k_features,
                criterion, min_samples_leaf, feature_rng, binned, codes,
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
    fields = [f[order] for f in fields]  # each tree's nodes are a slice of these
    return [TreeArrays(*(f[first[t]:first[t + 1]] for f in fields))
            for t in range(len(samples))]
