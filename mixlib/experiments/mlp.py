"""Experiment of fig. 6.2: the MLP's errors against the hidden-layer size, three regimes.

One pipeline job is one *sweep point*: one training regime and one hidden-layer size, with its
repeats inside (:func:`mlp_sweep_point`). The figure gathers the tables of all points.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import pandas as pd

from mixlib.neural_network import REGIMES, MLPClassifier

logger = logging.getLogger(__name__)

#: Training settings of a sweep point unless ``params`` overrides them. Chosen on splice
#: (600 one-hot training rows): online SGD at this rate reaches zero training error within
#: about 10 epochs; early stopping usually stops before 25 epochs.
DEFAULT_PARAMS: dict[str, Any] = {
    "learning_rate": 0.02,
    "n_epochs": 30,
    "batch_size": 1,
    "momentum": 0.0,
    "weight_decay": 1e-3,
    "validation_fraction": 0.2,
    "patience": 5,
}

METRICS = ("train_error", "test_error", "epochs_run", "best_epoch", "fit_seconds")


def mlp_sweep_point(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    regime: str,
    hidden_size: int,
    params: dict[str, Any] | None,
    rng: np.random.Generator | int,
    n_repeats: int = 10,
    first_repeat: int = 0,
) -> pd.DataFrame:
    """Train ``n_repeats`` networks of one regime and hidden size; their errors as a tidy table.

    Every repeat trains a fresh :class:`mixlib.neural_network.mlp.MLPClassifier` on the same training rows
    with its own generator (initial weights, shuffling, and the validation split under early
    stopping), spawned from ``rng``; it is then scored on the training and the test rows.

    Parameters
    ----------
    X_train : ndarray of shape (n_train, n_features)
        Training inputs without NaN (e.g. splice one-hot, 600 rows).
    y_train : ndarray of shape (n_train,)
        Training labels.
    X_test : ndarray of shape (n_test, n_features)
        Test inputs (e.g. 300 rows).
    y_test : ndarray of shape (n_test,)
        Test labels.
    regime : {"plain", "early_stopping", "weight_decay"}
        Training regime (see :class:`~mixlib.neural_network.mlp.MLPClassifier`).
    hidden_size : int
        Number of hidden units.
    params : dict or None
        Overrides of :data:`DEFAULT_PARAMS` (keys among ``learning_rate``, ``n_epochs``,
        ``batch_size``, ``momentum``, ``weight_decay``, ``validation_fraction``, ``patience``).
    rng : numpy.random.Generator or int
        Source of the repeats' generators (one child per repeat through ``Generator.spawn``).
    n_repeats : int, default=10
        Networks trained.
    first_repeat : int, default=0
        Number of the first repeat in the ``repeat`` column (to number repeats when a caller
        runs one split per call).

    Returns
    -------
    pandas.DataFrame
        Tidy long form, one row per (repeat, metric), ``5 * n_repeats`` rows, no index, columns:
        ``regime`` (str), ``hidden_size`` (int), ``repeat`` (int), one column per entry of the
        merged params (``learning_rate``, ``n_epochs``, ``batch_size``, ``momentum``,
        ``weight_decay``, ``validation_fraction``, ``patience``; all of them whatever the
        regime, although ``weight_decay`` acts only under ``weight_decay`` and the last two only
        under ``early_stopping``), ``metric`` (str) and ``value`` (float). Metrics:
        ``train_error`` and ``test_error`` (misclassified fraction in [0, 1] of the training
        and test rows; under early stopping the training rows include the held-out validation
        rows), ``epochs_run`` and ``best_epoch`` (the epoch whose weights were kept: the best
        validation epoch under early stopping, the last epoch otherwise) and ``fit_seconds``
        (wall-clock time of the training).
    """
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}.")
    if not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an int >= 1, got {n_repeats!r}.")
    merged = dict(DEFAULT_PARAMS)
    unknown = set(params or {}) - set(DEFAULT_PARAMS)
    if unknown:
        raise ValueError(
            f"unknown MLP parameter(s) {sorted(unknown)}; expected keys among "
            f"{sorted(DEFAULT_PARAMS)}."
        )
    merged.update(params or {})
    if isinstance(rng, (int, np.integer)):
        rng = np.random.default_rng(int(rng))
    rows = []
    start = time.perf_counter()
    for i, child in enumerate(rng.spawn(n_repeats)):
        model = MLPClassifier(
            hidden_size=int(hidden_size), regime=regime, random_state=child, **merged
        )
        fit_start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - fit_start
        values = {
            "train_error": 1.0 - model.score(X_train, y_train),
            "test_error": 1.0 - model.score(X_test, y_test),
            "epochs_run": float(model.n_epochs_run_),
            "best_epoch": float(model.best_epoch_),
            "fit_seconds": fit_seconds,
        }
        for metric in METRICS:
            rows.append(
                {"regime": regime, "hidden_size": int(hidden_size), "repeat": first_repeat + i,
                 **merged, "metric": metric, "value": float(values[metric])}
            )
        logger.info(
            "%s hidden=%d repeat %d: train error %.4f, test error %.4f, %d epochs (kept %d)",
            regime, hidden_size, first_repeat + i, values["train_error"], values["test_error"],
            model.n_epochs_run_, model.best_epoch_,
        )
    logger.info(
        "%s hidden=%d: %d repeats in %.1f s", regime, hidden_size, n_repeats,
        time.perf_counter() - start,
    )
    return pd.DataFrame(rows)


def mlp_sweep_job(repeats: list, regime: str, hidden_size: int, params: dict[str, Any] | None,
                  seed: int, split_name: str) -> pd.DataFrame:
    """One pipeline job of fig. 6.2: a sweep point on every repeat of a split.

    Repeat ``r`` trains one network on that repeat's ``train`` rows and scores it on its
    ``test`` rows (each repeat has its own split), with the generator of
    ``(seed, "mlp", split_name, regime, hidden_size, r)``.

    Parameters
    ----------
    repeats : list of dict
        Per repeat, role -> ``(X, y)`` with roles ``train`` and ``test``
        (:func:`mixlib.experiments.data.assemble`).
    """
    from mixlib.experiments.data import over_repeats

    def run(arrays, rng, repeat):
        return mlp_sweep_point(*arrays["train"], *arrays["test"], regime, hidden_size, params,
                               rng, n_repeats=1, first_repeat=repeat)

    return over_repeats(repeats, run, seed, "mlp", split_name, regime, int(hidden_size))
