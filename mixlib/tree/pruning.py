"""Minimal cost-complexity pruning (Breiman, Friedman, Olshen & Stone 1984, ch. 3 and 10).

A grown tree is pruned by the weakest-link algorithm into its sequence of nested subtrees
``T_1 > T_2 > ... > {root}``; the subtree of any complexity parameter ``alpha`` is one of
them. Works on the flat arrays of :class:`mixlib.tree._growth.TreeArrays` and leaves the
growth code alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mixlib.tree._growth import TreeArrays

RISKS = ("misclassification", "impurity")

#: Relative tolerance under which two weakest-link values count as one (they are ratios of
#: sums of node risks, equal in exact arithmetic when two branches tie).
TIE_TOLERANCE = 1e-10


@dataclass(frozen=True)
class PruningPath:
    """The weakest-link sequence of a grown tree.

    Attributes
    ----------
    ccp_alphas : ndarray of shape (n_subtrees,)
        ``alpha_1 = 0 < alpha_2 < ... < alpha_K``: subtree ``T_k`` is the smallest subtree
        minimising ``R_alpha(T) = R(T) + alpha |leaves(T)|`` for ``alpha_k <= alpha <
        alpha_{k+1}``; ``T_K`` is the root alone.
    risks : ndarray of shape (n_subtrees,)
        ``R(T_k)``, the sum of the risks of ``T_k``'s leaves.
    n_leaves : ndarray of shape (n_subtrees,)
        ``|leaves(T_k)|``.
    collapse_alpha : ndarray of shape (n_nodes,)
        For an internal node, the ``alpha_k`` at which its branch is pruned (it becomes a leaf
        of ``T_k``); ``inf`` for a node whose ancestor is pruned first, ``-inf`` for a leaf of
        the grown tree. ``t`` is a leaf of ``T(alpha)`` when ``collapse_alpha[t] <= alpha`` and
        no ancestor's is.
    """

    ccp_alphas: np.ndarray
    risks: np.ndarray
    n_leaves: np.ndarray
    collapse_alpha: np.ndarray


def node_risks(tree: TreeArrays, risk: str = "misclassification") -> np.ndarray:
    """``R(t)`` of every node: its share of the training weight times its impurity
    (``impurity``, scikit-learn's choice) or times its resubstitution error ``1 - max_j
    p(j | t)`` (``misclassification``, Breiman's R(t) = r(t) p(t))."""
    if risk not in RISKS:
        raise ValueError(f"risk must be one of {RISKS}, got {risk!r}.")
    share = tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]
    if risk == "impurity":
        return share * tree.impurity
    return share * (1.0 - tree.value.max(axis=1))


def _parents(tree: TreeArrays) -> np.ndarray:
    parent = np.full(tree.n_nodes, -1, dtype=np.intp)
    internal = np.flatnonzero(tree.left >= 0)
    parent[tree.left[internal]] = internal
    parent[tree.right[internal]] = internal
    return parent


def cost_complexity_path(tree: TreeArrays, risk: str = "misclassification") -> PruningPath:
    """The weakest-link pruning sequence of ``tree`` (Breiman et al. 1984, section 3.3).

    Parameters
    ----------
    tree : TreeArrays
        A grown tree.
    risk : {"misclassification", "impurity"}
        The node risk ``R(t)`` (:func:`node_risks`).

    Returns
    -------
    PruningPath

    Notes
    -----
    For an internal node ``t`` of the current subtree, with branch ``T_t``,

    .. math:: g(t) = \\frac{R(t) - R(T_t)}{|\\tilde T_t| - 1},

    the ``alpha`` at which collapsing ``t`` into a leaf stops costing. Each step sets
    ``alpha_k = min_t g(t)`` and prunes every branch whose ``g`` equals it (to
    :data:`TIE_TOLERANCE`), then recomputes ``g`` on the ancestors; it starts from
    ``alpha = 0`` (pruning the splits that do not lower the risk) and ends at the root.
    scikit-learn's ``cost_complexity_pruning_path`` prunes tied branches one at a time and
    so repeats such an ``alpha``; its distinct values are these.
    """
    r_node = node_risks(tree, risk)
    parent = _parents(tree)
    is_leaf = tree.left < 0
    n_leaves = is_leaf.astype(np.intp)
    r_branch = np.where(is_leaf, r_node, 0.0)
    for node in range(tree.n_nodes - 1, 0, -1):  # breadth-first ids: children after parents
        n_leaves[parent[node]] += n_leaves[node]
        r_branch[parent[node]] += r_branch[node]
    candidate = ~is_leaf
    collapse = np.where(is_leaf, -np.inf, np.inf)
    floor = TIE_TOLERANCE * max(float(r_node[0]), np.finfo(float).tiny)
    alphas, risks, sizes = [], [], []
    alpha = 0.0
    while True:
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(candidate, (r_node - r_branch) / (n_leaves - 1), np.inf)
        limit = alpha + max(TIE_TOLERANCE * alpha, floor)
        if g.min() <= limit:  # prune every weakest link of this alpha, then look again
            for node in np.flatnonzero(g <= limit):
                if candidate[node]:  # not inside a branch pruned at this step
                    _collapse(node, tree, candidate, collapse, alpha)
                    removed, gain = n_leaves[node] - 1, r_node[node] - r_branch[node]
                    n_leaves[node], r_branch[node] = 1, r_node[node]
                    up = parent[node]
                    while up >= 0:
                        n_leaves[up] -= removed
                        r_branch[up] += gain
                        up = parent[up]
            continue
        alphas.append(alpha)
        risks.append(float(r_branch[0]))
        sizes.append(int(n_leaves[0]))
        if not candidate.any():
            break
        alpha = float(g.min())
    return PruningPath(np.array(alphas), np.array(risks), np.array(sizes), collapse)


def _collapse(node: int, tree: TreeArrays, candidate: np.ndarray, collapse: np.ndarray,
              alpha: float) -> None:
    """Make ``node`` a leaf at ``alpha``: it and its descendants stop being candidates."""
    collapse[node] = alpha
    stack = [node]
    while stack:
        current = stack.pop()
        candidate[current] = False
        if tree.left[current] >= 0:
            stack += [tree.left[current], tree.right[current]]


def pruned_leaves(path: PruningPath, tree: TreeArrays, X: np.ndarray,
                  alpha: float) -> np.ndarray:
    """The node of ``T(alpha)`` each row of ``X`` (n_samples, n_features) ends in: the
    rows walk down ``tree`` and stop at the first node that is a leaf of the subtree."""
    node = np.zeros(X.shape[0], dtype=np.intp)
    rows = np.arange(X.shape[0])
    active = (tree.left[node] >= 0) & (path.collapse_alpha[node] > alpha)
    while active.any():
        r, n = rows[active], node[active]
        go_left = X[r, tree.feature[n]] <= tree.threshold[n]
        node[r] = np.where(go_left, tree.left[n], tree.right[n])
        active[r] = (tree.left[node[r]] >= 0) & (path.collapse_alpha[node[r]] > alpha)
    return node


def prune(tree: TreeArrays, path: PruningPath, alpha: float) -> TreeArrays:
    """The subtree ``T(alpha)`` as a tree of its own (nodes renumbered breadth-first)."""
    keep, leaf = [], []
    queue = [0]
    while queue:
        node = queue.pop(0)
        keep.append(node)
        is_leaf = tree.left[node] < 0 or path.collapse_alpha[node] <= alpha
        leaf.append(is_leaf)
        if not is_leaf:
            queue += [tree.left[node], tree.right[node]]
    keep = np.array(keep, dtype=np.intp)
    leaf = np.array(leaf)
    new_id = np.full(tree.n_nodes, -1, dtype=np.intp)
    new_id[keep] = np.arange(len(keep))
    left = np.where(leaf, -1, new_id[np.maximum(tree.left[keep], 0)])
    right = np.where(leaf, -1, new_id[np.maximum(tree.right[keep], 0)])
    return TreeArrays(
        feature=np.where(leaf, -1, tree.feature[keep]),
        threshold=np.where(leaf, np.nan, tree.threshold[keep]),
        left=left, right=right, value=tree.value[keep], impurity=tree.impurity[keep],
        n_node_samples=tree.n_node_samples[keep],
        weighted_n_node_samples=tree.weighted_n_node_samples[keep], depth=tree.depth[keep])
