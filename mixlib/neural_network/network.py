"""The network maths of the perceptron (report ch. 2): 1-of-n targets, forward pass,
squared error and the weights (backpropagation is :mod:`mixlib.neural_network._epoch_loop`).

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
    """Weights and momentum velocities of the network.

    The biases are weights from bias units clamped at 1 (as in the report): ``V1`` stacks
    ``W1`` over ``b1`` (shape (n_features + 1, hidden_size)) and ``V2`` stacks ``W2`` over
    ``b2`` (shape (hidden_size + 1, n_outputs)); inputs are passed with their bias column (see
    :func:`add_bias_column`). The gradient steps that train them are
    :func:`mixlib.neural_network._epoch_loop.run_epoch` (backpropagation, fig. 2.2).

    Parameters
    ----------
    n_features, hidden_size, n_outputs : int
        Layer sizes (without bias units).
    rng : numpy.random.Generator
        Source of the initial weights.

    Notes
    -----
    Initialisation (Glorot & Bengio 2010, the scheme scikit-learn uses for ``tanh``, whose slope
    at 0 is 1 like arctan's): every weight and bias of a layer with ``fan_in`` inputs and
    ``fan_out`` outputs is drawn uniformly from ``[-s, s]``, ``s = sqrt(6 / (fan_in + fan_out))``.
    """

    def __init__(
        self, n_features: int, hidden_size: int, n_outputs: int, rng: np.random.Generator,
    ) -> None:
        s1 = np.sqrt(6.0 / (n_features + hidden_size))
        s2 = np.sqrt(6.0 / (hidden_size + n_outputs))
        self.V1 = rng.uniform(-s1, s1, size=(n_features + 1, hidden_size))
        self.V2 = rng.uniform(-s2, s2, size=(hidden_size + 1, n_outputs))
        self.params = (self.V1, self.V2)
        self.velocities = (np.zeros_like(self.V1), np.zeros_like(self.V2))

    def forward(self, X: np.ndarray) -> np.ndarray:
        """Output activations for ``X`` of shape (n_samples, n_features) (allocating)."""
        V1, V2 = self.params
        return forward(X, V1[:-1], V1[-1], V2[:-1], V2[-1])[1]

    def copy_params(self) -> tuple[np.ndarray, ...]:
        return tuple(p.copy() for p in self.params)

    def all_finite(self) -> bool:
        return all(np.isfinite(p).all() for p in self.params)
