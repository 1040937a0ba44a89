"""The training and test errors of a fitted mixture classifier, as chs. 5 and 6 score it.

Shared by :mod:`mixlib.experiments.semisupervised_sweep` (figs. 5.4, 5.5) and
:mod:`mixlib.experiments.dna` (fig. 6.1), under a scoring function (the kernel sweep: an
unclassifiable rule of :mod:`mixlib.semi_supervised`; the supervised fig. 6.1: the
classifier's own decision).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def train_test_errors(errors: Callable[[np.ndarray, np.ndarray], tuple[float, float]],
                      X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
                      y_test: np.ndarray) -> dict[str, float]:
    """Hard, unknown and total error of a fitted model on training and test examples.

    Parameters
    ----------
    errors : callable
        ``errors(X, y) -> (hard_error, unknown_error)`` of the fitted model: its own decision
        (:meth:`~mixlib.mixture.MixtureClassifier.error_shares`) or an unclassifiable rule
        (:func:`~mixlib.semi_supervised.label_errors` with the rule and threshold bound).
    X_train : ndarray of shape (n_train, n_features)
    y_train : ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, n_features)
    y_test : ndarray of shape (n_test,)

    Returns
    -------
    dict
        ``train_error``, ``train_hard_error``, ``train_unknown_error``, ``test_error``,
        ``test_hard_error``, ``test_unknown_error``, where ``*_error = *_hard_error +
        *_unknown_error`` (``errors`` on each set).
    """
    return error_columns(errors(X_train, y_train), errors(X_test, y_test))


def error_columns(train: tuple[float, float], test: tuple[float, float]) -> dict[str, float]:
    """The metrics of :func:`train_test_errors` from the ``(hard_error, unknown_error)`` of
    each set: ``train_error``, ``train_hard_error``, ``train_unknown_error``, then the same
    for ``test``, with ``*_error = *_hard_error + *_unknown_error``."""
    values = {}
    for name, (hard, unknown) in (("train", train), ("test", test)):
        values.update({f"{name}_error": hard + unknown, f"{name}_hard_error": hard,
                       f"{name}_unknown_error": unknown})
    return values
