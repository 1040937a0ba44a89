"""The compiled epoch of backpropagation against a plain numpy transcription of its update.

:func:`mixlib.neural_network._epoch_loop.run_epoch` takes every gradient step of an epoch in
one compiled loop. Here the documented step is written out with numpy products (forward pass,
output and hidden errors, gradients, penalty, momentum), batch after batch, and the weights of
the two must agree to round-off (the loop sums in index order, numpy in the BLAS's order)
after one epoch and after 30, with and without momentum, weight decay, mini-batches (the last
one smaller) and non-unit row weights, for layers narrower and wider than the loop's
:data:`~mixlib.neural_network._epoch_loop.NARROW` (its loops in index order, and through the
BLAS), with the rows in a shuffled order. The gradient the loop descends is checked against
finite differences of the objective.
"""

from __future__ import annotations

import numpy as np
import pytest

from mixlib.neural_network._epoch_loop import NARROW, run_epoch
from mixlib.neural_network.network import (
    TARGET_OFF,
    TARGET_ON,
    Network,
    add_bias_column,
    forward,
    one_of_n_targets,
    squared_error,
)
from tests.test_mlp import hand_online_step


def reference_gradients(V1, V2, Xa, T, coef, penalty):
    """``dJ/dV1, dJ/dV2`` of ``J = sum coef E + (penalty / 2)(||W1||^2 + ||W2||^2)``."""
    H1 = Xa @ V1
    A1 = np.hstack([np.arctan(H1), np.ones((Xa.shape[0], 1))])
    out = np.arctan(A1 @ V2)
    D2 = (out - T) * np.cos(out) ** 2 * coef[:, None]
    D1 = (D2 @ V2[:-1].T) / (1.0 + H1 ** 2)
    g1, g2 = Xa.T @ D1, A1.T @ D2
    g1[:-1] += penalty * V1[:-1]
    g2[:-1] += penalty * V2[:-1]
    return g1, g2


def reference_epoch(V1, V2, vel1, vel2, Xa, T, coef, batch_size, eta, momentum, lam):
    """The documented steps of an epoch, one numpy statement each, in place."""
    for start in range(0, Xa.shape[0], batch_size):
        rows = slice(start, start + batch_size)
        if momentum > 0.0:
            g1, g2 = reference_gradients(V1, V2, Xa[rows], T[rows], coef[rows], eta * lam)
            for V, vel, g in ((V1, vel1, g1), (V2, vel2, g2)):
                vel *= momentum
                vel -= g
                V += vel
        else:
            g1, g2 = reference_gradients(V1, V2, Xa[rows], T[rows], coef[rows], 0.0)
            for V, g in ((V1, g1), (V2, g2)):
                V[:-1] *= 1.0 - eta * lam
                V -= g


def objective(V1, V2, Xa, T, coef, penalty):
    """J written independently, through the library's forward pass and squared error."""
    _, out = forward(Xa[:, :-1], V1[:-1], V1[-1], V2[:-1], V2[-1])
    return float(np.sum(coef * squared_error(out, T))
                 + 0.5 * penalty * (np.sum(V1[:-1] ** 2) + np.sum(V2[:-1] ** 2)))


def problem(seed, n=120, n_features=40, n_classes=3, onehot=True):
    """Inputs (one-hot blocks of 4 like the DNA coding, or Gaussian), targets, row weights."""
    rng = np.random.default_rng(seed)
    if onehot:
        X = np.zeros((n, n_features))
        blocks = n_features // 4
        X[np.arange(n)[:, None], 4 * np.arange(blocks) + rng.integers(0, 4, (n, blocks))] = 1.0
    else:
        X = rng.standard_normal((n, n_features))
    T = one_of_n_targets(rng.integers(0, n_classes, n), n_classes)
    return add_bias_column(X), T, rng.uniform(0.2, 2.0, n)


def step_once(V1, V2, Xa, T, coef, eta, momentum, lam):
    """One step of the loop on a single batch (the rows given); the new weights and velocities."""
    V1, V2 = V1.copy(), V2.copy()
    vel1, vel2 = np.zeros_like(V1), np.zeros_like(V2)
    run_epoch(Xa, T, coef, np.arange(Xa.shape[0]), V1, V2, vel1, vel2, Xa.shape[0], eta, momentum,
              lam)
    return V1, V2, vel1, vel2


@pytest.mark.parametrize("hidden, n_classes", [(2, 3), (9, 3), (9, 5)])
@pytest.mark.parametrize("batch_size", [1, 32])
@pytest.mark.parametrize("momentum, lam", [(0.0, 0.0), (0.0, 0.05), (0.9, 0.0), (0.5, 0.05)])
@pytest.mark.parametrize("onehot", [True, False])
def test_epochs_agree_with_the_numpy_transcription(hidden, n_classes, batch_size, momentum, lam,
                                                   onehot):
    assert 2 < NARROW <= 9  # both loop orders of the hidden layer are reached, and of the output
    Xa, T, w = problem(hidden + batch_size, n_classes=n_classes, onehot=onehot)
    # an effective step eta / (1 - m) of 0.04 (the study trains at 0.02): on these random
    # labels much larger steps make the training chaotic, and any two summation orders part
    n, eta = Xa.shape[0], 0.04 * (1.0 - momentum)
    sizes = np.diff(np.r_[np.arange(0, n, batch_size), n])
    assert sizes[-1] < batch_size or batch_size == 1  # 120 = 3 * 32 + 24: a smaller last batch
    coef = eta * w / np.repeat(sizes, sizes)
    net = Network(Xa.shape[1] - 1, hidden, n_classes, np.random.default_rng(7))
    V1, V2 = net.V1, net.V2
    vel1, vel2 = net.velocities
    R1, R2, r1, r2 = V1.copy(), V2.copy(), vel1.copy(), vel2.copy()
    shuffle = np.random.default_rng(1)
    for epoch in range(1, 31):
        order = shuffle.permutation(n)
        run_epoch(Xa, T, coef[order], order, V1, V2, vel1, vel2, batch_size, eta, momentum, lam)
        reference_epoch(R1, R2, r1, r2, Xa[order], T[order], coef[order], batch_size, eta,
                        momentum, lam)
        if epoch in (1, 30):
            for got, want in ((V1, R1), (V2, R2), (vel1, r1), (vel2, r2)):
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    assert not np.allclose(V1, Network(Xa.shape[1] - 1, hidden, n_classes,
                                       np.random.default_rng(7)).V1, rtol=1e-2)  # it moved
    assert (np.abs(vel1).max() > 0) == (momentum > 0)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("hidden", [2, 6])
@pytest.mark.parametrize("momentum, lam", [(0.0, 0.0), (0.0, 0.3), (0.5, 0.3)])
def test_a_step_descends_the_finite_difference_gradient(seed, hidden, momentum, lam):
    """From zero velocity a step is ``w - dJ/dw`` (with ``eta = 1``): compare with central
    differences of J on a batch of 5 rows with weights large enough to bend the arctans."""
    rng = np.random.default_rng(seed)
    n, d, c = 5, 3, 3
    net = Network(d, hidden, c, rng)
    V1, V2 = 3.0 * net.V1, 3.0 * net.V2
    Xa = add_bias_column(rng.standard_normal((n, d)))
    T = one_of_n_targets(rng.integers(0, c, n), c)
    coef = rng.uniform(0.1, 1.0, n)
    N1, N2, _, _ = step_once(V1, V2, Xa, T, coef, 1.0, momentum, lam)
    eps = 1e-6
    for param, new in ((V1, N1), (V2, N2)):
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            old = param[idx]
            param[idx] = old + eps
            up = objective(V1, V2, Xa, T, coef, lam)
            param[idx] = old - eps
            down = objective(V1, V2, Xa, T, coef, lam)
            param[idx] = old
            numeric[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(param - new, numeric, rtol=1e-6, atol=1e-9)


def test_the_step_is_eta_times_the_batch_gradient():
    """coef = eta w / b and penalty eta lambda: halving eta halves the step, data and penalty."""
    Xa, T, w = problem(3, n=4, n_features=8, onehot=False)
    net = Network(8, 5, 3, np.random.default_rng(3))
    for momentum in (0.0, 0.5):
        steps = []
        for eta in (0.2, 0.1):
            N1, N2, _, _ = step_once(net.V1, net.V2, Xa, T, eta * w / 4, eta, momentum, 0.7)
            steps.append((N1 - net.V1, N2 - net.V2))
        for full, half in zip(*steps):
            np.testing.assert_allclose(half, 0.5 * full, rtol=1e-12, atol=1e-16)


@pytest.mark.parametrize("hidden", [2, NARROW + 1])
def test_one_online_step_by_hand(hidden):
    rng = np.random.default_rng(0)
    V1 = rng.uniform(-2, 2, (3, hidden))  # last row: hidden biases
    V2 = rng.uniform(-2, 2, (hidden + 1, 2))  # last row: output biases
    x, t, eta = np.array([0.8, -1.2]), np.array([TARGET_ON, TARGET_OFF]), 0.1
    expected_V1, expected_V2 = hand_online_step(V1, V2, x, t, eta)
    N1, N2, _, _ = step_once(V1, V2, add_bias_column(x[None, :]), t[None, :], np.array([eta]),
                             eta, 0.0, 0.0)
    np.testing.assert_allclose(N1, expected_V1, rtol=1e-13)
    np.testing.assert_allclose(N2, expected_V2, rtol=1e-13)


def test_momentum_steps_accumulate_velocity():
    """Two online steps with m = 0.5: v1 = -g(w0), v2 = m v1 - g(w1), w2 = w0 + v1 + v2."""
    net = Network(2, 2, 2, np.random.default_rng(1))
    Xa = add_bias_column(np.array([[0.3, -0.4], [-1.0, 0.8]]))
    T = one_of_n_targets(np.array([1, 0]), 2)
    coef = np.array([0.1, 0.1])
    V1, V2, vel1, vel2 = net.V1.copy(), net.V2.copy(), *net.velocities
    run_epoch(Xa, T, coef, np.arange(2), V1, V2, vel1, vel2, 1, 0.1, 0.5, 0.2)
    a = reference_gradients(net.V1, net.V2, Xa[:1], T[:1], coef[:1], 0.1 * 0.2)
    W1, W2 = net.V1 - a[0], net.V2 - a[1]
    b = reference_gradients(W1, W2, Xa[1:], T[1:], coef[1:], 0.1 * 0.2)
    for got, start, ga, gb in zip((V1, V2), net.params, a, b):
        np.testing.assert_allclose(got, start - ga + (0.5 * -ga - gb), rtol=1e-12, atol=1e-15)
    for vel, ga, gb in zip((vel1, vel2), a, b):
        np.testing.assert_allclose(vel, 0.5 * -ga - gb, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("hidden", [2, NARROW + 1])
def test_weight_decay_shrinks_weights_not_biases(hidden):
    """Without momentum: w <- (1 - eta lambda) w - eta dE/dw; biases only follow eta dE/db."""
    rng = np.random.default_rng(2)
    net = Network(3, hidden, 2, rng)
    Xa = add_bias_column(rng.standard_normal((2, 3)))
    T = one_of_n_targets(np.array([0, 1]), 2)
    coef = np.full(2, 0.05 / 2)
    data = reference_gradients(net.V1, net.V2, Xa, T, coef, 0.0)
    N1, N2, _, _ = step_once(net.V1, net.V2, Xa, T, coef, 0.05, 0.0, 0.4)
    for new, start, g in zip((N1, N2), net.params, data):
        np.testing.assert_allclose(new[:-1], (1 - 0.05 * 0.4) * start[:-1] - g[:-1], rtol=1e-12,
                                   atol=1e-15)
        np.testing.assert_allclose(new[-1], start[-1] - g[-1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("momentum", [0.0, 0.5])
def test_a_diverging_step_leaves_non_finite_weights(momentum):
    """Overflowing steps make the weights inf or NaN, for the caller to detect."""
    Xa, T, w = problem(5, n=10, n_features=8, onehot=False)
    net = Network(8, 6, 3, np.random.default_rng(5))
    run_epoch(1e10 * Xa, T, 1e300 * w, np.arange(10), net.V1, net.V2, *net.velocities, 1, 1e300,
              momentum, 0.0)
    assert not net.all_finite()
