"""One epoch of backpropagation (report fig. 2.2), compiled.

:func:`run_epoch` takes every gradient step of one pass over the training rows in a given
order, batch after batch, and updates the weights and momentum velocities of
:class:`mixlib.neural_network.network.Network` in place. Online learning (one row per step,
the report's choice) makes a step a few thousand multiply-adds: the loop is compiled (numba)
so that a step costs that arithmetic rather than the overhead of a dozen numpy calls.

Numerics: every weight update is the formula of :func:`run_epoch`, element by element, in the
order of operations given there. The products of a hidden layer at least :data:`NARROW` wide
go through the BLAS (``numpy.dot``, as in the numpy implementation this replaces): its
pre-activations, and its gradient ``Xa^T delta1`` for a mini-batch; the other sums run in
index order, where numpy summed in the order of the BLAS. Weights can therefore differ from a
numpy implementation by round-off (about 1e-16 relative per step).
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: Layers with fewer output columns than this are walked column by column (a sum runs down a
#: column of weights), wider ones row by row (each input adds to a row of partial sums, a
#: vectorised loop) or through the BLAS: whichever loop is faster for the width.
NARROW = 4


@numba.njit(cache=True)
def _layer(x, V, h):
    """Pre-activations ``h = x V`` of one row ``x`` (each sum in the order of ``x``'s index)."""
    n_in, n_out = V.shape
    if n_out < NARROW:
        for k in range(n_out):
            s = 0.0
            for j in range(n_in):
                s += x[j] * V[j, k]
            h[k] = s
    else:
        h[:] = 0.0
        for j in range(n_in):
            x_j = x[j]
            for k in range(n_out):
                h[k] += x_j * V[j, k]


@numba.njit(cache=True)
def _update(w, v, g, penalised, momentum, decay):
    """New ``(w, v)`` of one weight from ``g``, its gradient of the data term (see
    :func:`run_epoch`)."""
    if momentum > 0.0:
        if penalised:
            g += w * decay
        v = v * momentum - g
        return w + v, v
    if penalised:
        w *= 1.0 - decay
    return w - g, v


@numba.njit(cache=True, inline="always")
def _apply_row(V, velocity, j, grad, penalised, momentum, decay):
    """The step of row ``j`` of a layer's weights from ``grad``, its gradient of the data term."""
    if momentum > 0.0:
        for k in range(V.shape[1]):
            V[j, k], velocity[j, k] = _update(V[j, k], velocity[j, k], grad[k], penalised,
                                              momentum, decay)
    elif penalised:
        for k in range(V.shape[1]):
            V[j, k] = V[j, k] * (1.0 - decay) - grad[k]
    else:
        for k in range(V.shape[1]):
            V[j, k] -= grad[k]


@numba.njit(cache=True)
def _descend(V, velocity, inputs, deltas, n_penalised, momentum, decay, grad):
    """One step of a layer's weights ``V``: data gradient ``inputs^T deltas`` (sum over the
    batch's rows in order), penalty on the first ``n_penalised`` rows; ``grad`` is work space of
    one row."""
    n_rows, n_cols = V.shape
    b = inputs.shape[0]
    if n_cols < NARROW:
        for k in range(n_cols):
            for j in range(n_rows):
                g = inputs[0, j] * deltas[0, k]
                for r in range(1, b):
                    g += inputs[r, j] * deltas[r, k]
                V[j, k], velocity[j, k] = _update(V[j, k], velocity[j, k], g, j < n_penalised,
                                                  momentum, decay)
    else:
        for j in range(n_rows):
            x_j = inputs[0, j]
            for k in range(n_cols):
                grad[k] = x_j * deltas[0, k]
            for r in range(1, b):
                x_j = inputs[r, j]
                for k in range(n_cols):
                    grad[k] += x_j * deltas[r, k]
            _apply_row(V, velocity, j, grad, j < n_penalised, momentum, decay)


@numba.njit(cache=True)
def run_epoch(Xa, T, coef, order, V1, V2, velocity1, velocity2, batch_size, learning_rate,
              momentum, weight_decay):
    """Every gradient step of one epoch, batch after batch, in place.

    Parameters
    ----------
    Xa : ndarray of shape (n, n_features + 1), float64, C-contiguous
        Inputs with their bias column (last, all 1).
    T : ndarray of shape (n, n_outputs), float64
        1-of-n targets of the rows.
    coef : ndarray of shape (n,), float64
        Factor of every row's error in its step: ``learning_rate * w_mu / b``, ``b`` the size
        of the row's batch, ``coef[s]`` for the ``s``-th row of the epoch (``Xa[order[s]]``).
    order : ndarray of shape (n,), int64
        The rows in the order of the epoch (a permutation of ``0 .. n - 1``).
    V1 : ndarray of shape (n_features + 1, hidden_size), float64
        ``W1`` over ``b1``; updated in place.
    V2 : ndarray of shape (hidden_size + 1, n_outputs), float64
        ``W2`` over ``b2``; updated in place.
    velocity1, velocity2 : ndarrays of the shapes of ``V1`` and ``V2``, float64
        Momentum velocities; updated in place (untouched when ``momentum`` is 0).
    batch_size : int
        Rows per step: the batches are ``order[s:s + batch_size]`` for ``s = 0, batch_size,
        ...`` (the last may be smaller).
    learning_rate : float
        ``eta``, the factor of the penalty's gradient (the data term's is in ``coef``).
    momentum : float
        Momentum coefficient ``m`` in [0, 1).
    weight_decay : float
        ``lambda`` of the L2 penalty on ``W1`` and ``W2`` (not on the biases).

    Notes
    -----
    A step on a batch descends ``J = sum_mu coef_mu E_mu + eta (lambda / 2) (||W1||^2 +
    ||W2||^2)``, ``E_mu = 1/2 sum_i (t_i - out_i)^2`` (eq. 2.3), whose gradient is ``eta``
    times that of the batch's estimate of the objective. With ``h1 = Xa V1``,
    ``A1 = [arctan(h1), 1]``, ``out = arctan(A1 V2)`` at the weights before the step, and
    ``g'(h) = 1 / (1 + h^2) = cos^2(arctan h)``:

    - output error ``delta2 = ((out - t) cos^2(out)) coef`` (fig. 2.2 step 3, the slope written
      through the activation; the report's ``delta`` has the opposite sign and the update
      ``+eta delta x``),
    - hidden error ``delta1 = (delta2 W2^T) / (h1^2 + 1)`` (step 4; ``h1^2`` overflowing to
      ``inf`` gives the limit slope 0),
    - ``dJ/dV2 = A1^T delta2`` and ``dJ/dV1 = Xa^T delta1`` (step 5), plus
      ``(eta lambda) W`` on the non-bias rows.

    Update with momentum: ``v <- m v - dJ/dw``, ``w <- w + v``. Without momentum:
    ``w <- (1 - eta lambda) w - (dJ/dw - eta lambda w)``, the same step ``w - dJ/dw`` with the
    penalty applied as a shrinking of the weights (biases: ``w <- w - dJ/dw``).

    A diverging step leaves non-finite weights (never finite again); the caller checks after
    the epoch.
    """
    n, n_in = Xa.shape
    hidden = V1.shape[1]
    n_out = V2.shape[1]
    rows = min(batch_size, n)
    Xb = np.empty((rows, n_in))
    H1 = np.empty((rows, hidden))
    A1 = np.empty((rows, hidden + 1))
    D1 = np.empty((rows, hidden))
    D2 = np.empty((rows, n_out))
    G1 = np.empty((n_in, hidden))
    out = np.empty(n_out)
    grad2 = np.empty(n_out)
    decay = learning_rate * weight_decay
    # the penalised rows: the weights, not the biases (last row)
    penalised1 = n_in - 1 if weight_decay > 0.0 else 0
    penalised2 = hidden if weight_decay > 0.0 else 0
    for start in range(0, n, batch_size):
        b = min(start + batch_size, n) - start
        # a wide layer's products go through the BLAS (but a single row's gradient, an outer
        # product): the batch's inputs gathered in a block
        blas = hidden >= NARROW
        if b == 1:
            inputs = Xa[order[start]:order[start] + 1]
        else:
            for r in range(b):
                Xb[r] = Xa[order[start + r]]
            inputs = Xb[:b]
        if blas:
            np.dot(inputs, V1, H1[:b])
        # forward pass and errors of the batch, at the weights before the step
        for r in range(b):
            h = H1[r]
            if not blas:
                _layer(inputs[r], V1, h)
            for k in range(hidden):
                A1[r, k] = math.atan(h[k])
            A1[r, hidden] = 1.0
            _layer(A1[r], V2, out)
            for i in range(n_out):
                o = math.atan(out[i])
                slope = math.cos(o)
                D2[r, i] = ((o - T[order[start + r], i]) * (slope * slope)) * coef[start + r]
            for k in range(hidden):
                back = 0.0
                for i in range(n_out):
                    back += D2[r, i] * V2[k, i]
                D1[r, k] = back / (h[k] * h[k] + 1.0)
        _descend(V2, velocity2, A1[:b], D2[:b], penalised2, momentum, decay, grad2)
        if blas and b > 1:
            np.dot(inputs.T, D1[:b], G1)
            for j in range(n_in):
                _apply_row(V1, velocity1, j, G1[j], j < penalised1, momentum, decay)
        else:
            _descend(V1, velocity1, inputs, D1[:b], penalised1, momentum, decay, G1[0])
