"""State of the all-together dual: variables, gradient and kernel access, rows by class.

:class:`DualState` holds the dual variables of :mod:`mixlib.svm._all_together_solver` with
the rows sorted by class (the caller sorts them), so that the gradient update of one kernel
row is one rank-one BLAS update per class (:func:`mixlib.svm._all_together_solver.
coordinate_descent`), and reads kernel rows and blocks for the Newton steps of
:mod:`mixlib.svm._all_together_newton`. On small problems, whose time goes to numpy's
per-call overhead more than to arithmetic, it keeps the Hessian of all the variables, so that
a gradient change is one matrix-vector product.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from mixlib.svm import _all_together_loop as _loop
from mixlib.svm._smo import _row_store

#: Fraction of the rows that must change for :meth:`DualState.gradient_change` to multiply by
#: the whole Gram matrix instead of the changed rows only.
DENSE_CHANGE = 0.25
#: Small problems keep the Hessian of their ``m = n (c - 1)`` variables
#: (:attr:`DualState.hessian_all`): a gradient change is then one matrix-vector product of
#: ``m^2`` flops instead of ``c`` products with the Gram matrix and a dozen numpy calls around
#: them, whose overhead costs about as much as this many flops. It is kept when ``m^2`` is at
#: most this (2.4 MB), so that it never costs more than the products it replaces.
SMALL_PROBLEM_FLOPS = 3e5


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
        (as :func:`mixlib.svm._smo.kernel_rows` returns it, C-contiguous), which the compiled
        loops read directly, or a :class:`~mixlib.svm._smo.KernelRowCache`.
    hessian_all : ndarray of shape (m, m) or None
        On small problems (:data:`SMALL_PROBLEM_FLOPS`), the Hessian of ``D`` in its ``m``
        variables ``alpha_il``, ``l != y_i``, in the order of their flat indices ``i c + l``
        (:attr:`variables`): ``Kt_ij (e_{y_i} - e_l)'(e_{y_j} - e_m)``.
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
        # what the compiled descent takes: kernel rows as stored, class codes and bounds
        self.row_store = _row_store(self.get_row, len(self.y))
        self.y_codes = np.ascontiguousarray(self.y, dtype=np.int64)
        self.class_starts = np.array([start for start, _ in self.class_blocks] + [len(self.y)],
                                     dtype=np.int64)
        self.row_buffer = np.empty(len(self.y))
        gram = getattr(self.get_row, "__self__", None)
        self.gram = gram if isinstance(gram, np.ndarray) else None
        self.other = np.ones(self.alpha.shape, dtype=bool)  # the variables alpha_il, l != y_i
        self.other[np.arange(len(self.y)), self.y] = False
        self.y_t_flat = self.y * len(self.y) + np.arange(len(self.y))  # flat (y_i, i), c x n
        self.ones = np.ones(self.alpha.shape[1])
        self.variables = np.flatnonzero(self.other)  # flat indices of the alpha_il, l != y_i
        self.hessian_all = None
        if self.gram is not None and len(self.variables) ** 2 <= SMALL_PROBLEM_FLOPS:
            self.hessian_all = self.hessian(self.variables, self.variables)

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

    def hessian(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """``H[left][:, right]`` for flat variable indices: ``Kt_ij (e_{y_i} - e_l)'(e_{y_j} -
        e_m)`` (a new array).

        Computed in one compiled pass over the kernel rows
        (:func:`mixlib.svm._all_together_loop.hessian_block`): the full Gram matrix's, or the
        rows of ``left`` read once each from the cache.
        """
        rows_l, columns_l = np.divmod(left, self.alpha.shape[1])
        rows_r, columns_r = np.divmod(right, self.alpha.shape[1])
        if self.gram is not None:
            rows, store_left = self.gram, rows_l
        else:
            unique, store_left = np.unique(rows_l, return_inverse=True)
            rows = self.kernel_rows(unique)
        block = np.empty((len(left), len(right)))
        _loop.hessian_block(rows, store_left, self.y_codes.take(rows_l), columns_l, rows_r,
                            self.y_codes.take(rows_r), columns_r, self.alpha.shape[1], block)
        return block

    def count_guessed_free(self) -> int:
        """Number of free variables of the active-set guess at the current point."""
        return _loop.guess_active_sets(self.alpha, self.grad, self.ub, self.other,
                                       np.empty(self.alpha.shape, dtype=np.int8))

    def gradient_change(self, delta: np.ndarray) -> np.ndarray:
        """Change of ``grad`` when ``alpha`` changes by ``delta`` (0 at ``l = y_i``).

        ``dbeta_i = e_{y_i} sum_l delta_il - delta_i``, ``dF = Kt dbeta`` over the rows that
        changed, ``dgrad_il = dF_{i y_i} - dF_il``. With the full Gram matrix and more than
        :data:`DENSE_CHANGE` of the rows changed, ``dF`` is a product with all of it (reading
        it costs less than copying the changed rows out of it). The product is one
        matrix-vector product per class: with ``c`` columns, BLAS's matrix-matrix product is
        about half as fast. On small problems it is one product with :attr:`hessian_all`.
        """
        if self.hessian_all is not None:
            change = np.zeros(delta.size)
            change[self.variables] = self.hessian_all @ delta.ravel().take(self.variables)
            return change.reshape(delta.shape)
        nonzero = np.flatnonzero(delta)
        if len(nonzero) == 0:
            return np.zeros_like(delta)
        c = delta.shape[1]
        row_of = nonzero // c
        first = np.empty(len(row_of), dtype=bool)  # first variable of each row that changed
        first[0] = True
        np.not_equal(row_of[1:], row_of[:-1], out=first[1:])
        # coefficients (c x rows): dbeta' of the rows that changed, or of all rows. Row sums
        # as products with ones: numpy's reductions over c columns cost more than BLAS's.
        if self.gram is not None and np.count_nonzero(first) > DENSE_CHANGE * len(self.y):
            coefficients = np.negative(delta.T, order="C")
            coefficients.ravel()[self.y_t_flat] = delta @ self.ones
            rows = self.gram
        else:
            changed = row_of[first]
            delta = delta.take(changed, axis=0)
            coefficients = np.negative(delta.T, order="C")
            coefficients[self.y.take(changed), np.arange(len(changed))] = delta @ self.ones
            rows = self.kernel_rows(changed)
        # dF' (c x n): row m is dbeta[:, m]' K[rows], plus sum_i dbeta_im (the 1 of Kt)
        dF_t = np.empty((len(coefficients), len(self.y)))
        for m, column in enumerate(coefficients):
            np.dot(column, rows, out=dF_t[m])
        dF_t += coefficients.sum(axis=1)[:, None]
        return dF_t.ravel()[self.y_t_flat][:, None] - dF_t.T
