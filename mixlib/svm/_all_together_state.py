"""State of the all-together dual: variables, gradient and kernel access, rows by class.

:class:`DualState` holds the dual variables of :mod:`mixlib.svm._all_together_solver` with
the rows sorted by class (the caller sorts them), so that the gradient update of one kernel
row is one rank-one BLAS update per class (:func:`mixlib.svm._all_together_solver.
coordinate_descent`), and reads kernel rows and blocks for the Newton steps of
:mod:`mixlib.svm._all_together_newton`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

#: Fraction of the rows that must change for :meth:`DualState.gradient_change` to multiply by
#: the whole Gram matrix instead of the changed rows only.
DENSE_CHANGE = 0.25


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
        ``take`` along both axes, or a row cache.
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
        rows = np.arange(len(self.y))
        self.y_flat = rows * self.alpha.shape[1] + self.y  # flat (i, y_i) of an n x c array
        self.y_t_flat = self.y * len(self.y) + rows  # flat (y_i, i) of a c x n array

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
        """Rows ``rows`` of ``K`` (not ``Kt``), shape (len(rows), n_samples)."""
        if self.gram is not None:
            return self.gram.take(rows, axis=0)
        block = np.empty((len(rows), len(self.y)))
        for r, i in enumerate(rows.tolist()):
            block[r] = self.get_row(i)
        return block

    def kernel_block(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """``Kt[left][:, right]``, shape (len(left), len(right))."""
        if self.gram is not None:
            block = self.gram.take(left, axis=0).take(right, axis=1)
        else:
            unique, inverse = np.unique(left, return_inverse=True)
            block = self.kernel_rows(unique).take(right, axis=1).take(inverse, axis=0)
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
        changed, ``dgrad_il = dF_{i y_i} - dF_il``. With the full Gram matrix and more than
        :data:`DENSE_CHANGE` of the rows changed, ``dF`` is a product with all of it (reading
        it costs less than copying the changed rows out of it). The product is one
        matrix-vector product per class: with ``c`` columns, BLAS's matrix-matrix product is
        about half as fast.
        """
        changed = np.flatnonzero(delta.any(axis=1))
        if len(changed) == 0:
            return np.zeros_like(delta)
        if self.gram is not None and len(changed) > DENSE_CHANGE * len(self.y):
            dbeta = np.negative(delta, order="C")
            dbeta.ravel()[self.y_flat] = delta.sum(axis=1)
            rows = self.gram
        else:
            dbeta = -delta[changed]
            dbeta[np.arange(len(changed)), self.y[changed]] = delta[changed].sum(axis=1)
            rows = self.kernel_rows(changed)
        # dF' (c x n): row m is dbeta[:, m]' K[rows], plus sum_i dbeta_im (the 1 of Kt)
        coefficients = np.ascontiguousarray(dbeta.T)
        dF_t = np.empty((len(coefficients), len(self.y)))
        for m, column in enumerate(coefficients):
            np.dot(column, rows, out=dF_t[m])
        dF_t += coefficients.sum(axis=1)[:, None]
        return dF_t.ravel()[self.y_t_flat][:, None] - dF_t.T
