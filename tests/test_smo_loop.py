"""The compiled SMO iterations against a plain numpy transcription of the same algorithm.

:func:`mixlib.svm._smo.smo_solve` runs its pair updates in one compiled loop
(:mod:`mixlib.svm._smo_loop`), reading rows from the full Gram matrix or from the slots of a
:class:`~mixlib.svm._smo.KernelRowCache`. Here every iteration is written out in numpy (the
selections, curvatures and gradient updates; the gradient updates through the BLAS ``daxpy``
the loop calls), and the two must agree bit for bit: same dual variables, same gradient, same
number of updates. The scalar two-variable step (:func:`~mixlib.svm._smo_loop.solve_pair`)
is shared, and checked on its own against worked cases.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest
from scipy.linalg.blas import daxpy

from mixlib.core.kernels import kernel_matrix
from mixlib.svm import _smo
from mixlib.svm._smo import KernelRowCache, kernel_rows, smo_solve
from mixlib.svm._smo_loop import solve_pair

TAU = 1e-12


def reference_smo(K, p, y, upper, alpha, *, scale=1.0, tol=1e-3, max_iter=100_000):
    """SMO with second-order working-set selection, one numpy statement per step."""
    alpha = alpha.astype(float).copy()
    yG = y * p
    for t in np.flatnonzero(alpha):
        daxpy(K[t], yG, a=scale * y[t] * alpha[t])
    sdiag = scale * np.diagonal(K)
    n_iter = 0
    while n_iter < max_iter:
        in_up = ((y > 0) & (alpha < upper)) | ((y < 0) & (alpha > 0))
        in_low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < upper))
        violation_up = np.where(in_up, 0.0, -np.inf) - yG
        i = int(np.argmax(violation_up))
        g_max = violation_up[i]
        gain = yG + np.where(in_low, 0.0, -np.inf)
        if g_max + gain.max() < tol:
            return alpha, yG, n_iter, True
        curv = sdiag.copy()
        daxpy(K[i], curv, a=-2.0 * scale)
        curv = np.maximum(curv + sdiag[i], TAU)
        j = int(np.argmax(np.maximum(gain + g_max, 0.0) ** 2 / curv))
        quad = sdiag[i] + sdiag[j] - 2.0 * scale * K[i, j]
        quad = TAU if quad <= 0.0 else quad
        old_i, old_j = alpha[i], alpha[j]
        a_i, a_j = solve_pair(old_i, old_j, y[i] * yG[i], y[j] * yG[j], y[i] != y[j], quad,
                              upper[i], upper[j])
        alpha[i], alpha[j] = a_i, a_j
        daxpy(K[i], yG, a=scale * y[i] * (a_i - old_i))
        daxpy(K[j], yG, a=scale * y[j] * (a_j - old_j))
        n_iter += 1
    return alpha, yG, n_iter, False


def problem(seed, n=70, kernel="gaussian"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y, kernel_matrix(X, kernel=kernel, degree=2, sigma=1.3)


def assert_same(result, expected):
    alpha, yG, n_iter, converged = expected
    assert result.n_iter == n_iter and result.converged == converged
    assert result.alpha.tobytes() == alpha.tobytes()
    assert result.yG.tobytes() == yG.tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kernel", ["gaussian", "poly", "linear"])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_compiled_loop_equals_the_numpy_steps_bit_for_bit(seed, kernel, C):
    X, y, K = problem(seed, kernel=kernel)
    upper = np.full(len(y), C)
    p = -np.ones(len(y))
    result = smo_solve(K.__getitem__, np.diagonal(K).copy(), p, y, upper, np.zeros(len(y)))
    assert result.n_iter > 10
    assert_same(result, reference_smo(K, p, y, upper, np.zeros(len(y))))


def test_scaled_problem_with_a_start_and_unequal_bounds_equals_the_numpy_steps():
    """SVDD's form (``scale=2``, ``p = -diag``, all signs +1) and the C-SVM with per-row
    bounds, from a feasible non-zero start."""
    X, y, K = problem(3)
    n = len(y)
    diag = np.diagonal(K).copy()
    ones, upper = np.ones(n), np.full(n, 0.05)
    start = np.full(n, 1.0 / n)
    result = smo_solve(K.__getitem__, diag, -diag, ones, upper, start, scale=2.0)
    assert_same(result, reference_smo(K, -diag, ones, upper, start, scale=2.0))
    upper = np.where(y > 0, 2.0, 0.5)
    start = np.zeros(n)
    start[np.flatnonzero(y > 0)[:3]] = 0.4
    start[np.flatnonzero(y < 0)[:3]] = 0.4
    result = smo_solve(K.__getitem__, diag, -np.ones(n), y, upper, start)
    assert_same(result, reference_smo(K, -np.ones(n), y, upper, start))


def test_row_cache_of_two_rows_gives_the_full_matrix_solution():
    """The loop leaves to compute each row the cache lacks and takes up the same iteration."""
    X, y, K = problem(4, n=90)
    n = len(y)
    cache = KernelRowCache(X, kernel="gaussian", degree=2, sigma=1.3,
                           cache_size=2 * 8 * n / 2**20)
    assert cache.capacity == 2
    rows = np.stack([cache(i).copy() for i in range(n)])
    np.testing.assert_allclose(rows, K, rtol=1e-12, atol=1e-14)
    args = (-np.ones(n), y, np.full(n, 5.0), np.zeros(n))
    computed = cache.n_computed
    cached = smo_solve(cache, np.diagonal(rows).copy(), *args)
    assert cache.n_computed - computed > cached.n_iter  # rows were evicted and computed again
    assert_same(cached, reference_smo(rows, *args))


def test_max_iter_stops_the_loop_and_progress_is_logged(monkeypatch, caplog):
    X, y, K = problem(5)
    n = len(y)
    args = (K.__getitem__, np.diagonal(K).copy(), -np.ones(n), y, np.full(n, 10.0), np.zeros(n))
    monkeypatch.setattr(_smo, "LOG_EVERY", 4)
    with caplog.at_level(logging.DEBUG, logger="mixlib.svm._smo"):
        stopped = smo_solve(*args, max_iter=9)
        whole = smo_solve(*args)
    assert (stopped.n_iter, stopped.converged) == (9, False)
    assert whole.converged and whole.n_iter > 9
    progress = [r.getMessage() for r in caplog.records if "SMO iteration" in r.getMessage()]
    assert progress[:2] == ["SMO iteration 4", "SMO iteration 8"]
    assert len(progress) == 2 + whole.n_iter // 4
    monkeypatch.setattr(_smo, "LOG_EVERY", 10_000)
    assert_same(whole, reference_smo(K, -np.ones(n), y, np.full(n, 10.0), np.zeros(n)))


def test_rows_from_anything_but_a_gram_matrix_or_a_row_cache_are_refused():
    X, y, K = problem(6)
    n = len(y)
    args = (np.diagonal(K).copy(), -np.ones(n), y, np.ones(n), np.zeros(n))
    with pytest.raises(TypeError, match="get_row must be"):
        smo_solve(lambda i: K[i], *args)
    with pytest.raises(TypeError, match="get_row must be"):
        smo_solve(np.asfortranarray(K).__getitem__, *args)
    get_row, _ = kernel_rows(X, kernel="gaussian", degree=2, sigma=1.3, cache_size=200.0)
    assert_same(smo_solve(get_row, *args), reference_smo(K, *args[1:]))


@pytest.mark.parametrize("old, G, opposite, quad, C, expected", [
    # opposite signs, alpha_i - alpha_j = 0 kept: step (-G_i - G_j) / quad = 0.5, inside the box
    ((0.0, 0.0), (-0.5, -0.5), True, 2.0, (1.0, 1.0), (0.5, 0.5)),
    # the same step of 2.0 crosses C = 1: both end at C, the difference kept
    ((0.0, 0.0), (-2.0, -2.0), True, 2.0, (1.0, 1.0), (1.0, 1.0)),
    # a step of -0.75 from (0.5, 0.25): alpha_j would be -0.5, so alpha_j = 0, alpha_i = diff
    ((0.5, 0.25), (0.75, 0.75), True, 2.0, (1.0, 1.0), (0.25, 0.0)),
    # same signs, alpha_i + alpha_j = 1 kept: step (G_i - G_j) / quad = 0.25 moves to alpha_j
    ((0.5, 0.5), (0.25, -0.25), False, 2.0, (1.0, 1.0), (0.25, 0.75)),
    # a step of 1.0 would put alpha_i at -0.5: alpha_i = 0, alpha_j = the sum
    ((0.5, 0.5), (1.0, -1.0), False, 2.0, (1.0, 1.0), (0.0, 1.0)),
    # unequal bounds: the sum 1.5 exceeds C_j = 1, a step of 1.0 sends alpha_j to C_j
    ((1.0, 0.5), (1.0, -1.0), False, 2.0, (2.0, 1.0), (0.5, 1.0)),
])
def test_two_variable_step_on_worked_cases(old, G, opposite, quad, C, expected):
    assert solve_pair(*old, *G, opposite, quad, *C) == expected
