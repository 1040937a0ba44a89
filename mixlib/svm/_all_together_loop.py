"""The compiled parts of :mod:`mixlib.svm._all_together_solver` (numba).

- :func:`descent_iterations`: one compiled loop runs the block coordinate descent's updates on
  rows of the Gram matrix held in a two-dimensional store: the full Gram matrix, or the slots
  of a :class:`~mixlib.svm._smo.KernelRowCache`. When it needs a row the store does not
  hold, it returns the row's index; the caller computes the row into a slot and calls it
  again, and the loop takes the same update up from its start (nothing has changed between).
- :func:`active_set_step`: the bookkeeping of one Newton step of
  :mod:`mixlib.svm._all_together_newton` (the active-set guess, its stopping tests, the move
  of the guessed variables to their bounds), one pass over the variables instead of some
  thirty numpy calls.
- :func:`hessian_block`: blocks of the dual's Hessian, one pass over the kernel rows instead
  of five numpy passes over the block.

Numerics: the same operations as the Python and numpy code these replace, in the same order.
The descent's gradient update of each class's rows goes through the very BLAS ``dger`` scipy
calls (its address is passed in, so that the compiled code holds no address and can be
cached); every other step is one IEEE operation per value, the selection takes the first
maximum (as ``numpy.argmax``) and the block step sorts its breakpoints stably (as Python's
``sorted``). The dual variables, gradients and step counts are bit for bit those of the
numpy code (``tests/test_all_together_loop.py``).
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import get_cython_function_address, intrinsic

#: Status of :func:`descent_iterations`: every violation is below ``tol``.
CONVERGED = 0
#: Status of :func:`descent_iterations`: ``max_updates`` block updates were made.
PAUSED = 1
#: Status of :func:`descent_iterations`: a row of the Gram matrix is not in the store.
ROW_MISSING = 2

#: Address of scipy's BLAS ``dger`` (``A += alpha x y'``; LP64 integers), passed to the loop
#: at run time so that the compiled code holds no address and can be cached.
DGER_ADDRESS = get_cython_function_address("scipy.linalg.cython_blas", "dger")


@intrinsic
def _dger_rows(typingctx, address, x, row, grad, start, stop):
    """``grad[start:stop] += row[start:stop] x'`` by the BLAS ``dger`` at ``address``.

    ``grad`` is C-contiguous of shape (n, c) and ``x`` of length c: the rows ``start:stop``
    are the column-major ``c x (stop - start)`` matrix that ``dger`` updates with
    ``alpha = 1``, ``x`` and ``row[start:stop]`` (leading dimension c), as scipy's ``dger``
    is called on ``grad[start:stop].T``.
    """
    sig = types.void(types.intp, x, row, grad, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        address_value, x_value, row_value, grad_value, start_value, stop_value = args
        x_array = context.make_array(signature.args[1])(context, builder, x_value)
        row_array = context.make_array(signature.args[2])(context, builder, row_value)
        grad_array = context.make_array(signature.args[3])(context, builder, grad_value)
        int32, double = ir.IntType(32), ir.DoubleType()
        n_columns = builder.trunc(x_array.nitems, int32)
        m = cgutils.alloca_once_value(builder, n_columns)
        n = cgutils.alloca_once_value(
            builder, builder.trunc(builder.sub(stop_value, start_value), int32))
        one = cgutils.alloca_once_value(builder, ir.Constant(int32, 1))
        lda = cgutils.alloca_once_value(builder, n_columns)
        alpha = cgutils.alloca_once_value(builder, ir.Constant(double, 1.0))
        y_pointer = builder.gep(row_array.data, [start_value])
        first_entry = builder.mul(start_value, builder.sext(n_columns, start_value.type))
        a_pointer = builder.gep(grad_array.data, [first_entry])
        function_type = ir.FunctionType(ir.VoidType(), [
            int32.as_pointer(), int32.as_pointer(), double.as_pointer(), double.as_pointer(),
            int32.as_pointer(), double.as_pointer(), int32.as_pointer(), double.as_pointer(),
            int32.as_pointer()])
        function = builder.inttoptr(address_value, function_type.as_pointer())
        builder.call(function, [m, n, alpha, x_array.data, one, y_pointer, one, a_pointer, lda])
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True)
def _breakpoints(v, lo, hi):
    """The breakpoints of :func:`solve_block`'s ``phi`` and their slope changes, sorted.

    The pairs ``(v_l - hi_l, +1)`` for every ``l``, then ``(v_l - lo_l, -1)``, ordered by
    value and then change, stably (an insertion sort of the ``2c`` pairs): the order
    Python's ``sorted`` gives the list of those tuples.
    """
    c = len(v)
    points, changes = np.empty(2 * c), np.empty(2 * c, dtype=np.int64)
    for e in range(2 * c):
        if e < c:
            point, change = v[e] - hi[e], 1
        else:
            point, change = v[e - c] - lo[e - c], -1
        at = e
        while at > 0 and (point < points[at - 1]
                          or (point == points[at - 1] and change < changes[at - 1])):
            points[at], changes[at] = points[at - 1], changes[at - 1]
            at -= 1
        points[at], changes[at] = point, change
    return points, changes


@numba.njit(cache=True)
def solve_block(g, k, lo, hi):
    """Exact minimiser of one row's sub-problem.

    Solves ``min_d g'd + (k/2) ((sum_l d_l)^2 + ||d||^2)`` subject to ``lo <= d <= hi``.

    Parameters
    ----------
    g : ndarray of shape (c,)
        Gradient of the dual with respect to the row's variables.
    k : float
        ``K_ii + 1 > 0``.
    lo, hi : ndarray of shape (c,)
        Bounds of the step, ``lo <= 0 <= hi``.

    Returns
    -------
    ndarray of shape (c,)
        The step ``d``.

    Notes
    -----
    The Hessian ``k (I + 1 1')`` is positive definite, so the minimiser is unique. For the
    optimal sum ``s = sum_l d_l`` each coordinate minimises ``(g_l + k s) d_l + k d_l^2 / 2``
    on its interval: ``d_l = clip(v_l - s, lo_l, hi_l)`` with ``v = -g / k``. The sum solves
    ``phi(s) = s - sum_l clip(v_l - s, lo_l, hi_l) = 0``. ``phi`` is piecewise linear,
    ``phi(s) = s - sum_l hi_l`` left of every breakpoint; its slope grows by one at each
    ``v_l - hi_l`` (coordinate ``l`` leaves its upper bound) and falls by one at each
    ``v_l - lo_l`` (it reaches its lower bound), so it is at least 1. A sweep over the
    sorted breakpoints (:func:`_breakpoints`) finds the segment of the root.
    """
    c = len(g)
    v = np.empty(c)
    total_hi = 0.0
    for l in range(c):
        v[l] = -g[l] / k
        total_hi += hi[l]
    points, changes = _breakpoints(v, lo, hi)
    s, phi, slope = points[0], points[0] - total_hi, 1
    for e in range(2 * c):
        at_point = phi + slope * (points[e] - s)
        if at_point >= 0.0:
            break
        s, phi, slope = points[e], at_point, slope + changes[e]
    root = s - phi / slope
    step = np.empty(c)
    for l in range(c):
        d = v[l] - root
        if lo[l] > d:
            d = lo[l]
        step[l] = hi[l] if hi[l] < d else d
    return step


@numba.njit(cache=True)
def _select(grad, inc_pen, dec_pen):
    """Flat index into ``(2, n, c)`` and value of the first largest violation.

    The violations are ``inc_pen - grad`` (flat indices ``0 .. nc - 1``) followed by
    ``grad + dec_pen``: the first maximum of the two in that order, as ``numpy.argmax`` of
    their stack.
    """
    n, c = grad.shape
    best_inc, at_inc = -np.inf, 0
    best_dec, at_dec = -np.inf, 0
    for i in range(n):
        for l in range(c):
            value = inc_pen[i, l] - grad[i, l]
            if value > best_inc:
                best_inc, at_inc = value, i * c + l
            value = grad[i, l] + dec_pen[i, l]
            if value > best_dec:
                best_dec, at_dec = value, i * c + l
    if best_dec > best_inc:
        return n * c + at_dec, best_dec
    return at_inc, best_inc


@numba.njit(cache=True)
def _take_step(alpha, ub, inc_pen, dec_pen, step):
    """``alpha += step`` for one row, landing exactly on a bound the step reached (no rounding
    of ``a + (u - a)``), with the row's masks; returns ``sum(step)``."""
    total = 0.0
    for l in range(len(alpha)):
        a, u, d = alpha[l], ub[l], step[l]
        new = u if d == u - a else (0.0 if d == -a else a + d)
        alpha[l] = new
        inc_pen[l] = 0.0 if new < u else -np.inf
        dec_pen[l] = 0.0 if new > 0.0 else -np.inf
        total += d
    return total


@numba.njit(cache=True)
def descent_iterations(dger_address, rows, slot_of, last_used, clock, kt_diag, y, ub, alpha,
                       grad, inc_pen, dec_pen, class_starts, tol, max_updates, row):
    """Block updates of the all-together descent, in place, until one of three ends.

    Parameters
    ----------
    dger_address : int
        :data:`DGER_ADDRESS`.
    rows, slot_of, last_used, clock : ndarray
        The row store of :func:`mixlib.svm._smo._row_store`, read and stamped as
        :func:`mixlib.svm._smo_loop.smo_iterations` does: row ``slot_of[i]`` of ``rows`` is
        ``K_i`` (-1: absent).
    kt_diag : ndarray of shape (n_samples,)
        ``K_ii + 1``.
    y : ndarray of int64 of shape (n_samples,)
        Class indices, sorted.
    ub, alpha, grad, inc_pen, dec_pen : ndarray of shape (n_samples, n_classes)
        Upper bounds; variables, gradient and the 0 / -inf masks of the variables that can
        increase and decrease, updated in place.
    class_starts : ndarray of int64 of shape (n_classes + 1,)
        First row of each class, then ``n_samples``.
    tol : float
    max_updates : int
        The loop pauses after this many updates.
    row : ndarray of shape (n_samples,)
        Work buffer (``Kt_i``).

    Returns
    -------
    n_updates, status : int
        Updates made, :data:`CONVERGED`, :data:`PAUSED` or :data:`ROW_MISSING`.
    violation : float
        The largest violation found by the last selection (before the last update when
        paused; ``inf`` if none was made).
    missing : int
        The missing row's index (-1 otherwise).

    Notes
    -----
    An update takes the row ``i`` of the largest violation (:func:`_select`), the exact step
    ``d`` of its block (:func:`solve_block`, ``d_{y_i}`` fixed at 0), lands a variable that
    reached a bound exactly on it, and adds ``Kt_ij (dbeta_{y_j} - dbeta_l)`` to
    ``grad_{jl}`` with ``-dbeta_i = d - e_{y_i} sum_l d_l``: for the rows of class ``k`` the
    rank-one update ``grad[rows of k] += Kt_i[rows of k] (dbeta_k - dbeta)'``.
    """
    n, c = alpha.shape
    violation = np.inf
    lo, hi, x = np.empty(c), np.empty(c), np.empty(c)
    for n_updates in range(max_updates):
        flat, violation = _select(grad, inc_pen, dec_pen)
        if violation < tol:
            return n_updates, CONVERGED, violation, -1
        i = (flat % (n * c)) // c
        slot = slot_of[i]
        if slot < 0:
            return n_updates, ROW_MISSING, violation, i
        clock[0] += 1
        last_used[slot] = clock[0]
        for l in range(c):
            lo[l], hi[l] = -alpha[i, l], ub[i, l] - alpha[i, l]
        step = solve_block(grad[i], kt_diag[i], lo, hi)
        step[y[i]] = 0.0
        step[y[i]] = -_take_step(alpha[i], ub[i], inc_pen[i], dec_pen[i], step)
        for j in range(n):
            row[j] = rows[slot, j] + 1.0
        for m in range(c):
            for l in range(c):
                x[l] = step[l] - step[m]
            _dger_rows(dger_address, x, row, grad, class_starts[m], class_starts[m + 1])
    return max_updates, PAUSED, violation, -1


#: Codes of the active-set guess (:func:`guess_active_sets`): ``alpha_{i y_i}``, which is no
#: variable, and the variables guessed at their lower bound, at their upper bound and free.
NOT_A_VARIABLE, AT_LOWER, AT_UPPER, FREE = 0, 1, 2, 3


@numba.njit(cache=True)
def guess_active_sets(alpha, grad, ub, other, sets):
    """The active-set guess at ``alpha``: codes into ``sets``, and the number of free variables.

    With ``z = alpha - grad``, a variable ``alpha_il`` (``other[i, l]``, ``l != y_i``) is
    guessed at its lower bound where ``z <= 0``, else at its upper bound where ``z >= U``,
    else free.

    Parameters
    ----------
    alpha, grad, ub : ndarray of shape (n_samples, n_classes)
    other : ndarray of bool of shape (n_samples, n_classes)
    sets : ndarray of int8 of shape (n_samples, n_classes)
        Receives :data:`NOT_A_VARIABLE`, :data:`AT_LOWER`, :data:`AT_UPPER` or :data:`FREE`.
    """
    n, c = alpha.shape
    n_free = 0
    for i in range(n):
        for l in range(c):
            if not other[i, l]:
                code = NOT_A_VARIABLE
            elif alpha[i, l] - grad[i, l] <= 0.0:
                code = AT_LOWER
            elif alpha[i, l] - grad[i, l] >= ub[i, l]:
                code = AT_UPPER
            else:
                code, n_free = FREE, n_free + 1
            sets[i, l] = code
    return n_free


@numba.njit(cache=True)
def _n_changed(previous, sets):
    """Guesses that changed: variables that entered or left the lower set, plus those that
    entered or left the upper set (a move from one bound to the other counts twice)."""
    changed = 0
    for i in range(sets.shape[0]):
        for l in range(sets.shape[1]):
            changed += ((previous[i, l] == AT_LOWER) != (sets[i, l] == AT_LOWER)) + (
                (previous[i, l] == AT_UPPER) != (sets[i, l] == AT_UPPER))
    return changed


@numba.njit(cache=True)
def _settled(alpha, grad, ub, other, threshold):
    """Whether ``alpha`` is in the box and every violation is below ``threshold``: ``-grad``
    of a variable below its upper bound, ``grad`` of one above 0."""
    n, c = alpha.shape
    for i in range(n):
        for l in range(c):
            if alpha[i, l] < 0.0 or alpha[i, l] > ub[i, l]:
                return False
    violation = 0.0
    for i in range(n):
        for l in range(c):
            if other[i, l] and alpha[i, l] < ub[i, l] and -grad[i, l] > violation:
                violation = -grad[i, l]
            if other[i, l] and alpha[i, l] > 0.0 and grad[i, l] > violation:
                violation = grad[i, l]
    return violation < threshold


@numba.njit(cache=True)
def active_set_step(alpha, grad, ub, other, sets, previous, first, n_changed, threshold,
                    delta):
    """The bookkeeping of one primal-dual active-set step, in place.

    Guesses the sets at ``(alpha, grad)`` into ``sets`` (:func:`guess_active_sets`). The step
    is not taken when, after the first (``first`` False), no guess changed from ``previous``
    or no fewer than ``n_changed`` did (the guesses cycle), or when ``alpha`` has settled
    (:func:`_settled` with ``threshold``). Otherwise the variables guessed at a bound move
    there: ``delta = -alpha`` at the lower, ``U - alpha`` at the upper bound, 0 elsewhere, and
    ``alpha += delta``.

    Returns
    -------
    take : bool
        Whether the step is taken (``alpha`` and ``delta`` are then updated).
    n_changed : int
        The number of changed guesses (``n_changed`` unchanged on the first step).
    """
    guess_active_sets(alpha, grad, ub, other, sets)
    if not first:
        changed = _n_changed(previous, sets)
        if changed == 0 or changed >= n_changed:
            return False, n_changed
        n_changed = changed
    if _settled(alpha, grad, ub, other, threshold):
        return False, n_changed
    n, c = alpha.shape
    for i in range(n):
        for l in range(c):
            if sets[i, l] == AT_LOWER:
                delta[i, l] = -alpha[i, l]
            elif sets[i, l] == AT_UPPER:
                delta[i, l] = ub[i, l] - alpha[i, l]
            else:
                delta[i, l] = 0.0
            alpha[i, l] += delta[i, l]
    return True, n_changed


@numba.njit(cache=True)
def hessian_block(rows, store_left, y_left, columns_left, rows_right, y_right, columns_right,
                  n_classes, out):
    """Hessian entries ``out[a, b] = Kt_ij (e_{y_i} - e_l)'(e_{y_j} - e_m)``, in place.

    Parameters
    ----------
    rows : ndarray of shape (n_rows, n_samples)
        Kernel rows: row ``store_left[a]`` is ``K_i`` of the left variable ``a = (i, l)``.
    store_left, y_left, columns_left : ndarray of int of shape (n_left,)
        For each left variable ``alpha_il``: its kernel row in ``rows``, ``y_i`` and ``l``.
    rows_right, y_right, columns_right : ndarray of int of shape (n_right,)
        For each right variable ``alpha_jm``: ``j``, ``y_j`` and ``m``.
    n_classes : int
    out : ndarray of shape (n_left, n_right)
        Row-major: each row of ``out`` is read from one kernel row.

    Notes
    -----
    ``(e_{y_i} - e_l)'(e_{y_j} - e_m) = [y_i = y_j] - [y_i = m] - [l = y_j] + [l = m]``, an
    integer that depends on the two variables' pairs of classes only (a table of ``c^2``
    values per left variable), and ``Kt_ij = K_ij + 1``: each entry is one addition and one
    product, as the numpy form ``(K[rows][:, rows] + 1) * (D_left @ D_right')`` (whose
    product of the 0 and +-1 direction matrices is exact) computes it.
    """
    pair_right = y_right * n_classes + columns_right
    sign = np.empty(n_classes * n_classes)
    for a in range(len(store_left)):
        y_i, l = y_left[a], columns_left[a]
        for y_j in range(n_classes):
            for m in range(n_classes):
                sign[y_j * n_classes + m] = (np.int64(y_i == y_j) - np.int64(y_i == m)
                                             - np.int64(l == y_j) + np.int64(l == m))
        row = rows[store_left[a]]
        for b in range(len(rows_right)):
            out[a, b] = (row[rows_right[b]] + 1.0) * sign[pair_right[b]]
