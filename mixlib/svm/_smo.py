"""Sequential minimal optimisation for the box-constrained quadratic dual of SVMs.

The solver is libsvm's ``Solver`` (Chang & Lin 2011) with the second-order working-set
selection of Fan, Chen & Lin (2005), without shrinking. It is shared by the C-SVM
(:mod:`mixlib.svm.svc`), SVDD (:mod:`mixlib.svm.svdd`) and multiple kernel learning
(:mod:`mixlib.svm.mkl`). Kernel rows come from a full Gram matrix or an LRU row cache
(:class:`KernelRowCache`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.linalg.blas import daxpy

from mixlib.core.kernels import kernel_diagonal, kernel_matrix

logger = logging.getLogger(__name__)

LOG_EVERY = 10_000  # pair updates between two progress lines of the debug log


class KernelRowCache:
    """Rows ``k(x_i, X)`` computed on demand and kept in a least-recently-used cache.

    The rows live in the slots of one preallocated array, which the compiled SMO loop
    (:mod:`mixlib.svm._smo_loop`) reads directly. A returned row is a view of its slot: it
    stays valid until ``capacity - 1`` other rows have been read.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    kernel, degree, sigma
        As in :func:`mixlib.core.kernels.kernel_matrix`.
    cache_size : float
        Memory budget of the cache in MiB (at least two rows are always kept).

    Attributes
    ----------
    slots : ndarray of shape (capacity, n_samples)
        The cached rows.
    slot_of : ndarray of int of shape (n_samples,)
        Slot of each row, -1 if not cached.
    last_used : ndarray of int64 of shape (capacity,), clock : ndarray of int64 of shape (1,)
        Stamp of each slot's last read (0: never filled) and the last stamp given.
    n_computed : int
        Rows computed so far.
    """

    def __init__(self, X: np.ndarray, *, kernel: str, degree: int, sigma: float,
                 cache_size: float) -> None:
        n = X.shape[0]
        self.X = X
        self.kernel, self.degree, self.sigma = kernel, degree, sigma
        self.X_sq = np.einsum("ij,ij->i", X, X)
        self.capacity = min(n, max(2, int(cache_size * 2**20 // (8 * n))))
        self.slots = np.empty((self.capacity, n))
        self.slot_of = np.full(n, -1, dtype=np.intp)
        self.row_in_slot = np.full(self.capacity, -1, dtype=np.intp)
        self.last_used = np.zeros(self.capacity, dtype=np.int64)
        self.clock = np.zeros(1, dtype=np.int64)
        self.n_computed = 0

    def __call__(self, i: int) -> np.ndarray:
        """Row ``i`` of the Gram matrix, shape (n_samples,)."""
        slot = self.slot_of[i]
        if slot < 0:
            slot = self.load(i)
        self.clock[0] += 1
        self.last_used[slot] = self.clock[0]
        return self.slots[slot]

    def load(self, i: int) -> int:
        """Compute row ``i`` into the least recently used slot (an empty one first); its slot."""
        slot = int(self.last_used.argmin())
        evicted = self.row_in_slot[slot]
        if evicted >= 0:
            self.slot_of[evicted] = -1
        self.slots[slot] = kernel_matrix(self.X[i:i + 1], self.X, kernel=self.kernel,
                                         degree=self.degree, sigma=self.sigma,
                                         Y_sq=self.X_sq)[0]
        self.row_in_slot[slot], self.slot_of[i] = i, slot
        self.n_computed += 1
        return slot

    def rows_by_recency(self) -> list[int]:
        """The cached rows, least recently read first."""
        filled = np.flatnonzero(self.row_in_slot >= 0)
        return self.row_in_slot[filled[np.argsort(self.last_used[filled])]].tolist()


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
        ``get_row(i)`` returns row ``i`` of the kernel matrix ``K``, shape (n_samples,): the
        ``__getitem__`` of the full Gram matrix (a C-contiguous float64 array) or a
        :class:`KernelRowCache`, as :func:`kernel_rows` returns them.
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
    The iterations run compiled (:func:`mixlib.svm._smo_loop.smo_iterations`), O(n_samples)
    work each on preallocated buffers; they come back here to compute a row the cache lacks,
    and every ``LOG_EVERY`` updates to log progress.
    """
    from mixlib.svm import _smo_loop  # numba: loaded by the processes that solve

    rows, slot_of, last_used, clock = _row_store(get_row, y.shape[0])
    alpha = np.array(alpha, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    upper = np.ascontiguousarray(upper, dtype=np.float64)
    yG = y * p
    for t in np.flatnonzero(alpha):
        daxpy(get_row(int(t)), yG, a=scale * y[t] * alpha[t])
    up_pen, low_pen = _penalties(alpha, y, upper)
    sdiag = np.ascontiguousarray(scale * diag, dtype=np.float64)
    curv, gain = np.empty_like(yG), np.empty_like(yG)
    n_iter, status = 0, _smo_loop.PAUSED
    while status != _smo_loop.CONVERGED and n_iter < max_iter:
        stop_at = min(max_iter, (n_iter // LOG_EVERY + 1) * LOG_EVERY)
        n_iter, status, missing = _smo_loop.smo_iterations(
            _smo_loop.DAXPY_ADDRESS, rows, slot_of, last_used, clock, sdiag, y, upper, alpha,
            yG, up_pen, low_pen, float(scale), float(tol), n_iter, stop_at, curv, gain)
        if status == _smo_loop.ROW_MISSING:
            get_row.load(missing)
        elif status == _smo_loop.PAUSED and n_iter % LOG_EVERY == 0:
            logger.debug("SMO iteration %d", n_iter)
    converged = status == _smo_loop.CONVERGED
    rho = _offset(alpha, y, upper, yG)
    objective = 0.5 * float(alpha @ (y * yG + p))
    logger.debug("SMO stopped after %d iterations (converged=%s), objective %.6g",
                 n_iter, converged, objective)
    return SMOResult(alpha=alpha, rho=rho, objective=objective, yG=yG, n_iter=n_iter,
                     converged=converged)


def _row_store(get_row: Callable[[int], np.ndarray],
               n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows ``get_row`` reads from, as the compiled loop takes them.

    Returns ``(rows, slot_of, last_used, clock)``: for a full Gram matrix the matrix itself
    with ``slot_of = 0 .. n-1`` (stamps unused); for a :class:`KernelRowCache` its slots and
    bookkeeping arrays, shared so that the loop's reads count in its LRU order.
    """
    if isinstance(get_row, KernelRowCache):
        return get_row.slots, get_row.slot_of, get_row.last_used, get_row.clock
    gram = getattr(get_row, "__self__", None)
    if not (isinstance(gram, np.ndarray) and gram.shape == (n, n)
            and gram.dtype == np.float64 and gram.flags.c_contiguous):
        raise TypeError("get_row must be the __getitem__ of an (n_samples, n_samples) "
                        "C-contiguous float64 Gram matrix or a KernelRowCache")
    return gram, np.arange(n), np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64)


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
