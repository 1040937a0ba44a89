"""Primal-dual active-set Newton steps for the all-together dual.

:func:`newton_polish` is the active-set step of Hintermüller, Ito & Kunisch (2002, "The
primal-dual active set strategy as a semismooth Newton method", SIAM J. Optim. 13(3)) for
box constraints, taken from the point the coordinate descent of
:mod:`mixlib.svm._all_together_solver` reached. :class:`FreeSetSystem` solves its linear
systems: the Hessian does not depend on the point, so one Cholesky factorisation serves every
later free set that differs from it in a few variables (bordered by them).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError
from scipy.linalg.lapack import dpotrf, dpotrs

from mixlib.svm import _all_together_loop as _loop
from mixlib.svm._all_together_state import DualState

#: Most active-set steps per call of :func:`newton_polish`. On the study's data sets the
#: sets settle in 2 to 8 steps once the descent is close; steps that have not settled by then
#: are kept if they lowered the objective, and the descent goes on.
MAX_NEWTON_STEPS = 10

#: A Newton step stops early at a feasible point whose violations are below this fraction of
#: the solver's tolerance (the active sets can keep trading a variable that sits at a bound
#: with a zero gradient, at rounding level).
SETTLED = 1e-6

#: Ridge added to the free variables' Hessian, relative to its mean diagonal. Repeated
#: training rows make that Hessian singular (their variables have equal rows); the system is
#: consistent, and with the ridge it is solved with a gradient residual of about
#: ``RIDGE * Kt_ii * U``, far below any stopping tolerance.
RIDGE = 1e-7

#: A free set is solved through the factorisation of an earlier one when the variables that
#: entered or left number at most this fraction of the factorised set: the bordered solve
#: costs about ``2 |F|^2 m`` flops for ``m`` changes, a new factorisation ``|F|^3 / 3``.
BORDER_FRACTION = 0.125
#: Sets smaller than this are always factorised anew (cheaper than the bordering's
#: bookkeeping).
BORDER_MIN_SIZE = 200
#: Largest residual of a bordered solve, relative to the right-hand side, that is kept.
BORDER_RESIDUAL = 1e-9


class FreeSetSystem:
    """Solves ``H_FF x = r`` for free sets ``F`` of the dual's variables.

    ``H_{(i,l),(j,m)} = Kt_ij (e_{y_i} - e_l)'(e_{y_j} - e_m)`` for the flat variable index
    ``i c + l``, plus a ridge of :data:`RIDGE` times the mean diagonal of the first set
    factorised.

    Parameters
    ----------
    state : DualState
    """

    def __init__(self, state: DualState) -> None:
        self.state = state
        self.free: np.ndarray | None = None
        self.factor: np.ndarray | None = None
        self.ridge = 0.0

    def solve(self, free: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """``x`` with ``(H_FF + ridge I) x = rhs`` for the sorted flat indices ``free``.

        The bordered solve through an earlier factorisation is used when few variables
        changed and its residual (from kernel rows, without building ``H_FF``) is below
        :data:`BORDER_RESIDUAL` (relative to ``rhs``):
        repeated rows leave that factorisation nearly singular, and the bordering then loses
        the digits that keep the solution off the near-null directions. Otherwise ``H_FF``
        is factorised anew. Raises ``LinAlgError`` if it is not positive definite.
        """
        if self.free is not None and len(self.free) >= BORDER_MIN_SIZE:
            added = np.setdiff1d(free, self.free, assume_unique=True)
            removed = np.setdiff1d(self.free, free, assume_unique=True)
            if len(added) + len(removed) <= BORDER_FRACTION * len(self.free):
                x = self._bordered_solve(free, added, removed, rhs)
                scale = max(1.0, float(np.abs(rhs).max(initial=0.0)))
                if np.abs(self._product(free, x) - rhs).max(initial=0.0) <= (
                        BORDER_RESIDUAL * scale):
                    return x
        hessian = self.state.hessian(free, free)
        if self.factor is None:
            self.ridge = RIDGE * hessian.trace() / len(free)
        hessian.flat[::len(free) + 1] += self.ridge
        factor, info = dpotrf(hessian, lower=False, clean=False)
        if info != 0:
            raise LinAlgError(f"the free variables' Hessian is not positive definite "
                              f"(LAPACK potrf info {info}).")
        self.factor, self.free = factor, free
        return self._cholesky_solve(rhs)

    def _cholesky_solve(self, rhs: np.ndarray) -> np.ndarray:
        """``x`` with ``U'U x = rhs`` for the factor ``U`` of :attr:`free` (LAPACK potrs,
        called directly: on sets of a few dozen variables scipy's checks cost more than the
        solve)."""
        x, info = dpotrs(self.factor, rhs, lower=False)
        if info != 0:
            raise ValueError(f"LAPACK potrs: illegal value in argument {-info}.")
        return x

    def _product(self, free: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``(H_FF + ridge I) x`` through the gradient change of ``x`` (kernel rows, not
        ``H_FF``: the bordered solves never build it)."""
        delta = np.zeros(self.state.alpha.shape)
        delta.ravel()[free] = x
        return self.state.gradient_change(delta).ravel()[free] + self.ridge * x

    def _bordered_solve(self, free: np.ndarray, added: np.ndarray, removed: np.ndarray,
                        rhs: np.ndarray) -> np.ndarray:
        """Solve on ``free`` with the factorisation of :attr:`free`.

        With ``F0`` the factorised set, ``A`` the added and ``R`` the removed variables, the
        solution minimises the quadratic on ``F0 + A`` with ``x_R = 0``: multipliers
        ``lambda`` for ``x_R = 0`` and the bordering ``V = [H_{F0,A}, E_R]`` give
        ``u = H_{F0F0}^{-1} (r_0 - V [v; lambda])`` and the ``m x m`` system
        ``(diag(H_AA, 0) - V' H_{F0F0}^{-1} V) [v; lambda] = [r_A; 0] - V' H_{F0F0}^{-1} r_0``.
        """
        base = self.free
        kept = np.isin(base, free, assume_unique=True)
        base_rhs = np.zeros(len(base))
        base_rhs[kept] = rhs[np.searchsorted(free, base[kept])]
        at_added = np.searchsorted(free, added)
        border = np.zeros((len(base), len(added) + len(removed)))
        border[:, :len(added)] = self.state.hessian(base, added)
        border[np.searchsorted(base, removed), len(added) + np.arange(len(removed))] = 1.0
        solved = self._cholesky_solve(np.column_stack([base_rhs, border]))
        schur = -(border.T @ solved[:, 1:])
        added_block = self.state.hessian(added, added)
        added_block.flat[::len(added) + 1] += self.ridge
        schur[:len(added), :len(added)] += added_block
        border_rhs = np.zeros(len(added) + len(removed))
        border_rhs[:len(added)] = rhs[at_added]
        border_rhs -= border.T @ solved[:, 0]
        multipliers = np.linalg.solve(schur, border_rhs)
        base_x = solved[:, 0] - solved[:, 1:] @ multipliers
        x = np.empty(len(free))
        x[np.searchsorted(free, base[kept])] = base_x[kept]
        x[at_added] = multipliers[:len(added)]
        return x


def _objective(alpha: np.ndarray, grad: np.ndarray) -> float:
    """``D = 1/2 sum alpha_il (grad_il + 1) - sum alpha_il`` (see the solver's Notes)."""
    return 0.5 * float(np.sum(alpha * (grad + 1.0))) - float(alpha.sum())


def newton_polish(state: DualState, system: FreeSetSystem, tol: float,
                  max_steps: int) -> tuple[int, float]:
    """Primal-dual active-set steps from ``state``; keep the result if it lowers ``D``.

    Parameters
    ----------
    state : DualState
        Updated in place when the steps lower the dual objective.
    system : FreeSetSystem
        The linear systems of ``state``'s Hessian (kept between calls).
    tol : float
        The solver's tolerance (only reported against; the steps solve exactly).
    max_steps : int
        Most steps (the solver's remaining ``max_iter``).

    Returns
    -------
    n_steps : int
    violation : float
        Largest violation of the state on return.

    Notes
    -----
    The variables are guessed at a bound or free (:func:`mixlib.svm._all_together_loop.
    active_set_step`, compiled, as the bookkeeping of each step); the free
    variables ``F`` then solve ``grad_F = 0``: ``H_FF delta_F = -(grad_F + H_FB delta_B)``,
    where ``delta_B`` moves the others to their bounds and
    ``H_{(i,l),(j,m)} = Kt_ij (e_{y_i} - e_l)'(e_{y_j} - e_m)`` (:class:`FreeSetSystem`, with a
    ridge of :data:`RIDGE` for repeated rows). The step repeats from the new point until the
    guessed sets repeat: then the point is the exact minimiser on those sets, and the optimum
    when it is feasible with the right gradient signs. The steps stop early when the number of
    variables whose guess changes stops falling (far from the optimum the guesses can cycle).
    The result is clipped to the box and its gradient recomputed from scratch; it replaces the
    state only if its objective is lower.
    """
    alpha, grad, ub = state.alpha.copy(), state.grad.copy(), state.ub
    sets, previous = np.empty(alpha.shape, dtype=np.int8), np.empty(alpha.shape, dtype=np.int8)
    delta = np.empty_like(alpha)
    n_changed, n_steps = alpha.size, 0
    while n_steps < min(MAX_NEWTON_STEPS, max_steps):
        take, n_changed = _loop.active_set_step(alpha, grad, ub, state.other, sets, previous,
                                                n_steps == 0, n_changed, SETTLED * tol, delta)
        if not take:  # settled, or no longer settling (the guesses cycle far from the optimum)
            break
        sets, previous = previous, sets
        n_steps += 1
        grad += state.gradient_change(delta)
        free = np.flatnonzero(previous == _loop.FREE)
        if len(free) == 0:
            continue
        try:
            step = -system.solve(free, grad.ravel()[free])
        except LinAlgError:  # not positive definite even with the ridge: leave it to descent
            break
        delta.fill(0.0)
        delta.ravel()[free] = step
        alpha += delta
        grad += state.gradient_change(delta)
    np.clip(alpha, 0.0, ub, out=alpha)
    grad = -np.ones_like(alpha) + state.gradient_change(alpha)
    if _objective(alpha, grad) <= _objective(state.alpha, state.grad):
        state.alpha[:] = alpha
        state.grad[:] = grad
        state.reset_penalty()
    return n_steps, state.violation()
