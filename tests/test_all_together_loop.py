"""The compiled all-together descent against the Python and numpy loop it replaced.

:func:`mixlib.svm._all_together_solver.coordinate_descent` runs its block updates in one
compiled loop (:mod:`mixlib.svm._all_together_loop`), reading rows from the full Gram matrix
or from the slots of a :class:`~mixlib.svm._smo.KernelRowCache`. Here the loop is written
out as it was before (Python floats for the block step, ``numpy.argmax`` for the selection,
scipy's ``dger`` for the gradient), and the two must agree bit for bit: same dual variables,
gradient, masks, number of updates and last violation.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg.blas import dger

from mixlib.core.kernels import kernel_matrix
from mixlib.svm._all_together_loop import solve_block
from mixlib.svm._all_together_solver import coordinate_descent
from mixlib.svm._all_together_state import DualState
from mixlib.svm._smo import KernelRowCache
from tests.test_svm_all_together import blobs


def reference_block(g, k, lo, hi):
    """The block step in Python floats, breakpoints ordered by ``sorted``."""
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


def reference_descent(K, state, tol, max_iter):
    """Block updates on ``state``'s arrays, one numpy or Python statement per step; returns
    the updates made and the last violation found."""
    alpha, grad, ub = state.alpha, state.grad, state.ub
    inc_pen, dec_pen = state.penalty
    n, c = alpha.shape
    violations = np.empty(state.penalty.shape)
    n_iter, violation = 0, np.inf
    while n_iter < max_iter:
        np.subtract(inc_pen, grad, out=violations[0])
        np.add(grad, dec_pen, out=violations[1])
        flat = int(violations.argmax())
        violation = violations.item(flat)
        if violation < tol:
            break
        i = (flat % (n * c)) // c
        y_i = int(state.y[i])
        alpha_i, ub_i = alpha[i].tolist(), ub[i].tolist()
        step = reference_block(grad[i].tolist(), float(state.kt_diag[i]),
                               [-a for a in alpha_i], [u - a for a, u in zip(alpha_i, ub_i)])
        step[y_i] = 0.0
        new = [u if d == u - a else (0.0 if d == -a else a + d)
               for a, u, d in zip(alpha_i, ub_i, step)]
        alpha[i] = new
        inc_pen[i] = [0.0 if a < u else -np.inf for a, u in zip(new, ub_i)]
        dec_pen[i] = [0.0 if a > 0.0 else -np.inf for a in new]
        step[y_i] = -sum(step)
        minus_dbeta = np.array(step)
        x = np.subtract(minus_dbeta, minus_dbeta[:, None])
        row = K[i] + 1.0
        for k, (start, stop) in enumerate(state.class_blocks):
            dger(1.0, x[k], row[start:stop], a=grad[start:stop].T, overwrite_a=1)
        n_iter += 1
    return n_iter, violation


def sorted_problem(seed, n, c, kernel, upper):
    """Rows of ``blobs`` sorted by class, their Gram matrix and bounds ``upper`` (per row)."""
    X, y = blobs(seed, n=n, c=c, spread=1.5)
    y_index = np.unique(y, return_inverse=True)[1]
    order = np.argsort(y_index, kind="stable")
    X, y_index = X[order], y_index[order]
    return X, y_index, kernel_matrix(X, kernel=kernel, sigma=0.9), upper[order]


def assert_same_state(state, expected, result, reference):
    assert result == reference
    for name in ("alpha", "grad", "penalty"):
        assert getattr(state, name).tobytes() == getattr(expected, name).tobytes(), name


@pytest.mark.parametrize("c, kernel, C", [(2, "gaussian", 1.0), (3, "gaussian", 10.0),
                                          (3, "linear", 0.5), (4, "gaussian", 3.0)])
@pytest.mark.parametrize("max_iter", [25, 100_000])
def test_compiled_descent_equals_the_numpy_steps_bit_for_bit(c, kernel, C, max_iter):
    """Paused after 25 updates (the violation is then the last selection's) and run to a
    tolerance of 1e-3; zero-weight rows (``U_i = 0``) have every variable at both bounds."""
    n = 60
    upper = np.full(n, C)
    upper[::7] = 0.0
    X, y, K, upper = sorted_problem(c, n, c, kernel, upper)
    state = DualState.start(K.__getitem__, np.diagonal(K).copy(), y, upper, c)
    expected = DualState.start(K.__getitem__, np.diagonal(K).copy(), y, upper, c)
    result = coordinate_descent(state, 1e-3, max_iter)
    assert result[0] > 20
    assert_same_state(state, expected, result, reference_descent(K, expected, 1e-3, max_iter))


def test_row_cache_of_two_rows_gives_the_numpy_steps():
    """The loop leaves to compute each row the cache lacks and takes up the same update."""
    n, c = 80, 3
    X, y, _, upper = sorted_problem(11, n, c, "gaussian", np.full(n, 2.0))
    cache = KernelRowCache(X, kernel="gaussian", degree=3, sigma=0.9,
                           cache_size=2 * 8 * n / 2**20)
    assert cache.capacity == 2
    rows = np.stack([cache(i).copy() for i in range(n)])
    diag = np.diagonal(rows).copy()
    state = DualState.start(cache, diag, y, upper, c)
    expected = DualState.start(rows.__getitem__, diag, y, upper, c)
    computed = cache.n_computed
    result = coordinate_descent(state, 1e-3, 100_000)
    assert cache.n_computed - computed > result[0] // 2  # rows were evicted and computed again
    assert_same_state(state, expected, result, reference_descent(rows, expected, 1e-3, 100_000))


@pytest.mark.parametrize("g, lo, hi, expected", [
    # inside the box, sum 0: d = -g / k
    ([1.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [-0.5, 0.5]),
    # the first coordinate stops at its upper bound 0.1, the second solves alone
    ([-4.0, 0.0], [0.0, 0.0], [0.1, 1.0], [0.1, 0.0]),
    # both at their lower bounds
    ([5.0, 5.0, 0.0], [-0.5, -0.5, 0.0], [1.0, 1.0, 0.0], [-0.5, -0.5, 0.0]),
    # tied breakpoints: the fixed variable (lo = hi = 0) and a bounded one
    ([0.0, -6.0, 0.0], [0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
])
def test_block_step_on_worked_cases(g, lo, hi, expected):
    step = solve_block(np.array(g), 2.0, np.array(lo), np.array(hi))
    np.testing.assert_allclose(step, expected, rtol=1e-15, atol=1e-15)
    assert step.tobytes() == np.array(reference_block(g, 2.0, lo, hi)).tobytes()
