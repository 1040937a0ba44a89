"""Node impurities (Gini, entropy) and the children's cost of candidate splits."""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy


def class_sum(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=-1)``, bit for bit, faster for few classes.

    With fewer than 8 entries numpy adds a row's entries in order (its pairwise summation
    only splits longer rows), so the columns are added one by one: a few whole-array
    additions instead of a reduction over a short axis (~10x faster for 3 classes)."""
    if not 0 < a.shape[-1] < 8:
        return a.sum(axis=-1)
    total = a[..., 0].copy()
    for j in range(1, a.shape[-1]):
        total += a[..., j]
    return total


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
    w = class_sum(counts)
    p = counts / w[..., None]
    if criterion == "gini":
        return 1.0 - np.einsum("...k,...k->...", p, p)
    return -class_sum(xlogy(p, p)) / np.log(2.0)


def children_cost(
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
        xlogy(wl, wl) - class_sum(xlogy(left, left)) + xlogy(wr, wr)
        - class_sum(xlogy(right, right))
    ) / np.log(2.0)
