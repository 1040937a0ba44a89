"""Pairwise squared Euclidean distances through BLAS."""

from __future__ import annotations

import numpy as np


def squared_euclidean(
    X: np.ndarray, Y: np.ndarray, *, X_sq: np.ndarray | None = None, Y_sq: np.ndarray | None = None
) -> np.ndarray:
    """Squared distances ``D[i, j] = ||x_i - y_j||^2`` of shape (n_x, n_y).

    Computed as ``||x||^2 - 2 x.y + ||y||^2`` so the dominant cost is one matrix product
    (BLAS GEMM); small negative values from rounding are clipped to 0.

    Parameters
    ----------
    X : ndarray of shape (n_x, n_features)
    Y : ndarray of shape (n_y, n_features)
    X_sq, Y_sq : ndarray of shape (n_x,) and (n_y,), optional
        Precomputed squared row norms, to save work when one side is reused.
    """
    if X_sq is None:
        X_sq = np.einsum("ij,ij->i", X, X)
    if Y_sq is None:
        Y_sq = np.einsum("ij,ij->i", Y, Y)
    distances = X @ Y.T
    distances *= -2.0
    distances += X_sq[:, None]
    distances += Y_sq[None, :]
    np.maximum(distances, 0.0, out=distances)
    return distances
