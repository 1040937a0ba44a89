"""Solver for the bound-constrained dual of the all-together multi-class SVM.

The dual is that of Hsu & Lin (2002) for the Weston-Watkins problem (see
:class:`mixlib.svm.all_together.AllTogetherSVC`): a convex quadratic in ``n x c`` variables
with box constraints only. The solver alternates two methods on it:

- greedy block coordinate descent (:func:`coordinate_descent`): the working set is the ``c``
  variables of one training row (they share one kernel row), chosen by the largest
  projected-gradient violation, and the block sub-problem is solved exactly
  (:func:`solve_block`); its updates run in one compiled loop
  (:mod:`mixlib.svm._all_together_loop`);
- a primal-dual active-set Newton step (:func:`mixlib.svm._all_together_newton.newton_polish`)
  from the point the descent reached: once the descent is within a loose tolerance, the
  variables at their bounds are nearly those of the optimum, and one linear solve on the free
  variables lands on it.

The descent guarantees convergence; the Newton step only replaces the descent's slow end.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mixlib.svm import _all_together_loop as _loop
from mixlib.svm._all_together_loop import solve_block
from mixlib.svm._all_together_newton import FreeSetSystem, newton_polish
from mixlib.svm._all_together_state import DualState
from mixlib.svm._smo import kernel_rows

logger = logging.getLogger(__name__)

#: When to try a Newton step. Costs are counted in floating-point operations: a step
#: ``|F|^3 / 3`` for its factorisation plus ``10 |F|^2`` to build the Hessian of the ``|F|``
#: variables it would free; a descent update its Python overhead
#: (:data:`UPDATE_OVERHEAD_FLOPS`: about 30 microseconds, the time of that many flops of a
#: BLAS factorisation on the machine this was measured on) plus ``40 n c`` for its passes
#: over the gradient. A step is tried when the descent has spent :data:`NEWTON_STEPS` times
#: its cost since the last try, or once the largest violation ``v`` is below
#: :data:`NEWTON_VIOLATION` and the rest of the descent is estimated to cost more than that.
#: With ``NEWTON_STEPS = 1`` this is the break-even rule of rent-or-buy problems: the steps
#: tried too early cost at most what the descent cost meanwhile, so the solver is never more
#: than about twice as slow as the better of descent alone and an early step (small problems:
#: a step costs a few updates and is tried at every check). The descent's updates to reach
#: ``v`` grow about like ``log(1 / v)`` (splice, 1000 rows, C = 10: 1995, 3339, 5249 and
#: 12725 updates to 0.3, 0.1, 0.03 and 1e-3), so the rest to ``tol`` is
#: ``spent (log(1 / tol) / log(1 / v) - 1)``. The 30 microseconds were the numpy descent's;
#: the compiled one takes 1-15 (wine to splice), but the constant stays: the rule with the
#: compiled update's cost tries the steps later, which moves splice's dual variables by up to
#: 0.2 (its dual has many optima; the objective agrees to 1e-14) and bought 0-25 % of the fit
#: time on the benchmark's problems, none on heart.
NEWTON_STEPS = 1
NEWTON_VIOLATION = 0.3
UPDATE_OVERHEAD_FLOPS = 3e5
#: The descent checks whether to try a Newton step after every this many updates.
CHECK_EVERY = 32


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
        Block updates of the descent plus Newton steps.
    converged : bool
        Whether ``max_violation < tol`` was reached within ``max_iter`` updates.
    """

    alpha: np.ndarray
    beta: np.ndarray
    objective: float
    max_violation: float
    n_iter: int
    converged: bool


def coordinate_descent(state: DualState, tol: float, max_iter: int) -> tuple[int, float]:
    """Greedy block coordinate descent on ``state`` until every violation is below ``tol``.

    Parameters
    ----------
    state : DualState
        Rows sorted by class; ``alpha``, ``grad`` and the penalty masks are updated in place.
    tol : float
    max_iter : int
        Most block updates.

    Returns
    -------
    n_iter : int
        Block updates performed.
    violation : float
        Largest violation found by the last selection: at the returned point when below
        ``tol``, before the last update when ``max_iter`` updates were made.

    Notes
    -----
    Each iteration takes the row ``i`` with the largest absolute projected gradient,
    minimises ``D`` exactly over its ``c`` variables (:func:`solve_block`; the block Hessian
    is ``Kt_ii (I + 1 1')``), and updates the gradient with the one kernel row ``Kt_i``:
    ``grad_{jl} += Kt_ij (dbeta_{y_j} - dbeta_l)``. Within the rows of one class ``k`` this
    is the rank-one update ``grad[rows of k] += Kt_i[rows of k] (dbeta_k - dbeta)'``: one
    BLAS ``dger`` per class, a single pass over the gradient. The iterations run compiled
    (:func:`mixlib.svm._all_together_loop.descent_iterations`, O(n c) work each); they come
    back here to compute a kernel row the cache lacks.
    """
    inc_pen, dec_pen = state.penalty
    n_iter = 0
    while True:
        steps, status, violation, missing = _loop.descent_iterations(
            _loop.DGER_ADDRESS, *state.row_store, state.kt_diag, state.y_codes, state.ub,
            state.alpha, state.grad, inc_pen, dec_pen, state.class_starts, float(tol),
            max_iter - n_iter, state.row_buffer)
        n_iter += steps
        if status != _loop.ROW_MISSING:
            return n_iter, violation
        state.get_row.load(missing)


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
    """Minimise the bounded all-together dual.

    Parameters
    ----------
    get_row : callable
        ``get_row(i)`` returns row ``i`` of the kernel matrix ``K``, shape (n_samples,): the
        ``__getitem__`` of the full Gram matrix (C-contiguous float64) or a
        :class:`~mixlib.svm._smo.KernelRowCache`, as :func:`mixlib.svm._smo.kernel_rows`
        returns them (the compiled descent reads their rows directly).
    diag : ndarray of shape (n_samples,)
        ``K_ii``.
    y : ndarray of int of shape (n_samples,)
        Class index ``0 <= y_i < n_classes`` of every row, sorted (non-decreasing).
    upper : ndarray of shape (n_samples,)
        Box bound ``U_i = C w_i >= 0`` of the row's variables.
    n_classes : int
    tol : float
        Stop when every projected gradient is below ``tol`` in absolute value.
    max_iter : int
        Maximal number of block updates and Newton steps.

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
    ``f_{y_i}(x_i) - f_l(x_i) >= 1``.

    The descent (:func:`coordinate_descent`) runs until the largest violation is below
    ``tol``. On the way, a Newton step (:func:`mixlib.svm._all_together_newton.newton_polish`)
    is tried when its estimated cost is small next to the descent's work so far or to the
    estimated rest of the descent (see :data:`NEWTON_STEPS`). A step is kept only if it
    lowers ``D``, so the descent always goes on from a point at least as good: the solver
    converges whenever plain descent does, and it stops as soon as the violation is below
    ``tol``.
    """
    state = DualState.start(get_row, diag, y, upper, n_classes)
    system = FreeSetSystem(state)
    n, c = state.alpha.shape
    update_flops = UPDATE_OVERHEAD_FLOPS + 40.0 * n * c
    n_iter, violation, spent, since_try, last_try = 0, np.inf, 0.0, 0.0, 0.0
    while n_iter < max_iter:
        steps, violation = coordinate_descent(state, tol, min(CHECK_EVERY, max_iter - n_iter))
        n_iter += steps
        spent, since_try = spent + steps * update_flops, since_try + steps * update_flops
        if violation < tol or n_iter >= max_iter:
            break
        n_free = state.count_guessed_free()
        newton = NEWTON_STEPS * (n_free**3 / 3.0 + 10.0 * n_free**2)
        remaining = 0.0
        if violation < NEWTON_VIOLATION and since_try >= last_try:
            remaining = spent * (np.log(1.0 / tol) / np.log(1.0 / violation) - 1.0)
        if since_try < newton and remaining < newton:
            continue
        steps, violation = newton_polish(state, system, tol, max_iter - n_iter)
        n_iter, since_try, last_try = n_iter + steps, 0.0, newton
        if violation < tol:
            break
    converged = violation < tol
    alpha, grad = state.alpha, state.grad
    beta = -alpha
    rows = np.arange(len(y))
    beta[rows, y] = alpha.sum(axis=1)
    # D = 1/2 sum beta_im F_im - sum alpha; F_{i y_i} - F_{il} = grad_{il} + 1 recovers it
    # through sum_m beta_im F_im = sum_l alpha_il (F_{i y_i} - F_il).
    objective = 0.5 * float(np.sum(alpha * (grad + 1.0))) - float(alpha.sum())
    logger.debug("all-together solver stopped after %d iterations (converged=%s), "
                 "objective %.6g", n_iter, converged, objective)
    return AllTogetherResult(alpha=alpha, beta=beta, objective=objective,
                             max_violation=violation, n_iter=n_iter, converged=converged)


def all_together_fit(X: np.ndarray, y: np.ndarray, upper: np.ndarray, n_classes: int, *,
                     kernel: str, degree: int, sigma: float, cache_size: float, tol: float,
                     max_iter: int) -> AllTogetherResult:
    """Solve the dual for the rows of ``X`` in any order.

    The rows are sorted by class (stable) for :func:`all_together_solve`, their kernel rows
    come from :func:`mixlib.svm._smo.kernel_rows` (``kernel``, ``degree``, ``sigma``,
    ``cache_size``), and ``alpha`` and ``beta`` are returned in the order of ``X``.
    """
    order = np.argsort(y, kind="stable")
    get_row, diag = kernel_rows(X[order], kernel=kernel, degree=degree, sigma=sigma,
                                cache_size=cache_size)
    result = all_together_solve(get_row, diag, y[order], upper[order], n_classes, tol=tol,
                                max_iter=max_iter)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    result.alpha, result.beta = result.alpha[inverse], result.beta[inverse]
    return result
