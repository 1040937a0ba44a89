"""Kernel functions of the ensembles-and-SVM notes (part III): linear, polynomial, Gaussian.

Every kernel matrix is computed in row blocks whose dominant cost is one matrix product
(BLAS GEMM), so memory stays bounded by ``block_size * n_y`` extra floats per block.
"""

from __future__ import annotations

import numbers

import numpy as np

from mixlib.core.distances import squared_euclidean

KERNELS = ("linear", "poly", "gaussian")


def check_kernel_params(kernel: str, degree: int, sigma: float) -> None:
    """Raise ``ValueError`` if ``kernel``, ``degree`` or ``sigma`` is not valid.

    Parameters
    ----------
    kernel : {"linear", "poly", "gaussian"}
    degree : int
        Degree ``m >= 1`` of the polynomial kernel (checked only for ``"poly"``).
    sigma : float
        Width ``sigma > 0`` of the Gaussian kernel (checked only for ``"gaussian"``; an
        estimator resolves ``"scale"`` first, with :func:`resolve_sigma`).
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}.")
    if kernel == "poly" and (
        not isinstance(degree, numbers.Integral) or isinstance(degree, bool) or degree < 1
    ):
        raise ValueError(f"degree must be an integer >= 1, got {degree!r}.")
    if kernel == "gaussian" and (
        not isinstance(sigma, numbers.Real) or not np.isfinite(sigma) or sigma <= 0
    ):
        raise ValueError(f"sigma must be a finite float > 0 or 'scale', got {sigma!r}.")


def scale_sigma(X: np.ndarray) -> float:
    """The Gaussian width of ``sigma="scale"``: ``sqrt(d var(X) / 2)``, 1.0 for constant ``X``.

    scikit-learn's ``gamma="scale"`` is ``gamma = 1 / (d var(X))`` for ``exp(-gamma ||x -
    y||^2)``, with ``var(X)`` the variance of all the cells of ``X`` (n_samples, d); with
    ``gamma = 1 / (2 sigma^2)`` that is ``sigma^2 = d var(X) / 2``. The mean squared distance
    between two rows is ``2 d var(X)``, so ``||x - y||^2 / (2 sigma^2)`` is about 2 for a
    typical pair.
    """
    data = np.asarray(X, dtype=float)
    variance = float(data.var())
    return float(np.sqrt(data.shape[1] * variance / 2)) if variance > 0 else 1.0


def resolve_sigma(kernel: str, degree: int, sigma: float | str, X: np.ndarray) -> float:
    """``sigma`` checked as by :func:`check_kernel_params`, ``"scale"`` resolved from ``X``.

    Parameters
    ----------
    kernel, degree
        As in :func:`check_kernel_params`.
    sigma : float or "scale"
        The Gaussian width, or ``"scale"`` for :func:`scale_sigma` of the training rows ``X``.
    X : ndarray of shape (n_samples, n_features)
        The training rows.

    Returns
    -------
    float
        The width the kernel uses (``sigma`` itself when it is a number).
    """
    if isinstance(sigma, str) and sigma == "scale":
        sigma = scale_sigma(X)
    check_kernel_params(kernel, degree, sigma)
    return sigma


def _block(X: np.ndarray, Y: np.ndarray, Y_sq: np.ndarray | None, kernel: str, degree: int,
           sigma: float) -> np.ndarray:
    """Kernel values between the rows of ``X`` (n_x, p) and ``Y`` (n_y, p): one GEMM."""
    if kernel == "gaussian":
        block = squared_euclidean(X, Y, Y_sq=Y_sq)
        block *= -1.0 / (2.0 * sigma * sigma)
        np.exp(block, out=block)
        return block
    block = X @ Y.T
    if kernel == "poly":
        block += 1.0
        block **= degree
    return block


def kernel_matrix(
    X: np.ndarray,
    Y: np.ndarray | None = None,
    *,
    kernel: str = "gaussian",
    degree: int = 3,
    sigma: float = 1.0,
    block_size: int = 2048,
    Y_sq: np.ndarray | None = None,
) -> np.ndarray:
    """Kernel matrix ``K[i, j] = k(x_i, y_j)``.

    Parameters
    ----------
    X : ndarray of shape (n_x, n_features)
    Y : ndarray of shape (n_y, n_features), optional
        Defaults to ``X`` (the Gram matrix).
    kernel : {"linear", "poly", "gaussian"}
    degree : int
        Degree ``m`` of the polynomial kernel.
    sigma : float
        Width of the Gaussian kernel.
    block_size : int
        Rows of ``X`` handled per matrix product.
    Y_sq : ndarray of shape (n_y,), optional
        Precomputed squared norms of the rows of ``Y`` (Gaussian kernel only), to save work
        when ``Y`` is reused, e.g. by a kernel-row cache.

    Returns
    -------
    K : ndarray of shape (n_x, n_y)

    Notes
    -----
    linear: ``k(x, y) = x.y``; polynomial: ``k(x, y) = (x.y + 1)^m``;
    Gaussian: ``k(x, y) = exp(-||x - y||^2 / (2 sigma^2))`` with ``||x - y||^2`` computed
    as ``||x||^2 - 2 x.y + ||y||^2`` (:func:`mixlib.core.distances.squared_euclidean`).
    The Gaussian kernel is scikit-learn's RBF kernel with ``gamma = 1 / (2 sigma^2)``.
    """
    check_kernel_params(kernel, degree, sigma)
    if Y is None:
        Y = X
    if kernel == "gaussian" and Y_sq is None:
        Y_sq = np.einsum("ij,ij->i", Y, Y)
    if X.shape[0] <= block_size:
        return _block(X, Y, Y_sq, kernel, degree, sigma)
    out = np.empty((X.shape[0], Y.shape[0]))
    for start in range(0, X.shape[0], block_size):
        stop = start + block_size
        out[start:stop] = _block(X[start:stop], Y, Y_sq, kernel, degree, sigma)
    return out


def kernel_diagonal(X: np.ndarray, *, kernel: str = "gaussian", degree: int = 3,
                    sigma: float = 1.0) -> np.ndarray:
    """The diagonal ``k(x_i, x_i)`` of the Gram matrix of ``X`` (shape (n_samples,)).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    kernel, degree, sigma
        As in :func:`kernel_matrix`.
    """
    check_kernel_params(kernel, degree, sigma)
    if kernel == "gaussian":
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "poly":
        return (sq + 1.0) ** degree
    return sq
