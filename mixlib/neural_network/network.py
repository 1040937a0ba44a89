"""The network maths of the perceptron (report ch. 2): 1-of-n targets, forward pass,
squared error and backpropagation with momentum and weight decay.

The network of the report (eq. 2.1, fig. 2.1): ``n_features`` inputs, ``hidden_size`` hidden
units and one output unit per class, fully connected, every unit with the activation
``g(h) = arctan(h)``. The estimator that trains it is
:class:`mixlib.neural_network.mlp.MLPClassifier`.
"""

from __future__ import annotations

import numpy as np

#: Target of the output unit of the true class. ``arctan`` ranges over (-pi/2, pi/2); a target
#: of 1 sits at 64 % of that range, reached at ``h = tan(1) = 1.56`` where the slope
#: ``g'(h) = cos(1)**2 = 0.29`` is still large, so the targets are attained with finite weights
#: and learning never has to push the output units into saturation.
TARGET_ON = 1.0
#: Target of the output units of the other classes (the mirror image of :data:`TARGET_ON`).
TARGET_OFF = -1.0


def one_of_n_targets(y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """Target matrix of the 1-of-n coding.

    Parameters
    ----------
    y_index : ndarray of shape (n_samples,)
        Class index of every sample, in ``0 .. n_classes - 1``.
    n_classes : int
        Number of output units.

    Returns
    -------
    T : ndarray of shape (n_samples, n_classes)
        :data:`TARGET_ON` in the column of the sample's class, :data:`TARGET_OFF` elsewhere.
    """
    T = np.full((y_index.shape[0], n_classes), TARGET_OFF)
    T[np.arange(y_index.shape[0]), y_index] = TARGET_ON
    return T


def forward(
    X: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, b2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Forward propagation of a batch (eq. 2.1 with bias units).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    W1 : ndarray of shape (n_features, hidden_size)
    b1 : ndarray of shape (hidden_size,)
    W2 : ndarray of shape (hidden_size, n_outputs)
    b2 : ndarray of shape (n_outputs,)

    Returns
    -------
    A1 : ndarray of shape (n_samples, hidden_size)
        Hidden activations ``arctan(X W1 + b1)``.
    out : ndarray of shape (n_samples, n_outputs)
        Output activations ``arctan(A1 W2 + b2)``.
    """
    A1 = np.arctan(X @ W1 + b1)
    return A1, np.arctan(A1 @ W2 + b2)


def squared_error(out: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Per-sample squared error ``E_mu = 1/2 sum_i (t_i - out_i)^2`` (eq. 2.3).

    Parameters
    ----------
    out, T : ndarray of shape (n_samples, n_outputs)

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    return 0.5 * np.sum((T - out) ** 2, axis=1)


def add_bias_column(X: np.ndarray) -> np.ndarray:
    """``X`` with a last column of ones (the input bias unit), shape (n_samples, n_features + 1)."""
    Xa = np.empty((X.shape[0], X.shape[1] + 1))
    Xa[:, :-1] = X
    Xa[:, -1] = 1.0
    return Xa


class Network:
    """Weights, momentum velocities and preallocated work buffers of the network.

    The biases are weights from bias units clamped at 1 (as in the report): ``V1`` stacks
    ``W1`` over ``b1`` (shape (n_features + 1, hidden_size)) and ``V2`` stacks ``W2`` over
    ``b2`` (shape (hidden_size + 1, n_outputs)); inputs are passed with their bias column (see
    :func:`add_bias_column`). Every array touched by a gradient step is allocated here once, so
    that a step (even the per-example step of online learning) only calls numpy kernels with
    ``out=`` arguments.

    Parameters
    ----------
    n_features, hidden_size, n_outputs : int
        Layer sizes (without bias units).
    max_batch : int
        Largest number of rows passed to :meth:`gradients` or :meth:`step`.
    rng : numpy.random.Generator
        Source of the initial weights.

    Notes
    -----
    Initialisation (Glorot & Bengio 2010, the scheme scikit-learn uses for ``tanh``, whose slope
    at 0 is 1 like arctan's): every weight and bias of a layer with ``fan_in`` inputs and
    ``fan_out`` outputs is drawn uniformly from ``[-s, s]``, ``s = sqrt(6 / (fan_in + fan_out))``.
    """

    def __init__(
        self, n_features: int, hidden_size: int, n_outputs: int, max_batch: int,
        rng: np.random.Generator,
    ) -> None:
        s1 = np.sqrt(6.0 / (n_features + hidden_size))
        s2 = np.sqrt(6.0 / (hidden_size + n_outputs))
        self.V1 = rng.uniform(-s1, s1, size=(n_features + 1, hidden_size))
        self.V2 = rng.uniform(-s2, s2, size=(hidden_size + 1, n_outputs))
        self.params = (self.V1, self.V2)
        self.grads = (np.zeros_like(self.V1), np.zeros_like(self.V2))
        self.velocities = (np.zeros_like(self.V1), np.zeros_like(self.V2))
        self._H1 = np.empty((max_batch, hidden_size))
        self._A1 = np.ones((max_batch, hidden_size + 1))  # last column: hidden bias unit
        self._G1 = np.empty((max_batch, hidden_size))
        self._D1 = np.empty((max_batch, hidden_size))
        self._out = np.empty((max_batch, n_outputs))
        self._G2 = np.empty((max_batch, n_outputs))
        self._D2 = np.empty((max_batch, n_outputs))
        self._W2_T = self.V2[:-1].T  # a view: follows the in-place updates of V2
        self._views: dict[int, tuple[np.ndarray, ...]] = {}  # buffer slices per batch size
        self._decay1 = np.empty((n_features, hidden_size))
        self._decay2 = np.empty((hidden_size, n_outputs))

    def gradients(
        self, Xa: np.ndarray, T: np.ndarray, coef: np.ndarray, weight_decay: float, scale: float
    ) -> None:
        """Backpropagation (fig. 2.2) of a batch into ``self.grads`` (for ``V1``, ``V2``).

        Parameters
        ----------
        Xa : ndarray of shape (b, n_features + 1)
            Inputs with their bias column.
        T : ndarray of shape (b, n_outputs)
            1-of-n targets.
        coef : ndarray of shape (b, 1)
            Weight of every example in the objective, ``scale * w_mu / b``.
        weight_decay : float
            ``lambda`` of the L2 penalty on ``W1`` and ``W2`` (biases are not penalised).
        scale : float
            Factor applied to the penalty term (the factor already folded into ``coef``).

        Notes
        -----
        Computes the gradient of
        ``J = sum_mu coef_mu E_mu + scale * (lambda / 2) (||W1||^2 + ||W2||^2)``, with
        ``E_mu`` of eq. 2.3. With ``g'(h) = 1 / (1 + h^2) = cos^2(arctan h)`` and
        ``A1 = [arctan(Xa V1), 1]``:

        - output error ``delta2 = coef * (out - t) * cos^2(out)`` (fig. 2.2 step 3, the slope
          written through the activation; the report's ``delta`` has the opposite sign and the
          update ``+eta delta x``),
        - hidden error ``delta1 = (delta2 W2^T) / (1 + (Xa V1)^2)`` (step 4, the slope from the
          kept pre-activation: three cheap array operations instead of a cosine, the costliest
          call of a step; ``h^2`` overflowing to ``inf`` gives the limit slope 0),
        - ``dJ/dV2 = A1^T delta2`` and ``dJ/dV1 = Xa^T delta1`` (step 5), plus
          ``scale lambda W`` on the non-bias rows.
        """
        b = Xa.shape[0]
        V1, V2 = self.params
        gV1, gV2 = self.grads
        views = self._views.get(b)
        if views is None:
            views = self._views[b] = (
                self._H1[:b], self._G1[:b], self._D1[:b], self._A1[:b], self._A1[:b, :-1],
                self._out[:b], self._G2[:b], self._D2[:b],
            )
        H1, G1, D1, A1, hidden, out, G2, D2 = views
        np.dot(Xa, V1, out=H1)
        np.arctan(H1, out=hidden)
        np.dot(A1, V2, out=out)
        np.arctan(out, out=out)
        np.subtract(out, T, out=D2)
        np.cos(out, out=G2)
        G2 *= G2
        D2 *= G2
        D2 *= coef
        np.dot(A1.T, D2, out=gV2)
        np.dot(D2, self._W2_T, out=D1)
        np.multiply(H1, H1, out=G1)  # 1 + h^2: an overflow to inf gives the limit slope 0
        G1 += 1.0
        D1 /= G1
        np.dot(Xa.T, D1, out=gV1)
        if weight_decay > 0.0:
            np.multiply(V1[:-1], scale * weight_decay, out=self._decay1)
            gV1[:-1] += self._decay1
            np.multiply(V2[:-1], scale * weight_decay, out=self._decay2)
            gV2[:-1] += self._decay2

    def step(
        self, Xa: np.ndarray, T: np.ndarray, coef: np.ndarray, learning_rate: float,
        momentum: float, weight_decay: float,
    ) -> None:
        """One gradient step on a batch (fig. 2.2 step 5, with momentum).

        ``coef`` must already hold ``learning_rate * w_mu / b`` (see :meth:`gradients`), so the
        gradient comes out multiplied by the learning rate. Update:
        ``v <- momentum v - eta dJ/dw``, ``w <- w + v``. Without momentum the step is
        ``w <- w - eta dJ/dw = (1 - eta lambda) w - eta dE/dw`` on the weights, applied in that
        second, cheaper form (the same update: ``dE/dw`` is taken at the old weights).
        """
        if momentum > 0.0:
            self.gradients(Xa, T, coef, weight_decay, learning_rate)
            for param, grad, velocity in zip(self.params, self.grads, self.velocities):
                velocity *= momentum
                velocity -= grad
                param += velocity
        else:
            self.gradients(Xa, T, coef, 0.0, learning_rate)
            if weight_decay > 0.0:
                shrink = 1.0 - learning_rate * weight_decay
                self.V1[:-1] *= shrink
                self.V2[:-1] *= shrink
            self.V1 -= self.grads[0]
            self.V2 -= self.grads[1]

    def forward(self, X: np.ndarray) -> np.ndarray:
        """Output activations for ``X`` of shape (n_samples, n_features) (allocating)."""
        V1, V2 = self.params
        return forward(X, V1[:-1], V1[-1], V2[:-1], V2[-1])[1]

    def copy_params(self) -> tuple[np.ndarray, ...]:
        return tuple(p.copy() for p in self.params)

    def all_finite(self) -> bool:
        return all(np.isfinite(p).all() for p in self.params)
