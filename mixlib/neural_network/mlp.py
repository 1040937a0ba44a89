"""Multilayer perceptron with one hidden layer trained by backpropagation (report ch. 2).

The network of the report (eq. 2.1, fig. 2.1): ``n_features`` inputs, ``hidden_size`` hidden
units and one output unit per class, fully connected, every unit with the activation
``g(h) = arctan(h)``. Training minimises the squared error against 1-of-n targets by
stochastic gradient descent (online, one example per update, as in fig. 2.2; or mini-batches),
with optional momentum, under one of three regimes: plain training for a fixed number of
epochs, early stopping on a validation split, or weight decay (an L2 penalty).
"""

from __future__ import annotations

import logging
import warnings
from typing import Literal

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from mixlib.core.exceptions import ConvergenceWarning

logger = logging.getLogger(__name__)

#: Target of the output unit of the true class. ``arctan`` ranges over (-pi/2, pi/2); a target
#: of 1 sits at 64 % of that range, reached at ``h = tan(1) = 1.56`` where the slope
#: ``g'(h) = cos(1)**2 = 0.29`` is still large, so the targets are attained with finite weights
#: and learning never has to push the output units into saturation.
TARGET_ON = 1.0
#: Target of the output units of the other classes (the mirror image of :data:`TARGET_ON`).
TARGET_OFF = -1.0

REGIMES = ("plain", "early_stopping", "weight_decay")


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


class _Network:
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
        ``E_mu`` of eq. 2.3. With ``g'(h) = 1 / (1 + h^2) = cos^2(arctan h)`` (written through the
        activation, which cannot overflow) and ``A1 = [arctan(Xa V1), 1]``:

        - output error ``delta2 = coef * (out - t) * cos^2(out)`` (fig. 2.2 step 3; the report's
          ``delta`` has the opposite sign and the update ``+eta delta x``),
        - hidden error ``delta1 = (delta2 W2^T) * cos^2(arctan(Xa V1))`` (step 4),
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
        np.cos(hidden, out=G1)
        G1 *= G1
        D1 *= G1
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


def stratified_split(
    y_index: np.ndarray, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded stratified split of row indices into (train, validation).

    Every class with ``n_k`` rows gives ``max(1, round(fraction * n_k))`` rows to the
    validation part, and keeps at least one for training.

    Parameters
    ----------
    y_index : ndarray of shape (n_samples,)
        Class index of every row.
    fraction : float
        Share of every class sent to validation, in (0, 1).
    rng : numpy.random.Generator

    Returns
    -------
    train, validation : ndarrays of row indices, each sorted.
    """
    validation = []
    for k in np.unique(y_index):
        rows = np.flatnonzero(y_index == k)
        if rows.shape[0] < 2:
            raise ValueError(
                f"early stopping needs at least 2 training rows per class to hold some out "
                f"for validation; class index {k} has {rows.shape[0]}."
            )
        n_val = min(max(1, int(round(fraction * rows.shape[0]))), rows.shape[0] - 1)
        validation.append(rng.permutation(rows)[:n_val])
    val = np.sort(np.concatenate(validation))
    return np.setdiff1d(np.arange(y_index.shape[0]), val), val


class MLPClassifier(ClassifierMixin, BaseEstimator):
    """One-hidden-layer perceptron with arctan units, trained by backpropagation.

    Parameters
    ----------
    hidden_size : int, default=8
        Number of hidden units (the swept parameter of fig. 6.2).
    learning_rate : float, default=0.02
        Step size ``eta`` of eq. 2.2.
    n_epochs : int, default=30
        Number of passes over the training rows (the maximum for early stopping).
    batch_size : int, default=1
        Examples per update; 1 is the report's online learning. Clipped to the number of
        training rows.
    momentum : float, default=0.0
        Momentum coefficient in [0, 1).
    regime : {"plain", "early_stopping", "weight_decay"}, default="plain"
        ``"plain"``: ``n_epochs`` epochs on all rows, last weights kept. ``"early_stopping"``:
        ``validation_fraction`` of the rows (stratified) held out, training stops after
        ``patience`` epochs without a lower validation loss and the weights of the best epoch
        are restored. ``"weight_decay"``: ``n_epochs`` epochs on all rows with the L2 penalty
        ``weight_decay``.
    weight_decay : float, default=1e-3
        ``lambda`` of the penalty ``(lambda / 2) (||W1||^2 + ||W2||^2)`` on the weights (not the
        biases); used only when ``regime="weight_decay"``.
    validation_fraction : float, default=0.2
        Share of the training rows held out; used only when ``regime="early_stopping"``.
    patience : int, default=5
        Epochs without improvement of the validation loss before stopping; used only when
        ``regime="early_stopping"``.
    random_state : None, int or numpy.random.Generator, default=None
        Source of the initial weights, the validation split and the shuffling of every epoch.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted class labels; output unit ``i`` stands for ``classes_[i]``.
    coefs_ : list of two ndarrays
        ``W1`` of shape (n_features, hidden_size) and ``W2`` of shape (hidden_size, n_classes).
    intercepts_ : list of two ndarrays
        ``b1`` of shape (hidden_size,) and ``b2`` of shape (n_classes,).
    n_epochs_run_ : int
        Epochs actually run.
    best_epoch_ : int
        Epoch (1-based) whose weights the model keeps: the epoch of lowest validation loss under
        early stopping, the last epoch otherwise.
    history_ : dict of str to ndarray of shape (n_epochs_run_,)
        Per epoch, after it: ``train_loss`` and ``validation_loss`` (mean weighted ``E_mu`` of
        eq. 2.3, without the penalty), ``train_error`` and ``validation_error`` (misclassified
        fraction). ``train_*`` are measured on the rows trained on (without the held-out rows
        under early stopping); ``validation_*`` are NaN unless ``regime="early_stopping"``.
    n_features_in_ : int

    Notes
    -----
    Network (eq. 2.1 with bias units): ``A1 = arctan(X W1 + b1)``, ``out = arctan(A1 W2 + b2)``.
    Targets are 1-of-n with values :data:`TARGET_ON` = 1 and :data:`TARGET_OFF` = -1, inside
    arctan's range (-pi/2, pi/2). Objective (eq. 2.4 averaged, plus the penalty):

    ``J = (1/N) sum_mu w_mu E_mu + (lambda/2) (||W1||^2 + ||W2||^2)``,
    ``E_mu = 1/2 sum_i (t_i^mu - out_i^mu)^2``,

    with ``sample_weight`` ``w_mu`` rescaled to mean 1 (all 1 by default). Every update uses
    the estimate of ``J`` on its batch of ``b`` rows, ``(1/b) sum_batch w_mu E_mu + penalty``:
    with ``b = 1`` and ``lambda = 0`` this is exactly the online rule of fig. 2.2. Rows are
    shuffled at every epoch. See :meth:`_Network.gradients` for the backpropagation formulas.
    Initialisation: Glorot uniform (see :class:`_Network`). Early stopping monitors the
    validation loss (smoother than the validation error, which is also recorded). Progress is
    logged to ``logging.getLogger("mixlib.neural_network.mlp")``: every epoch at DEBUG level (losses and
    errors), a summary per fit at INFO level.

    The outputs are not probabilities; see :meth:`predict_proba`.
    """

    def __init__(
        self,
        hidden_size: int = 8,
        learning_rate: float = 0.02,
        n_epochs: int = 30,
        batch_size: int = 1,
        momentum: float = 0.0,
        regime: Literal["plain", "early_stopping", "weight_decay"] = "plain",
        weight_decay: float = 1e-3,
        validation_fraction: float = 0.2,
        patience: int = 5,
        random_state: None | int | np.random.Generator = None,
    ) -> None:
        self.hidden_size = hidden_size
        self.learning_rate = learning_rate
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.momentum = momentum
        self.regime = regime
        self.weight_decay = weight_decay
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.random_state = random_state

    def _check_params(self) -> None:
        for name in ("hidden_size", "n_epochs", "batch_size", "patience"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}.")
            if value < 1:
                raise ValueError(f"{name} must be >= 1, got {value}.")
        if not isinstance(self.learning_rate, (int, float, np.floating)) or not (
            np.isfinite(self.learning_rate) and self.learning_rate > 0
        ):
            raise ValueError(
                f"learning_rate must be a positive number, got {self.learning_rate!r}."
            )
        if not (isinstance(self.momentum, (int, float, np.floating)) and 0 <= self.momentum < 1):
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum!r}.")
        if self.regime not in REGIMES:
            raise ValueError(f"regime must be one of {REGIMES}, got {self.regime!r}.")
        if not (
            isinstance(self.weight_decay, (int, float, np.floating))
            and np.isfinite(self.weight_decay) and self.weight_decay >= 0
        ):
            raise ValueError(f"weight_decay must be a number >= 0, got {self.weight_decay!r}.")
        if self.regime == "weight_decay" and self.learning_rate * self.weight_decay >= 1:
            raise ValueError(
                f"learning_rate * weight_decay must be < 1 (each step shrinks the weights by "
                f"that factor), got {self.learning_rate} * {self.weight_decay}."
            )
        if not (
            isinstance(self.validation_fraction, (float, np.floating))
            and 0 < self.validation_fraction < 1
        ):
            raise ValueError(
                f"validation_fraction must be a float in (0, 1), got {self.validation_fraction!r}."
            )

    def fit(self, X, y, sample_weight=None) -> "MLPClassifier":
        """Train the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric inputs without NaN (impute first).
        y : array-like of shape (n_samples,)
            Class labels, at least two distinct.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weight of every row in the objective (rescaled to mean 1).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On invalid parameters or inputs, or if training diverges (non-finite weights:
            lower ``learning_rate``).

        Warns
        -----
        ConvergenceWarning
            Under early stopping, if the validation loss was still improving when
            ``n_epochs`` ran out.
        """
        self._check_params()
        X, y = check_X_y(X, y)
        weight = check_sample_weight(sample_weight, X.shape[0])
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError(f"y must hold at least 2 classes, got {self.classes_.tolist()}.")
        self.n_features_in_ = X.shape[1]
        rng = check_random_state(self.random_state)
        n_classes = self.classes_.shape[0]
        T = one_of_n_targets(y_index, n_classes)

        early = self.regime == "early_stopping"
        if early:
            counts = np.bincount(y_index, minlength=n_classes)
            if (counts < 2).any():
                lonely = ", ".join(f"'{label}' ({n})" for label, n in zip(self.classes_.tolist(), counts) if n < 2)
                raise ValueError(
                    "early stopping needs at least 2 training rows per class to hold some out for "
                    f"validation; class {lonely} has fewer."
                )
            train, val = stratified_split(y_index, self.validation_fraction, rng)
        else:
            train, val = np.arange(X.shape[0]), np.arange(0)
        X_tr, T_tr, y_tr, w_tr = X[train], T[train], y_index[train], weight[train]
        if w_tr.sum() <= 0 or (early and weight[val].sum() <= 0):
            raise ValueError(
                "sample_weight is zero on every training row (or, under early stopping, on "
                "every validation row)."
            )
        w_tr = w_tr / w_tr.mean()
        n_train = X_tr.shape[0]
        Xa_tr = add_bias_column(X_tr)
        batch = min(self.batch_size, n_train)
        decay = self.weight_decay if self.regime == "weight_decay" else 0.0

        net = _Network(X.shape[1], self.hidden_size, n_classes, batch, rng)
        # per-row factor eta / b_row, b_row being the size of the row's batch (the last
        # batch of an epoch may be smaller)
        sizes = np.full(n_train // batch, batch)
        if n_train % batch:
            sizes = np.append(sizes, n_train % batch)
        row_scale = (self.learning_rate / np.repeat(sizes, sizes))[:, None]
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))

        history: dict[str, list[float]] = {
            k: [] for k in ("train_loss", "train_error", "validation_loss", "validation_error")
        }
        best_loss, best_epoch, best_params = np.inf, 0, None
        epoch = 0
        for epoch in range(1, self.n_epochs + 1):
            perm = rng.permutation(n_train)
            Xp, Tp = Xa_tr[perm], T_tr[perm]
            coef = row_scale * w_tr[perm, None]
            # a too large learning rate overflows; caught just below as divergence
            with np.errstate(over="ignore", invalid="ignore"):
                for start, stop in spans:
                    net.step(Xp[start:stop], Tp[start:stop], coef[start:stop],
                             self.learning_rate, self.momentum, decay)
            if not net.all_finite():
                raise ValueError(
                    f"training diverged at epoch {epoch} (non-finite weights) with "
                    f"learning_rate={self.learning_rate}; lower the learning rate."
                )
            loss, err = self._evaluate(net, X_tr, T_tr, y_tr, w_tr)
            history["train_loss"].append(loss)
            history["train_error"].append(err)
            if early:
                v_loss, v_err = self._evaluate(net, X[val], T[val], y_index[val], weight[val])
            else:
                v_loss, v_err = np.nan, np.nan
            history["validation_loss"].append(v_loss)
            history["validation_error"].append(v_err)
            logger.debug(
                "epoch %d: train loss %.5f error %.4f, validation loss %.5f error %.4f",
                epoch, loss, err, v_loss, v_err,
            )
            if early:
                if v_loss < best_loss:
                    best_loss, best_epoch, best_params = v_loss, epoch, net.copy_params()
                elif epoch - best_epoch >= self.patience:
                    break
        if early:
            if epoch - best_epoch < self.patience:
                warnings.warn(
                    f"early stopping did not trigger within n_epochs={self.n_epochs} (best "
                    f"validation loss at epoch {best_epoch}); consider raising n_epochs.",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            for param, best in zip(net.params, best_params):
                param[...] = best
        else:
            best_epoch = epoch

        self.coefs_ = [net.V1[:-1].copy(), net.V2[:-1].copy()]
        self.intercepts_ = [net.V1[-1].copy(), net.V2[-1].copy()]
        self.n_epochs_run_ = epoch
        self.best_epoch_ = best_epoch
        self.history_ = {k: np.asarray(v, dtype=float) for k, v in history.items()}
        logger.info(
            "MLP %s hidden=%d: %d epochs run, kept epoch %d, train error %.4f",
            self.regime, self.hidden_size, epoch, best_epoch,
            history["train_error"][best_epoch - 1],
        )
        return self

    @staticmethod
    def _evaluate(net: _Network, X, T, y_index, weight) -> tuple[float, float]:
        """Weighted mean squared error (eq. 2.3) and weighted error rate on a data set."""
        out = net.forward(X)
        loss = float(np.average(squared_error(out, T), weights=weight))
        err = float(np.average(np.argmax(out, axis=1) != y_index, weights=weight))
        return loss, err

    def decision_function(self, X) -> np.ndarray:
        """Output activations of the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``arctan(A1 W2 + b2)`` in (-pi/2, pi/2), column ``i`` for ``classes_[i]``.
        """
        check_is_fitted(self, "coefs_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but the network was fitted with "
                f"{self.n_features_in_}."
            )
        (W1, W2), (b1, b2) = self.coefs_, self.intercepts_
        return forward(X, W1, b1, W2, b2)[1]

    def predict(self, X) -> np.ndarray:
        """Class of the output unit with the largest activation, shape (n_samples,)."""
        out = self.decision_function(X)
        return self.classes_[np.argmax(out, axis=1)]

    def predict_proba(self, X) -> np.ndarray:
        """Output activations rescaled to sum to one. NOT calibrated probabilities.

        The network is trained on squared error against +/-1 targets, not on a likelihood, so
        its outputs carry no probabilistic meaning (the report itself notes the perceptron
        "lacks a measure of confidence", ch. 2). This method only provides the scikit-learn
        interface: ``p_i = (out_i + pi/2) / sum_j (out_j + pi/2)``, a monotone rescaling whose
        argmax equals :meth:`predict` (uniform if every output sits at -pi/2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        shifted = self.decision_function(X) + np.pi / 2
        np.maximum(shifted, 0.0, out=shifted)
        total = shifted.sum(axis=1, keepdims=True)
        n_classes = shifted.shape[1]
        return np.divide(
            shifted, total, out=np.full_like(shifted, 1.0 / n_classes), where=total > 0
        )
