"""Experiment of fig. 6.2: the MLP's errors against the hidden-layer size, three regimes.

One pipeline job is one *sweep point*: one training regime and one hidden-layer size on every
repeat of a split (:func:`mlp_sweep_job`); :func:`mlp_sweep_point` is its stage function on
one repeat (:mod:`mixlib.experiments.contract`). The figure gathers the tables of all points.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.timing import Stopwatch
from mixlib.experiments.contract import RepeatData, run_repeats
from mixlib.catalogue.registry import MODELS, make_model
from mixlib.model_selection.resampling import warm_up
from mixlib.neural_network import REGIMES

logger = logging.getLogger(__name__)

#: The training settings of a sweep point (the config's ``mlp.training``): the parameters of the
#: catalogue's ``mlp`` but the two the sweep sets itself; those left out take
#: :class:`~mixlib.neural_network.MLPClassifier`'s defaults.
TRAINING_KEYS = tuple(key for key in MODELS["mlp"].parameters
                      if key not in ("hidden_size", "regime"))

METRICS = ("train_error", "test_error", "epochs_run", "best_epoch", "fit_seconds", "fit_cpu_seconds")


def mlp_sweep_point(
    data: RepeatData,
    *,
    regime: str,
    hidden_size: int,
    params: dict[str, Any] | None = None,
    rng: np.random.Generator | int,
) -> pd.DataFrame:
    """Train one network of a regime and hidden size on one repeat; its errors as a tidy table.

    Trains a fresh MLP of the catalogue (:func:`mixlib.catalogue.registry.make_model`) on
    the repeat's training rows, seeded with the first child spawned from ``rng`` (``rng.spawn(1)[0]``: initial
    weights, shuffling, and the validation split under early stopping), and scores it on the
    training and the test rows.

    Parameters
    ----------
    data : RepeatData
        Roles ``train`` (inputs without NaN, e.g. splice one-hot, 600 rows) and ``test``
        (e.g. 300 rows).
    regime : {"plain", "early_stopping", "weight_decay"}
        Training regime (see :class:`~mixlib.neural_network.MLPClassifier`).
    hidden_size : int
        Number of hidden units.
    params : dict or None
        Training settings, keys among :data:`TRAINING_KEYS`; those left out take
        :class:`~mixlib.neural_network.MLPClassifier`'s defaults.
    rng : numpy.random.Generator or int
        Parent of the network's generator.

    Returns
    -------
    pandas.DataFrame
        Tidy long form, one row per metric (6 rows), no index, columns: ``regime`` (str),
        ``hidden_size`` (int), one column per training setting given (all of them whatever
        the regime, although ``weight_decay`` acts only under ``weight_decay`` and
        ``validation_fraction`` and ``patience`` only under ``early_stopping``), ``metric``
        (str) and ``value`` (float). Metrics:
        ``train_error`` and ``test_error`` (misclassified fraction in [0, 1] of the training
        and test rows; under early stopping the training rows include the held-out validation
        rows), ``epochs_run`` and ``best_epoch`` (the epoch whose weights were kept: the best
        validation epoch under early stopping, the last epoch otherwise), ``fit_seconds``
        (wall-clock time of the training) and ``fit_cpu_seconds`` (its CPU time,
        :class:`~mixlib.core.timing.Stopwatch`).
    """
    if regime not in REGIMES:
        raise ValueError(f"regime must be one of {REGIMES}, got {regime!r}.")
    training = dict(params or {})
    unknown = set(training) - set(TRAINING_KEYS)
    if unknown:
        raise ValueError(f"unknown MLP training setting(s) {sorted(unknown)}; expected keys "
                         f"among {sorted(TRAINING_KEYS)}.")
    if isinstance(rng, (int, np.integer)):
        rng = np.random.default_rng(int(rng))
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    network_params = {"hidden_size": int(hidden_size), "regime": regime, **training}
    model = make_model("mlp", network_params, rng.spawn(1)[0])
    # An untimed fit on a few rows first: the process's first-call costs (the compiled epoch
    # loop loaded from numba's cache) stay out of fit_seconds.
    warm_up(lambda X, warm_rng: make_model("mlp", network_params, warm_rng), X_train,
            np.asarray(y_train))
    with Stopwatch() as clock:
        model.fit(X_train, y_train)
    values = {
        "train_error": 1.0 - model.score(X_train, y_train),
        "test_error": 1.0 - model.score(X_test, y_test),
        "epochs_run": float(model.n_epochs_run_),
        "best_epoch": float(model.best_epoch_),
        "fit_seconds": clock.wall_seconds,
        "fit_cpu_seconds": clock.cpu_seconds,
    }
    logger.info(
        "%s hidden=%d repeat %d: train error %.4f, test error %.4f, %d epochs (kept %d), %.1f s",
        regime, hidden_size, data.repeat, values["train_error"], values["test_error"],
        model.n_epochs_run_, model.best_epoch_, clock.wall_seconds,
    )
    return pd.DataFrame([
        {"regime": regime, "hidden_size": int(hidden_size), **training, "metric": metric,
         "value": float(values[metric])}
        for metric in METRICS
    ])


def mlp_sweep_job(repeats: Sequence[RepeatData], *, seed: int, split: str, regime: str,
                  hidden_size: int, params: dict[str, Any] | None, encoding: str,
                  dataset: str) -> pd.DataFrame:
    """One pipeline job of fig. 6.2: :func:`mlp_sweep_point` on every repeat of a split.

    Repeat ``r`` trains one network on that repeat's ``train`` rows and scores it on its
    ``test`` rows (each repeat has its own split), with the generator of
    ``(seed, "mlp", split, regime, hidden_size, r)``. The table gets a ``repeat`` column
    after ``hidden_size`` and last ``split``, ``encoding`` (the data set's coding, by which
    the chapter-6 claims pair the MLP with the DNA mixture) and ``dataset`` columns.
    """
    table = run_repeats(mlp_sweep_point, repeats,
                        {"regime": regime, "hidden_size": hidden_size, "params": params},
                        seed=seed, keys=("mlp", split, regime, int(hidden_size)))
    table.insert(2, "repeat", table.pop("repeat"))
    return table.assign(split=split, encoding=encoding, dataset=dataset)
