"""The iterations of :func:`mixlib.svm._smo.smo_solve`, compiled.

One compiled loop (numba) runs the pair updates of the SMO solver on rows of the Gram matrix
held in a two-dimensional store: the full Gram matrix, or the slots of a
:class:`~mixlib.svm._smo.KernelRowCache`. When it needs a row the store does not hold, it
returns the row's index; the caller computes the row into a slot and calls it again, and the
loop takes the same iteration up from its start (nothing has changed in between).

Numerics: the same operations as the vectorised numpy loop this replaces, in the same order.
The two gradient updates ``y_t G_t += scale y_i dA_i K_it`` and the curvature's
``-2 scale K_it`` go through the very BLAS ``daxpy`` scipy calls (its address is passed in),
so the fused multiply-adds of an optimised BLAS are the same; every other step is one IEEE
operation per element, and the selections take the first maximum, as ``numpy.argmax``. The
dual variables, gradients and iteration counts are bit for bit those of the numpy loop.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import get_cython_function_address, intrinsic

#: Status of :func:`smo_iterations`: the KKT conditions hold to ``tol``.
CONVERGED = 0
#: Status of :func:`smo_iterations`: ``stop_at`` pair updates were made.
PAUSED = 1
#: Status of :func:`smo_iterations`: a row of the Gram matrix is not in the store.
ROW_MISSING = 2

#: Address of scipy's BLAS ``daxpy`` (``y += a x``; LP64 integers), passed to the loop at
#: run time so that the compiled code holds no address and can be cached.
DAXPY_ADDRESS = get_cython_function_address("scipy.linalg.cython_blas", "daxpy")

TAU = 1e-12  # libsvm's floor on the curvature of a pair (non positive-definite kernels)


@intrinsic
def _daxpy(typingctx, address, alpha, x, y):
    """``y += alpha x`` by the BLAS ``daxpy`` at ``address`` (contiguous vectors, one length)."""
    sig = types.void(types.intp, types.float64, x, y)

    def codegen(context, builder, signature, args):
        address_value, alpha_value, x_value, y_value = args
        x_array = context.make_array(signature.args[2])(context, builder, x_value)
        y_array = context.make_array(signature.args[3])(context, builder, y_value)
        int32, double = ir.IntType(32), ir.DoubleType()
        length = cgutils.alloca_once_value(builder, builder.trunc(x_array.nitems, int32))
        step = cgutils.alloca_once_value(builder, ir.Constant(int32, 1))
        factor = cgutils.alloca_once_value(builder, alpha_value)
        function_type = ir.FunctionType(ir.VoidType(), [
            int32.as_pointer(), double.as_pointer(), double.as_pointer(), int32.as_pointer(),
            double.as_pointer(), int32.as_pointer()])
        function = builder.inttoptr(address_value, function_type.as_pointer())
        builder.call(function, [length, factor, x_array.data, step, y_array.data, step])
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True)
def _use_row(t, slot_of, last_used, clock):
    """Slot of row ``t`` in the store (-1 if absent), stamped as the most recently used."""
    slot = slot_of[t]
    if slot >= 0:
        clock[0] += 1
        last_used[slot] = clock[0]
    return slot


@numba.njit(cache=True)
def solve_pair(old_i, old_j, G_i, G_j, opposite, quad, C_i, C_j):
    """libsvm's two-variable step: the new ``(alpha_i, alpha_j)``, clipped to the box.

    Minimises the dual along the line that keeps ``y_i alpha_i + y_j alpha_j`` constant, a
    step of ``(-G_i - G_j) / quad`` (opposite signs, ``alpha_i - alpha_j`` kept) or
    ``(G_i - G_j) / quad`` (same signs, ``alpha_i + alpha_j`` kept), then moves a variable that
    left ``[0, C]`` back to the bound it crossed and sets the other from the kept difference
    or sum (``libsvm``'s ``Solver::Solve``, same expressions in the same order).
    """
    if opposite:
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
        return a_i, a_j
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
    return a_i, a_j


@numba.njit(cache=True)
def smo_iterations(daxpy_address, rows, slot_of, last_used, clock, sdiag, y, upper, alpha,
                   yG, up_pen, low_pen, scale, tol, n_iter, stop_at, curv, gain):
    """Pair updates of the SMO solver from ``n_iter`` on, in place, until one of three ends.

    Parameters
    ----------
    daxpy_address : int
        :data:`DAXPY_ADDRESS`.
    rows : ndarray of shape (n_slots, n_samples)
        The store: row ``slot_of[t]`` is ``K_t``, row ``t`` of the Gram matrix.
    slot_of : ndarray of int of shape (n_samples,)
        Slot of each row of ``K`` in ``rows``, -1 if absent.
    last_used : ndarray of int64 of shape (n_slots,), clock : ndarray of int64 of shape (1,)
        Each row read stamps its slot with ``clock[0] + 1`` (least-recently-used eviction).
    sdiag, y, upper : ndarray of shape (n_samples,)
        ``scale K_tt``, the signs and the upper bounds ``C_t``.
    alpha, yG, up_pen, low_pen : ndarray of shape (n_samples,)
        Dual variables, ``y_t G_t`` and the 0 / -inf masks of ``I_up`` and ``I_low``,
        updated in place.
    scale, tol : float
        ``Q_ij = scale y_i y_j K_ij``; the tolerance on the maximal violation.
    n_iter, stop_at : int
        Pair updates made so far; the loop pauses when it reaches ``stop_at``.
    curv, gain : ndarray of shape (n_samples,)
        Work buffers.

    Returns
    -------
    n_iter, status, row : int
        Pair updates made so far, :data:`CONVERGED`, :data:`PAUSED` or :data:`ROW_MISSING`,
        and the missing row's index (-1 otherwise).

    Notes
    -----
    An iteration picks ``i = argmax_{I_up} -y_t G_t``; stops when
    ``-y_i G_i + max_{I_low} y_t G_t < tol``; picks
    ``j = argmax_t max(b_t, 0)^2 / max(a_t, tau)`` with ``b_t = -y_i G_i + y_t G_t`` on
    ``I_low`` (-inf elsewhere) and ``a_t = Q_ii + Q_tt - 2 scale K_it``; solves the
    two-variable problem analytically, clips it to the box and updates
    ``y_t G_t += scale (y_i dA_i K_it + y_j dA_j K_jt)``.
    """
    n = y.shape[0]
    while n_iter < stop_at:
        i, g_max = 0, -np.inf
        for t in range(n):
            value = up_pen[t] - yG[t]
            if value > g_max:
                i, g_max = t, value
        low_max = -np.inf
        for t in range(n):
            value = yG[t] + low_pen[t]
            gain[t] = value
            if value > low_max:
                low_max = value
        if g_max + low_max < tol:
            return n_iter, CONVERGED, -1
        slot_i = _use_row(i, slot_of, last_used, clock)
        if slot_i < 0:
            return n_iter, ROW_MISSING, i
        K_i = rows[slot_i]
        curv[:] = sdiag
        _daxpy(daxpy_address, -2.0 * scale, K_i, curv)
        d_i = sdiag[i]
        j, best = 0, -np.inf
        for t in range(n):
            a_t = curv[t] + d_i
            if a_t < TAU:
                a_t = TAU
            b_t = gain[t] + g_max
            if b_t < 0.0:
                b_t = 0.0
            value = (b_t * b_t) / a_t
            if value > best:
                j, best = t, value
        slot_j = _use_row(j, slot_of, last_used, clock)
        if slot_j < 0:
            return n_iter, ROW_MISSING, j
        K_j = rows[slot_j]

        y_i, y_j = y[i], y[j]
        old_i, old_j = alpha[i], alpha[j]
        quad = sdiag[i] + sdiag[j] - 2.0 * scale * K_i[j]
        if quad <= 0.0:
            quad = TAU
        a_i, a_j = solve_pair(old_i, old_j, y_i * yG[i], y_j * yG[j], y_i != y_j, quad,
                              upper[i], upper[j])
        alpha[i], alpha[j] = a_i, a_j
        _daxpy(daxpy_address, scale * y_i * (a_i - old_i), K_i, yG)
        _daxpy(daxpy_address, scale * y_j * (a_j - old_j), K_j, yG)
        for t in (i, j):
            below, above = alpha[t] < upper[t], alpha[t] > 0.0
            up_pen[t] = 0.0 if (below if y[t] > 0 else above) else -np.inf
            low_pen[t] = 0.0 if (above if y[t] > 0 else below) else -np.inf
        n_iter += 1
    return n_iter, PAUSED, -1
