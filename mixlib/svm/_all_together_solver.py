"""Decomposition solver for the bound-constrained dual of the all-together multi-class SVM.

The dual is that of Hsu & Lin (2002) for the Weston-Watkins problem (see
:class:`mixlib.svm.all_together.AllTogetherSVC`): a convex quadratic in ``n x c`` variables
with box constraints only. The solver is a greedy block coordinate descent: the working set
is the ``c`` variables of one training row (they share one kernel row), chosen by the largest
projected-gradient violation, and the block sub-problem is solved exactly.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np

logger = logging.getLogger(__name__)


@dataclass
class AllTogetherResult:
    """Solution of :func:`all_together_solve`.

    Attributes
    ----------
    alpha : ndarray of shape (n_samples, n_classes)
        Dual variables ``alpha_{il}`` (``alpha_{i y_i} = 0``).
    beta : ndarray of shape (n_samples, n_classes)
        Expansion coefficients ``beta_{im} = [y_i = m] A_i - alpha_{im}``,
        ``A_i = sum_l alpha_{il}``: ``w_m = sum_i beta_{im} phi(x_i)``.
    objective : float
        Dual objective ``1/2 sum_m beta_m' (K + 1) beta_m - sum_{il} alpha_{il}``.
    max_violation : float
        Largest absolute projected gradient at the returned point.
    n_iter : int
        Block updates performed.
    converged : bool
        Whether ``max_violation < tol`` was reached within ``max_iter`` updates.
    """

    alpha: np.ndarray
    beta: np.ndarray
    objective: float
    max_violation: float
    n_iter: int
    converged: bool


def solve_block(g: list[float], k: float, lo: list[float], hi: list[float]) -> list[float]:
    """Exact minimiser of one row's sub-problem.

    Solves ``min_d g'd + (k/2) ((sum_l d_l)^2 + ||d||^2)`` subject to ``lo <= d <= hi``.

    Parameters
    ----------
    g : list of float, length c
        Gradient of the dual with respect to the row's variables.
    k : float
        ``K_ii + 1 > 0``.
    lo, hi : list of float, length c
        Bounds of the step, ``lo <= 0 <= hi``.

    Returns
    -------
    list of float, length c
        The step ``d``.

    Notes
    -----
    The Hessian ``k (I + 1 1')`` is positive definite, so the minimiser is unique. For the
    optimal sum ``s = sum_l d_l`` each coordinate minimises ``(g_l + k s) d_l + k d_l^2 / 2``
    on its interval: ``d_l = clip(v_l - s, lo_l, hi_l)`` with ``v = -g / k``. The sum solves
    ``phi(s) = s - sum_l clip(v_l - s, lo_l, hi_l) = 0``. ``phi`` is piecewise linear,
    ``phi(s) = s - sum_l hi_l`` left of every breakpoint; its slope grows by one at each
    ``v_l - hi_l`` (coordinate ``l`` leaves its upper bound) and falls by one at each
    ``v_l - lo_l`` (it reaches its lower bound), so it is at least 1. A sweep over the sorted
    breakpoints finds the segment of the root in O(c log c) scalar work (c is small; numpy
    calls on arrays of c values would cost more than the arithmetic).
    """
    v = [-g_l / k for g_l in g]
    events = sorted([(v_l - h, 1) for v_l, h in zip(v, hi)]
                    + [(v_l - low, -1) for v_l, low in zip(v, lo)])
    s, phi, slope = events[0][0], events[0][0] - sum(hi), 1
    for point, change in events:
        at_point = phi + slope * (point - s)
        if at_point >= 0.0:
            break
        s, phi, slope = point, at_point, slope + change
    root = s - phi / slope
    return [min(max(v_l - root, low), h) for v_l, low, h in zip(v, lo, hi)]


def _penalty(mask: np.ndarray) -> np.ndarray:
    """0 where ``mask`` holds, -inf elsewhere."""
    return np.where(mask, 0.0, -np.inf)


def all_together_solve(
    get_row: Callable[[int], np.ndarray],
    diag: np.ndarray,
    y: np.ndarray,
    upper: np.ndarray,
    n_classes: int,
    *,
    tol: float = 1e-3,
    max_iter: int = 10_000_000,
) -> AllTogetherResult:
    """Minimise the bounded all-together dual by greedy block coordinate descent.

    Parameters
    ----------
    get_row : callable
        ``get_row(i)`` returns row ``i`` of the kernel matrix ``K``, shape (n_samples,).
    diag : ndarray of shape (n_samples,)
        ``K_ii``.
    y : ndarray of int of shape (n_samples,)
        Class index ``0 <= y_i < n_classes`` of every row.
    upper : ndarray of shape (n_samples,)
        Box bound ``U_i = C w_i >= 0`` of the row's variables.
    n_classes : int
    tol : float
        Stop when every projected gradient is below ``tol`` in absolute value.
    max_iter : int
        Maximal number of block updates.

    Returns
    -------
    AllTogetherResult

    Notes
    -----
    The problem is

        min_alpha D(alpha) = 1/2 sum_m beta_m' Kt beta_m - sum_{i, l != y_i} alpha_{il},
        0 <= alpha_{il} <= U_i,  alpha_{i y_i} = 0,

    with ``Kt = K + 1 1'`` and ``beta_{im} = [y_i = m] A_i - alpha_{im}``. With
    ``F = Kt beta`` (``F_{im} = f_m(x_i)``, the decision values), the gradient is
    ``dD / d alpha_{il} = F_{i y_i} - F_{il} - 1``: the margin of the constraint
    ``f_{y_i}(x_i) - f_l(x_i) >= 1``. Each iteration takes the row ``i`` with the largest
    absolute projected gradient, minimises ``D`` exactly over its ``c`` variables
    (:func:`solve_block`; the block Hessian is ``Kt_ii (I + 1 1')``), and updates the gradient
    with the one kernel row ``Kt_i``:
    ``grad_{jl} += Kt_ij (dbeta_{i y_j} - dbeta_{il})``, O(n c) vectorised work.
    """
    n = y.shape[0]
    rows = np.arange(n)
    alpha = np.zeros((n, n_classes))
    ub = np.repeat(upper[:, None], n_classes, axis=1)
    ub[rows, y] = 0.0
    grad = -np.ones((n, n_classes))  # F = 0 at alpha = 0
    # -inf penalties mask the variables that cannot move in the direction of descent:
    # the violation of alpha_il is -grad_il if it can increase, grad_il if it can decrease.
    inc_pen, dec_pen = _penalty(ub > 0.0), _penalty(np.zeros((n, n_classes), dtype=bool))
    buf_inc, buf_dec, change = (np.empty((n, n_classes)) for _ in range(3))
    diag_t = diag + 1.0
    n_iter, converged, violation = 0, False, np.inf
    while True:
        np.subtract(inc_pen, grad, out=buf_inc)
        np.add(grad, dec_pen, out=buf_dec)
        flat_inc, flat_dec = int(buf_inc.argmax()), int(buf_dec.argmax())
        viol_inc, viol_dec = buf_inc.item(flat_inc), buf_dec.item(flat_dec)
        violation, flat = (viol_inc, flat_inc) if viol_inc >= viol_dec else (viol_dec, flat_dec)
        if violation < tol:
            converged = True
            break
        if n_iter >= max_iter:
            break
        i = flat // n_classes
        alpha_i, ub_i = alpha[i], ub[i]
        step = np.array(solve_block(grad[i].tolist(), diag_t.item(i), (-alpha_i).tolist(),
                                    (ub_i - alpha_i).tolist()))
        step[y[i]] = 0.0
        # land exactly on a bound that the step reached (no rounding of alpha + (U - alpha))
        new = np.where(step == ub_i - alpha_i, ub_i, np.where(step == -alpha_i, 0.0,
                                                               alpha_i + step))
        alpha[i] = new
        inc_pen[i], dec_pen[i] = _penalty(new < ub_i), _penalty(new > 0.0)
        dbeta = -step
        dbeta[y[i]] = np.add.reduce(step)
        # grad_jl += Kt_ij (dbeta_{y_j} - dbeta_l), Kt_ij = K_ij + 1
        np.take(dbeta[:, None] - dbeta[None, :], y, axis=0, out=change)
        grad += change
        change *= get_row(i)[:, None]
        grad += change
        n_iter += 1
        if n_iter % 10_000 == 0:
            logger.debug("all-together iteration %d: max violation %.6g", n_iter, violation)
    beta = -alpha
    beta[rows, y] = alpha.sum(axis=1)
    # D = 1/2 sum beta_im F_im - sum alpha; F_{i y_i} - F_{il} = grad_{il} + 1 recovers it
    # through sum_m beta_im F_im = sum_l alpha_il (F_{i y_i} - F_il).
    objective = 0.5 * float(np.sum(alpha * (grad + 1.0))) - float(alpha.sum())
    logger.debug("all-together solver stopped after %d iterations (converged=%s), "
                 "objective %.6g", n_iter, converged, objective)
    return AllTogetherResult(alpha=alpha, beta=beta, objective=objective,
                             max_violation=violation, n_iter=n_iter, converged=converged)
