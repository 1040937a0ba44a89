"""Sequential minimal optimisation for the box-constrained quadratic dual of SVMs.

The solver is libsvm's ``Solver`` (Chang & Lin 2011) with the second-order working-set
selection of Fan, Chen & Lin (2005), without shrinking. It is shared by the C-SVM
(:mod:`mixlib.svm.svc`), SVDD (:mod:`mixlib.svm.svdd`) and multiple kernel learning
(:mod:`mixlib.svm.mkl`). Kernel rows come from a full Gram matrix or an LRU row cache
(:class:`KernelRowCache`).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.linalg.blas import daxpy

from mixlib.core.kernels import kernel_diagonal, kernel_matrix

logger = logging.getLogger(__name__)

TAU = 1e-12  # libsvm's floor on the curvature of a pair (non positive-definite kernels)


class KernelRowCache:
    """Rows ``k(x_i, X)`` computed on demand and kept in a least-recently-used cache.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    kernel, degree, sigma
        As in :func:`mixlib.core.kernels.kernel_matrix`.
    cache_size : float
        Memory budget of the cache in MiB (at least two rows are always kept).
    """

    def __init__(self, X: np.ndarray, *, kernel: str, degree: int, sigma: float,
                 cache_size: float) -> None:
        self.X = X
        self.kernel, self.degree, self.sigma = kernel, degree, sigma
        self.X_sq = np.einsum("ij,ij->i", X, X)
        self.capacity = max(2, int(cache_size * 2**20 // (8 * X.shape[0])))
        self.rows: OrderedDict[int, np.ndarray] = OrderedDict()
        self.n_computed = 0

    def __call__(self, i: int) -> np.ndarray:
        """Row ``i`` of the Gram matrix, shape (n_samples,)."""
        row = self.rows.get(i)
        if row is not None:
            self.rows.move_to_end(i)
            return row
        row = kernel_matrix(self.X[i:i + 1], self.X, kernel=self.kernel, degree=self.degree,
                            sigma=self.sigma, Y_sq=self.X_sq)[0]
        self.n_computed += 1
        self.rows[i] = row
        if len(self.rows) > self.capacity:
            self.rows.popitem(last=False)
        return row


@dataclass
class SMOResult:
    """Solution of :func:`smo_solve`.

    Attributes
    ----------
    alpha : ndarray of shape (n_samples,)
        Optimal dual variables.
    rho : float
        libsvm's offset: the C-SVM decision is ``sum_i alpha_i y_i k(x_i, x) - rho``.
    objective : float
        ``1/2 alpha' Q alpha + p' alpha`` at the solution.
    yG : ndarray of shape (n_samples,)
        ``y_t G_t`` with ``G = Q alpha + p`` the gradient.
    n_iter : int
        Number of pair updates.
    converged : bool
        Whether the maximal KKT violation fell below ``tol`` within ``max_iter`` updates.
    """

    alpha: np.ndarray
    rho: float
    objective: float
    yG: np.ndarray
    n_iter: int
    converged: bool


def _penalties(alpha: np.ndarray, y: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, ...]:
    """0 / -inf masks of the index sets I_up and I_low (Keerthi et al. 2001)."""
    below = alpha < upper
    above = alpha > 0
    up = ((y > 0) & below) | ((y < 0) & above)
    low = ((y > 0) & above) | ((y < 0) & below)
    return np.where(up, 0.0, -np.inf), np.where(low, 0.0, -np.inf)


def smo_solve(
    get_row: Callable[[int], np.ndarray],
    diag: np.ndarray,
    p: np.ndarray,
    y: np.ndarray,
    upper: np.ndarray,
    alpha: np.ndarray,
    *,
    scale: float = 1.0,
    tol: float = 1e-3,
    max_iter: int = 10_000_000,
) -> SMOResult:
    """Minimise ``1/2 a'Qa + p'a`` subject to ``y'a = const`` and ``0 <= a_i <= upper_i``.

    Parameters
    ----------
    get_row : callable
        ``get_row(i)`` returns row ``i`` of the kernel matrix ``K``, shape (n_samples,).
    diag : ndarray of shape (n_samples,)
        ``K_ii``.
    p : ndarray of shape (n_samples,)
        Linear term.
    y : ndarray of shape (n_samples,)
        Signs +1.0 / -1.0.
    upper : ndarray of shape (n_samples,)
        Upper bounds ``C_i >= 0``.
    alpha : ndarray of shape (n_samples,)
        A feasible starting point; ``y'alpha`` is kept constant.
    scale : float
        ``Q_ij = scale * y_i y_j K_ij``.
    tol : float
        Stopping tolerance on the maximal violation ``m(a) - M(a)`` (libsvm's ``eps``).
    max_iter : int
        Maximal number of pair updates.

    Returns
    -------
    SMOResult

    Notes
    -----
    With ``G = Qa + p``, ``I_up = {t: y_t = 1, a_t < C_t or y_t = -1, a_t > 0}`` and
    ``I_low = {t: y_t = 1, a_t > 0 or y_t = -1, a_t < C_t}``, the KKT conditions hold to
    ``tol`` when ``max_{I_up} -y_t G_t + max_{I_low} y_t G_t < tol``. Each iteration picks
    ``i = argmax_{I_up} -y_t G_t`` and ``j = argmin_{t in I_low, b_t > 0} -b_t^2 / a_t`` with
    ``b_t = -y_i G_i + y_t G_t`` and ``a_t = Q_ii + Q_tt - 2 y_i y_t Q_it`` (second-order
    selection), solves the two-variable problem analytically, clips it to the box, and
    updates ``y_t G_t += scale (y_i dA_i K_it + y_j dA_j K_jt)`` with one BLAS ``axpy`` per row.
    Every iteration is O(n_samples) vectorised work on preallocated buffers.
    """
    n = y.shape[0]
    alpha = np.array(alpha, dtype=np.float64)
    yG = y * p
    for t in np.flatnonzero(alpha):
        daxpy(get_row(int(t)), yG, a=scale * y[t] * alpha[t])
    up_pen, low_pen = _penalties(alpha, y, upper)
    sdiag = scale * diag
    buf_up, buf_low, curv = np.empty(n), np.empty(n), np.empty(n)
    ones, zeros, tau = np.ones(n), np.zeros(n), np.full(n, TAU)
    y_l, C_l, d_l, a_l = y.tolist(), upper.tolist(), sdiag.tolist(), alpha.tolist()
    neg_inf = -np.inf
    converged = False
    n_iter = 0
    # Array-array ufuncs and BLAS axpy (y += a x) are about twice as fast as ufuncs with a
    # scalar operand on vectors of this size, hence axpy with ``ones`` to add a scalar.
    while n_iter < max_iter:
        np.subtract(up_pen, yG, out=buf_up)
        i = int(buf_up.argmax())
        g_max = buf_up.item(i)
        np.add(yG, low_pen, out=buf_low)
        if g_max + buf_low.item(int(buf_low.argmax())) < tol:
            converged = True
            break
        K_i = get_row(i)
        np.copyto(curv, sdiag)  # curv_t = Q_ii + Q_tt - 2 y_i y_t Q_it
        daxpy(K_i, curv, a=-2.0 * scale)
        daxpy(ones, curv, a=d_l[i])
        np.maximum(curv, tau, out=curv)
        daxpy(ones, buf_low, a=g_max)  # b_t = -y_i G_i + y_t G_t on I_low, -inf elsewhere
        np.maximum(buf_low, zeros, out=buf_low)
        np.square(buf_low, out=buf_low)
        np.divide(buf_low, curv, out=buf_low)
        j = int(buf_low.argmax())
        K_j = get_row(j)

        y_i, y_j, C_i, C_j = y_l[i], y_l[j], C_l[i], C_l[j]
        old_i, old_j = a_l[i], a_l[j]
        G_i, G_j = y_i * yG.item(i), y_j * yG.item(j)
        quad = d_l[i] + d_l[j] - 2.0 * scale * K_i.item(j)
        if quad <= 0.0:
            quad = TAU
        if y_i != y_j:
            delta = (-G_i - G_j) / quad
            diff = old_i - old_j
            a_i, a_j = old_i + delta, old_j + delta
            if diff > 0.0:
                if a_j < 0.0:
                    a_j, a_i = 0.0, diff
            elif a_i < 0.0:
                a_i, a_j = 0.0, -diff
            if diff > C_i - C_j:
                if a_i > C_i:
                    a_i, a_j = C_i, C_i - diff
            elif a_j > C_j:
                a_j, a_i = C_j, C_j + diff
        else:
            delta = (G_i - G_j) / quad
            total = old_i + old_j
            a_i, a_j = old_i - delta, old_j + delta
            if total > C_i:
                if a_i > C_i:
                    a_i, a_j = C_i, total - C_i
            elif a_j < 0.0:
                a_j, a_i = 0.0, total
            if total > C_j:
                if a_j > C_j:
                    a_j, a_i = C_j, total - C_j
            elif a_i < 0.0:
                a_i, a_j = 0.0, total
        a_l[i], a_l[j] = a_i, a_j
        daxpy(K_i, yG, a=scale * y_i * (a_i - old_i))
        daxpy(K_j, yG, a=scale * y_j * (a_j - old_j))
        for t, a_t, y_t, C_t in ((i, a_i, y_i, C_i), (j, a_j, y_j, C_j)):
            below, above = a_t < C_t, a_t > 0.0
            up_pen[t] = 0.0 if (below if y_t > 0 else above) else neg_inf
            low_pen[t] = 0.0 if (above if y_t > 0 else below) else neg_inf
        n_iter += 1
        if n_iter % 10_000 == 0:
            logger.debug("SMO iteration %d: -y_i G_i = %.6g", n_iter, g_max)
    alpha = np.array(a_l)
    rho = _offset(alpha, y, upper, yG)
    objective = 0.5 * float(alpha @ (y * yG + p))
    logger.debug("SMO stopped after %d iterations (converged=%s), objective %.6g",
                 n_iter, converged, objective)
    return SMOResult(alpha=alpha, rho=rho, objective=objective, yG=yG, n_iter=n_iter,
                     converged=converged)


def _offset(alpha: np.ndarray, y: np.ndarray, upper: np.ndarray, yG: np.ndarray) -> float:
    """libsvm's ``rho``: the mean of ``y_t G_t`` over free variables.

    Without free variables, the midpoint of the feasible interval
    ``[max lower, min upper]`` of the KKT conditions on the bounded variables (its finite end
    when the interval is one-sided).
    """
    at_upper = alpha >= upper
    at_lower = (alpha <= 0.0) & ~at_upper
    free = ~at_upper & ~at_lower
    if free.any():
        return float(yG[free].mean())
    ub_mask = (at_upper & (y < 0)) | (at_lower & (y > 0))
    lb_mask = (at_upper & (y > 0)) | (at_lower & (y < 0))
    if not ub_mask.any():  # one-sided interval (libsvm would return an infinite rho)
        return float(yG[lb_mask].max())
    if not lb_mask.any():
        return float(yG[ub_mask].min())
    return float((yG[ub_mask].min() + yG[lb_mask].max()) / 2.0)


def kernel_rows(X: np.ndarray, *, kernel: str, degree: int, sigma: float,
                cache_size: float) -> tuple[Callable[[int], np.ndarray], np.ndarray]:
    """Row access to the Gram matrix of ``X`` (n_samples, n_features) and its diagonal.

    The full Gram matrix is computed at once when it fits in ``cache_size`` MiB, otherwise
    rows are computed on demand through a :class:`KernelRowCache` of that size.
    """
    n = X.shape[0]
    if 8.0 * n * n <= cache_size * 2**20:
        gram = kernel_matrix(X, kernel=kernel, degree=degree, sigma=sigma)
        return gram.__getitem__, np.ascontiguousarray(np.diagonal(gram))
    cache = KernelRowCache(X, kernel=kernel, degree=degree, sigma=sigma, cache_size=cache_size)
    return cache, kernel_diagonal(X, kernel=kernel, degree=degree, sigma=sigma)
