"""State of the all-together dual and its primal-dual active-set Newton step.

:class:`DualState` holds the dual variables of :mod:`mixlib.svm._all_together_solver` with
the rows sorted by class (the caller sorts them), so that the gradient update of one kernel row is one rank-one
BLAS update per class. :func:`newton_polish` is the active-set step of Hintermüller, Ito &
Kunisch (2002, "The primal-dual active set strategy as a semismooth Newton method", SIAM J.
Optim. 13(3)) for box constraints, taken from the point the coordinate descent reached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

#: Most active-set steps per call of :func:`newton_polish`. From a descent point within 0.3
#: of the optimum the sets settle in 2 to 4 steps on the study's data sets; a step whose sets
#: have not settled by then is dropped and the descent goes on.
MAX_NEWTON_STEPS = 6

#: A Newton step stops early at a feasible point whose violations are below this fraction of
#: the solver's tolerance (the active sets can keep trading a variable that sits at a bound
#: with a zero gradient, at rounding level).
SETTLED = 1e-6

#: Ridge added to the free variables' Hessian, relative to its mean diagonal. Repeated
#: training rows make that Hessian singular (their variables have equal rows); the system is
#: consistent, and with the ridge it is solved with a gradient residual of about
#: ``RIDGE * Kt_ii * U``, far below any stopping tolerance.
RIDGE = 1e-9


@dataclass
class DualState:
    """The dual variables, their gradient and bounds, rows sorted by class.

    Attributes
    ----------
    alpha, grad, ub : ndarray of shape (n_samples, n_classes)
        Variables, gradient ``F_{i y_i} - F_{il} - 1`` and upper bounds (0 at ``l = y_i``).
    penalty : ndarray of shape (2, n_samples, n_classes)
        0 where a variable can increase (``penalty[0]``) or decrease (``penalty[1]``),
        -inf elsewhere: the violation of ``alpha_il`` is the larger of
        ``penalty[0] - grad`` and ``grad + penalty[1]``.
    y : ndarray of int of shape (n_samples,)
        Class indices, sorted.
    class_blocks : list of (int, int)
        ``start, stop`` of each class's rows.
    kt_diag : ndarray of shape (n_samples,)
        ``K_ii + 1``.
    get_row : callable
        ``get_row(i)`` returns row ``i`` of ``K``: the ``__getitem__`` of a full Gram matrix
        (as :func:`mixlib.svm._smo.kernel_rows` returns it), whose blocks are then read with
        one fancy index, or a row cache.
    """

    alpha: np.ndarray
    grad: np.ndarray
    ub: np.ndarray
    penalty: np.ndarray
    y: np.ndarray
    class_blocks: list[tuple[int, int]]
    kt_diag: np.ndarray
    get_row: Callable[[int], np.ndarray]

    def __post_init__(self) -> None:
        # the descent's scalar copies and buffers
        self.y_list, self.kt_diag_list = self.y.tolist(), self.kt_diag.tolist()
        self.violations, self.row_buffer = np.empty(self.penalty.shape), np.empty(len(self.y))
        gram = getattr(self.get_row, "__self__", None)
        self.gram = gram if isinstance(gram, np.ndarray) else None
        self.other = np.ones(self.alpha.shape, dtype=bool)  # the variables alpha_il, l != y_i
        self.other[np.arange(len(self.y)), self.y] = False

    @classmethod
    def start(cls, get_row: Callable[[int], np.ndarray], diag: np.ndarray, y: np.ndarray,
              upper: np.ndarray, n_classes: int) -> "DualState":
        """The state at ``alpha = 0`` (``grad = -1``); ``y`` must be sorted."""
        if np.any(np.diff(y) < 0):
            raise ValueError("the all-together solver needs the rows sorted by class.")
        n = len(y)
        ub = np.repeat(upper[:, None], n_classes, axis=1)
        ub[np.arange(n), y] = 0.0
        stops = np.searchsorted(y, np.arange(n_classes), side="right")
        starts = np.concatenate([[0], stops[:-1]])
        state = cls(alpha=np.zeros((n, n_classes)), grad=-np.ones((n, n_classes)), ub=ub,
                    penalty=np.empty((2, n, n_classes)), y=y,
                    class_blocks=list(zip(starts.tolist(), stops.tolist())),
                    kt_diag=diag + 1.0, get_row=get_row)
        state.reset_penalty()
        return state

    def reset_penalty(self) -> None:
        """Recompute :attr:`penalty` from ``alpha``."""
        self.penalty[0] = np.where(self.alpha < self.ub, 0.0, -np.inf)
        self.penalty[1] = np.where(self.alpha > 0.0, 0.0, -np.inf)

    def violation(self) -> float:
        """Largest absolute projected gradient."""
        return float(max((self.penalty[0] - self.grad).max(),
                         (self.grad + self.penalty[1]).max()))

    def kernel_rows(self, rows: np.ndarray) -> np.ndarray:
        """Rows ``rows`` of ``Kt = K + 1``, shape (len(rows), n_samples)."""
        if self.gram is not None:
            block = self.gram[rows]
        else:
            block = np.array([self.get_row(i) for i in rows.tolist()])
        block += 1.0
        return block

    def kernel_block(self, rows: np.ndarray) -> np.ndarray:
        """``Kt[rows][:, rows]``, shape (len(rows), len(rows))."""
        if self.gram is not None:
            block = self.gram[np.ix_(rows, rows)]
        else:
            unique, inverse = np.unique(rows, return_inverse=True)
            return self.kernel_rows(unique)[np.ix_(inverse, rows)]
        block += 1.0
        return block

    def active_sets(self, alpha: np.ndarray, grad: np.ndarray) -> tuple[np.ndarray, ...]:
        """The active-set guess at ``alpha``: masks ``lower``, ``upper`` and ``free``.

        With ``z = alpha - grad``, a variable ``alpha_il`` (``l != y_i``) is guessed at its
        lower bound where ``z <= 0``, at its upper bound where ``z >= U``, free elsewhere.
        """
        z = alpha - grad
        lower = self.other & (z <= 0.0)
        upper = self.other & (z >= self.ub) & ~lower
        return lower, upper, self.other & ~lower & ~upper

    def count_guessed_free(self) -> int:
        """Number of free variables of the active-set guess at the current point."""
        return int(np.count_nonzero(self.active_sets(self.alpha, self.grad)[2]))

    def gradient_change(self, delta: np.ndarray) -> np.ndarray:
        """Change of ``grad`` when ``alpha`` changes by ``delta`` (0 at ``l = y_i``).

        ``dbeta_i = e_{y_i} sum_l delta_il - delta_i``, ``dF = Kt dbeta`` over the rows that
        changed, ``dgrad_il = dF_{i y_i} - dF_il``.
        """
        changed = np.flatnonzero(delta.any(axis=1))
        if len(changed) == 0:
            return np.zeros_like(delta)
        dbeta = -delta[changed]
        dbeta[np.arange(len(changed)), self.y[changed]] = delta[changed].sum(axis=1)
        dF = self.kernel_rows(changed).T @ dbeta
        return dF[np.arange(len(self.y)), self.y][:, None] - dF


def _objective(alpha: np.ndarray, grad: np.ndarray) -> float:
    """``D = 1/2 sum alpha_il (grad_il + 1) - sum alpha_il`` (see the solver's Notes)."""
    return 0.5 * float(np.sum(alpha * (grad + 1.0))) - float(alpha.sum())


def _settled(alpha: np.ndarray, grad: np.ndarray, ub: np.ndarray, other: np.ndarray,
             tol: float) -> bool:
    """Whether ``alpha`` is in the box and its violations are below ``SETTLED * tol``."""
    if np.any(alpha < 0.0) or np.any(alpha > ub):
        return False
    violation = np.where(other & (alpha < ub), -grad, 0.0).max()
    violation = max(violation, np.where(other & (alpha > 0.0), grad, 0.0).max())
    return bool(violation < SETTLED * tol)


def newton_polish(state: DualState, tol: float, max_steps: int) -> tuple[int, float]:
    """Primal-dual active-set steps from ``state``; keep the result if it lowers ``D``.

    Parameters
    ----------
    state : DualState
        Updated in place when the steps lower the dual objective.
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
    The variables are guessed at a bound or free (:meth:`DualState.active_sets`); the free
    variables ``F`` then solve
    ``grad_F = 0``: ``H_FF delta_F = -(grad_F + H_FB delta_B)``, where ``delta_B`` moves the
    others to their bounds and ``H_{(i,l),(j,m)} = Kt_ij (e_{y_i} - e_l)'(e_{y_j} - e_m)``
    (Cholesky, with a ridge of :data:`RIDGE` for repeated rows). The step repeats from the
    new point until the guessed sets repeat: then the point is the exact minimiser on those
    sets, and the optimum when it is feasible with the right gradient signs. The steps stop
    early when the number of variables whose guess changes stops falling (far from the
    optimum the guesses can cycle). The result is clipped to the box and its gradient recomputed from
    scratch; it replaces the state only if its objective is lower.
    """
    other = state.other
    alpha, grad, ub = state.alpha.copy(), state.grad.copy(), state.ub
    eye = np.eye(alpha.shape[1])
    previous, n_changed, n_steps = None, alpha.size, 0
    while n_steps < min(MAX_NEWTON_STEPS, max_steps):
        lower, upper, free = state.active_sets(alpha, grad)
        if previous is not None:
            changed = np.count_nonzero(previous[0] != lower) + np.count_nonzero(
                previous[1] != upper)
            # settled, or no longer settling (the guesses cycle far from the optimum)
            if changed == 0 or changed >= n_changed:
                break
            n_changed = changed
        if _settled(alpha, grad, ub, other, tol):
            break
        previous = (lower, upper)
        n_steps += 1
        delta = np.where(lower, -alpha, np.where(upper, ub - alpha, 0.0))
        alpha += delta
        grad += state.gradient_change(delta)
        if not free.any():
            continue
        rows, cols = np.nonzero(free)
        directions = eye[state.y[rows]] - eye[cols]
        hessian = state.kernel_block(rows)
        np.multiply(hessian, directions @ directions.T, out=hessian)
        hessian.flat[::len(rows) + 1] += RIDGE * hessian.trace() / len(rows)
        try:
            step = -cho_solve(cho_factor(hessian, check_finite=False), grad[free],
                              check_finite=False)
        except LinAlgError:  # not positive definite even with the ridge: leave it to descent
            break
        delta = np.zeros_like(alpha)
        delta[free] = step
        alpha += delta
        grad += state.gradient_change(delta)
    np.clip(alpha, 0.0, ub, out=alpha)
    grad = -np.ones_like(alpha) + state.gradient_change(alpha)
    if _objective(alpha, grad) <= _objective(state.alpha, state.grad):
        state.alpha[:] = alpha
        state.grad[:] = grad
        state.reset_penalty()
    return n_steps, state.violation()
