"""The compiled parts of the all-together solver against the Python and numpy code they replaced.

:func:`mixlib.svm._all_together_solver.coordinate_descent` runs its block updates in one
compiled loop (:mod:`mixlib.svm._all_together_loop`), reading rows from the full Gram matrix
or from the slots of a :class:`~mixlib.svm._smo.KernelRowCache`. Here the loop is written
out as it was before (Python floats for the block step, ``numpy.argmax`` for the selection,
scipy's ``dger`` for the gradient), and the two must agree bit for bit: same dual variables,
gradient, masks, number of updates and last violation. So must the compiled bookkeeping of
the Newton steps (the active-set guess, its stopping tests, the move to the bounds) and the
Hessian blocks against their numpy forms.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg.blas import dger

from mixlib.core.kernels import kernel_matrix
from mixlib.svm._all_together_loop import (AT_LOWER, AT_UPPER, FREE, NOT_A_VARIABLE,
                                           active_set_step, guess_active_sets, solve_block)
from mixlib.svm._all_together_solver import coordinate_descent
from mixlib.svm._all_together_state import DualState
from mixlib.svm._smo import KernelRowCache
from tests.test_svm_all_together import blobs, small_problem_state


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
    tolerance of 1e-3; unequal weights (a step to ``U_i`` lands on it, not at
    ``alpha + (U_i - alpha)``), and zero-weight rows have every variable at both bounds."""
    n = 60
    upper = C * np.random.default_rng(c).uniform(0.5, 2.0, n)
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


def reference_active_set_step(alpha, grad, ub, other, previous, n_changed, threshold):
    """The bookkeeping of a Newton step with boolean masks: whether the step is taken, the
    changed count, the masks (lower, upper, free) and the move to the bounds."""
    z = alpha - grad
    lower = other & (z <= 0.0)
    upper = other & (z >= ub) & ~lower
    masks = (lower, upper, other & ~lower & ~upper)
    if previous is not None:
        changed = np.count_nonzero(previous[0] != lower) + np.count_nonzero(previous[1] != upper)
        if changed == 0 or changed >= n_changed:
            return False, n_changed, masks, None
        n_changed = changed
    violation = max(np.where(other & (alpha < ub), -grad, 0.0).max(),
                    np.where(other & (alpha > 0.0), grad, 0.0).max())
    if not ((alpha < 0.0).any() or (alpha > ub).any()) and violation < threshold:
        return False, n_changed, masks, None
    return True, n_changed, masks, np.where(lower, -alpha, np.where(upper, ub - alpha, 0.0))


def assert_same_step(state, alpha, grad, previous_masks, n_changed, threshold):
    """:func:`active_set_step` from ``(alpha, grad)`` against the reference; returns the
    masks of its guess."""
    take, changed, masks, delta = reference_active_set_step(
        alpha, grad, state.ub, state.other, previous_masks, n_changed, threshold)
    previous = np.full(alpha.shape, NOT_A_VARIABLE, dtype=np.int8)
    if previous_masks is not None:
        previous[previous_masks[0]], previous[previous_masks[1]] = AT_LOWER, AT_UPPER
        previous[state.other & ~previous_masks[0] & ~previous_masks[1]] = FREE
    sets, moved = np.empty(alpha.shape, dtype=np.int8), alpha.copy()
    result_delta = np.full(alpha.shape, np.nan)
    result = active_set_step(moved, grad, state.ub, state.other, sets, previous,
                             previous_masks is None, n_changed, threshold, result_delta)
    assert result == (take, changed)
    for mask, code in zip(masks, (AT_LOWER, AT_UPPER, FREE)):
        np.testing.assert_array_equal(sets == code, mask)
    assert guess_active_sets(alpha, grad, state.ub, state.other, sets) == masks[2].sum()
    if take:
        assert result_delta.tobytes() == delta.tobytes()
        assert moved.tobytes() == (alpha + delta).tobytes()
    else:
        assert moved.tobytes() == alpha.tobytes()
    return masks


@pytest.mark.parametrize("c", [2, 3, 4])
def test_active_set_step_equals_the_numpy_masks(c):
    """From a descent's point (variables at both bounds and between), then from a point
    whose guess changed (with ``z`` exactly 0 and ``U`` in two variables) in fewer and in as
    many variables as before, from a settled point, one with a violation at the threshold
    and one out of the box."""
    state = small_problem_state(c, c=c)
    alpha, grad = state.alpha.copy(), state.grad.copy()
    assert 0 < np.count_nonzero(state.alpha) < state.other.sum()
    first = assert_same_step(state, alpha, grad, None, alpha.size, 1e-9)
    rng = np.random.default_rng(c)
    moved_grad = grad + np.where(rng.random(grad.shape) < 0.1, rng.normal(size=grad.shape), 0)
    (i, j), (l, m) = np.nonzero(state.other & (state.ub > 0))[0][:2], np.nonzero(
        state.other & (state.ub > 0))[1][:2]
    moved_grad[i, l] = alpha[i, l] - state.ub[i, l]  # z = U exactly: at the upper bound
    moved_grad[j, m] = alpha[j, m]  # z = 0: at the lower bound
    assert (alpha - moved_grad)[i, l] == state.ub[i, l] and (alpha - moved_grad)[j, m] == 0
    second = assert_same_step(state, alpha, moved_grad, first, alpha.size, 1e-9)
    n_changed = np.count_nonzero(first[0] != second[0]) + np.count_nonzero(
        first[1] != second[1])
    assert_same_step(state, alpha, moved_grad, first, n_changed, 1e-9)  # as many: stop
    assert_same_step(state, alpha, grad, first, alpha.size, 1e-9)  # unchanged: stop
    inside = np.where(state.other, 0.5 * state.ub, 0.0)
    tiny = np.where(state.other, rng.normal(scale=1e-12, size=grad.shape), 0.0)
    assert_same_step(state, inside, tiny, None, alpha.size, 1e-9)  # settled: stop
    tiny[np.nonzero(state.other)[0][-1], np.nonzero(state.other)[1][-1]] = 1e-9
    assert_same_step(state, inside, tiny, None, alpha.size, 1e-9)  # a violation of 1e-9: go
    outside = inside.copy()
    outside[np.nonzero(state.other)[0][0], np.nonzero(state.other)[1][0]] = -1e-3
    assert_same_step(state, outside, tiny, None, alpha.size, 1e-9)


@pytest.mark.parametrize("c", [2, 3, 4])
@pytest.mark.parametrize("cached", [False, True])
def test_hessian_block_equals_the_numpy_products(c, cached):
    """``(K[rows][:, rows] + 1) * (D_left @ D_right')`` bit for bit, from the full Gram matrix
    and from a row cache (``c = 4`` has zero entries between variables with no class in
    common)."""
    n = 50
    X, y, K, upper = sorted_problem(c + 20, n, c, "gaussian", np.ones(n))
    if cached:
        cache = KernelRowCache(X, kernel="gaussian", degree=3, sigma=0.9,
                               cache_size=8 * 8 * n / 2**20)
        K = np.stack([cache(i).copy() for i in range(n)])
        state = DualState.start(cache, np.diagonal(K).copy(), y, upper, c)
    else:
        state = DualState.start(K.__getitem__, np.diagonal(K).copy(), y, upper, c)
    rng = np.random.default_rng(c)
    variables = np.flatnonzero(state.other)
    left, right = np.sort(rng.choice(variables, 40)), rng.choice(variables, 23)
    eye = np.eye(c)

    def directions(flat):
        rows, columns = np.divmod(flat, c)
        return eye[y[rows]] - eye[columns]

    expected = (K[np.ix_(left // c, right // c)] + 1.0) * (directions(left)
                                                          @ directions(right).T)
    assert (expected == 0.0).any() == (c == 4)
    assert state.hessian(left, right).tobytes() == expected.tobytes()
    assert state.hessian(left, right[:0]).shape == (40, 0)  # no variable entered the set


def test_equal_violations_go_to_the_first_in_numpy_order():
    """The largest violations of both kinds are equal: the one that can increase comes first
    in the order of ``numpy.argmax`` over (increase, decrease), even at a later row."""
    X, y, K, upper = sorted_problem(30, 12, 2, "gaussian", np.ones(12))
    states = [DualState.start(K.__getitem__, np.diagonal(K).copy(), y, upper, 2)
              for _ in range(2)]
    for state in states:
        other = np.flatnonzero(state.other)
        state.alpha.ravel()[other[0]] = 0.5  # can decrease, violation grad = 0.75
        state.grad.ravel()[other[0]] = 0.75
        state.grad.ravel()[other[1:]] = -0.25  # can increase, violation 0.25 ...
        state.grad.ravel()[other[-1]] = -0.75  # ... but the last row's 0.75
        state.reset_penalty()
    result = coordinate_descent(states[0], 1e-3, 1)
    assert result == reference_descent(K, states[1], 1e-3, 1) == (1, 0.75)
    assert_same_state(states[0], states[1], result, result)
    assert states[0].alpha.ravel()[other[-1]] > 0.0 and states[0].alpha.ravel()[other[0]] == 0.5


def test_a_step_to_the_upper_bound_lands_on_it():
    """From ``alpha = 0.2`` a step to ``U = 0.9`` ends at 0.9, where ``0.2 + (0.9 - 0.2)`` is
    0.8999999999999999."""
    X, y, K, upper = sorted_problem(31, 12, 2, "gaussian", np.full(12, 0.9))
    states = [DualState.start(K.__getitem__, np.diagonal(K).copy(), y, upper, 2)
              for _ in range(2)]
    at = np.flatnonzero(states[0].other)[3]
    for state in states:
        state.alpha.ravel()[at], state.grad.ravel()[at] = 0.2, -100.0
        state.reset_penalty()
    result = coordinate_descent(states[0], 1e-3, 1)
    assert_same_state(states[0], states[1], result, reference_descent(K, states[1], 1e-3, 1))
    assert states[0].alpha.ravel()[at] == 0.9 != 0.2 + (0.9 - 0.2)
