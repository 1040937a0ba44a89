"""Multilayer perceptron with one hidden layer trained by backpropagation (report ch. 2).

The estimator of the network of :mod:`mixlib.neural_network.network`. Training minimises the
squared error against 1-of-n targets by stochastic gradient descent (online, one example per
update, as in fig. 2.2; or mini-batches), with optional momentum, under one of three regimes:
plain training for a fixed number of epochs, early stopping on a validation split, or weight
decay (an L2 penalty).
"""

from __future__ import annotations

import logging
import warnings
from typing import Literal

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.log_space import logsumexp_rows
from mixlib.core.validation import (
    check_choice,
    check_fitted_input,
    check_float,
    check_int,
    check_random_state,
    check_sample_weight,
    check_X_y,
    encode_labels,
)
from mixlib.neural_network._epoch_loop import run_epoch
from mixlib.neural_network.network import Network, add_bias_column, forward, one_of_n_targets, squared_error

logger = logging.getLogger(__name__)

REGIMES = ("plain", "early_stopping", "weight_decay")


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
    shuffled at every epoch. See :func:`~mixlib.neural_network._epoch_loop.run_epoch` for
    the backpropagation formulas.
    Initialisation: Glorot uniform (see :class:`Network`). Early stopping monitors the
    validation loss (smoother than the validation error, which is also recorded). Progress is
    logged to ``logging.getLogger("mixlib.neural_network.mlp")``: every epoch at DEBUG level (losses and
    errors), a summary per fit at INFO level.

    The outputs are not probabilities; see :meth:`predict_proba`.

    sklearn check not passed: check_sample_weight_equivalence_on_dense_data — online
    backpropagation (batch_size=1, rows shuffled every epoch) takes one doubled step for a
    row of weight 2 where its two copies take two steps, and early stopping holds out other
    rows: like any stochastic gradient descent the fits differ. Full-batch training
    minimises the same weighted objective as the repeated rows.
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
            check_int(getattr(self, name), name, min_value=1)
        check_float(self.learning_rate, "learning_rate", low=0, closed="neither")
        check_float(self.momentum, "momentum", low=0, high=1, closed="left")
        check_choice(self.regime, "regime", REGIMES)
        check_float(self.weight_decay, "weight_decay", low=0)
        if self.regime == "weight_decay" and self.learning_rate * self.weight_decay >= 1:
            raise ValueError(
                f"learning_rate * weight_decay must be < 1 (each step shrinks the weights by "
                f"that factor), got {self.learning_rate} * {self.weight_decay}."
            )
        check_float(self.validation_fraction, "validation_fraction", low=0, high=1, closed="neither")

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
        self.classes_, y_index = encode_labels(y, min_classes=2)
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

        net = Network(X.shape[1], self.hidden_size, n_classes, rng)
        # per-row factor eta / b_row, b_row being the size of the row's batch (the last
        # batch of an epoch may be smaller)
        sizes = np.full(n_train // batch, batch)
        if n_train % batch:
            sizes = np.append(sizes, n_train % batch)
        row_scale = self.learning_rate / np.repeat(sizes, sizes)

        history: dict[str, list[float]] = {
            k: [] for k in ("train_loss", "train_error", "validation_loss", "validation_error")
        }
        best_loss, best_epoch, best_params = np.inf, 0, None
        epoch = 0
        for epoch in range(1, self.n_epochs + 1):
            perm = rng.permutation(n_train)
            run_epoch(Xa_tr, T_tr, row_scale * w_tr[perm], perm, net.V1, net.V2,
                      *net.velocities, batch, float(self.learning_rate), float(self.momentum),
                      float(decay))
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
    def _evaluate(net: Network, X, T, y_index, weight) -> tuple[float, float]:
        """Weighted mean squared error (eq. 2.3) and weighted error rate on a data set."""
        out = net.forward(X)
        loss = float(np.average(squared_error(out, T), weights=weight))
        err = float(np.average(np.argmax(out, axis=1) != y_index, weights=weight))
        return loss, err

    def _outputs(self, X) -> np.ndarray:
        """Output activations ``arctan(A1 W2 + b2)``, shape (n_samples, n_classes)."""
        X = check_fitted_input(self, X, attribute="coefs_")
        (W1, W2), (b1, b2) = self.coefs_, self.intercepts_
        return forward(X, W1, b1, W2, b2)[1]

    def decision_function(self, X) -> np.ndarray:
        """Output activations of the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``arctan(A1 W2 + b2)`` in (-pi/2, pi/2), column ``i`` for ``classes_[i]``; for
            two classes, shape (n_samples,): the activation of ``classes_[1]`` minus that of
            ``classes_[0]`` (scikit-learn's shape; positive where ``classes_[1]`` is predicted).
        """
        return self._binary_decision(self._outputs(X))

    def predict(self, X) -> np.ndarray:
        """Class of the output unit with the largest activation, shape (n_samples,)."""
        out = self._outputs(X)
        return self.classes_[np.argmax(out, axis=1)]

    def predict_proba(self, X) -> np.ndarray:
        """Softmax of the output activations. NOT calibrated probabilities.

        The network is trained on squared error against +/-1 targets, not on a likelihood, so
        its outputs carry no probabilistic meaning (the report itself notes the perceptron
        "lacks a measure of confidence", ch. 2). This method only provides the scikit-learn
        interface: ``p_i = exp(out_i) / sum_j exp(out_j)``, whose argmax equals
        :meth:`predict` and which, for two classes, increases with
        :meth:`decision_function` (``p_2 = 1 / (1 + exp(-(out_2 - out_1)))``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        out = self._outputs(X)
        return np.exp(out - logsumexp_rows(out, keepdims=True))
