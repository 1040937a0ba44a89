"""Parts shared by the semi-supervised wrappers: unlabelled rows, checks, the round callback."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone
from mixlib.core.exceptions import DataConversionWarning
from mixlib.core.validation import check_array, check_fitted_input, check_random_state
from mixlib.mixture import MixtureClassifier


def unlabelled_mask(y, unlabelled_label=-1) -> np.ndarray:
    """True for the entries of ``y`` whose class is unknown, shape (n_samples,).

    Unknown: ``None``, a float NaN, or a value equal to ``unlabelled_label`` (scikit-learn
    marks unlabelled samples with -1).
    """
    values = np.asarray(y, dtype=object)
    if values.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {values.shape}.")
    return np.array(
        [v is None or (isinstance(v, float) and np.isnan(v)) or bool(v == unlabelled_label) for v in values],
        dtype=bool,
    )


class RoundState(NamedTuple):
    """What a semi-supervised wrapper shows its ``callback`` after fitting the model of a round.

    Attributes
    ----------
    round : int
        0 for the model fit on the labelled rows only, ``r`` for the model of round ``r``.
    estimator : MixtureClassifier
        The model of this round. The wrapper refits this same object in the next round, so
        score it inside the callback; do not keep it.
    """

    round: int
    estimator: MixtureClassifier


#: A callback of :meth:`IterativeClassifier.fit` and :meth:`PriorProbabilityClassifier.fit`.
RoundCallback = Callable[[RoundState], None]


def check_choice(value, name: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``; ValueError naming ``name`` otherwise."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}.")
    return value


def check_fraction(value, name: str) -> float:
    """``value`` as a float if it is a real number in [0, 1); ValueError otherwise."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be a real number in [0, 1), got {value!r}.")
    return float(value)


def check_max_iter(value) -> None:
    """ValueError unless ``value`` is None or a non-negative int."""
    if value is not None and (not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0):
        raise ValueError(f"max_iter must be None or a non-negative int, got {value!r}.")


class SemiSupervisedMixin(ClassifierMixin, BaseEstimator):
    """Shared parts: estimator set-up, data split, delegation of prediction."""

    def _make_estimator(self) -> MixtureClassifier:
        estimator = MixtureClassifier() if self.estimator is None else clone(self.estimator)
        if self.random_state is not None:
            estimator.set_params(random_state=check_random_state(self.random_state))
        return estimator

    def _split(self, X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``X`` checked, ``y``, the unlabelled mask and the known labels (plain array)."""
        X = check_array(X)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y "
                             "is None: give every row's class, or unlabelled_label for the "
                             "unlabelled rows.")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                          "read as the label vector y.ravel().", DataConversionWarning,
                          stacklevel=3)
            y = y.ravel()
        if y.shape != (X.shape[0],):
            raise ValueError(f"y must have shape ({X.shape[0]},), one class label per row "
                             f"(several outputs per row are not supported), got {y.shape}.")
        self.n_features_in_ = X.shape[1]
        unlabelled = unlabelled_mask(y, self.unlabelled_label)
        if unlabelled.all():
            raise ValueError("y has no labelled example: at least one per class is needed.")
        y_known = y[~unlabelled]
        if y_known.dtype == object:
            y_known = np.array(y_known.tolist())
        return X, y, unlabelled, y_known

    def predict_proba(self, X) -> np.ndarray:
        """Posteriors of the final model, shape (n_samples, n_classes)."""
        X = check_fitted_input(self, X, attribute="estimator_")
        return self.estimator_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """Classes predicted by the final model, shape (n_samples,)."""
        X = check_fitted_input(self, X, attribute="estimator_")
        return self.estimator_.predict(X)

    def unclassifiable(self, X) -> np.ndarray:
        """Unclassifiable mask of the final model, shape (n_samples,)."""
        X = check_fitted_input(self, X, attribute="estimator_")
        return self.estimator_.unclassifiable(X)


def notify(callback: RoundCallback | None, round_: int, estimator: MixtureClassifier) -> None:
    """Call ``callback(RoundState(round_, estimator))`` if there is a callback."""
    if callback is not None:
        callback(RoundState(round_, estimator))


def tidy_labels(values: np.ndarray) -> np.ndarray:
    """``values`` (object array) as a plain numpy array when all entries share one type."""
    if len({type(v) for v in values}) == 1:
        return np.array(values.tolist())
    return values


def stack_labelled(X_labelled, y_labelled, X_unlabelled) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``[X_labelled; X_unlabelled]`` and labels with ``None`` for the unlabelled rows."""
    X_labelled = check_array(X_labelled, name="X_labelled")
    X_unlabelled = check_array(X_unlabelled, name="X_unlabelled", min_samples=0)
    if X_unlabelled.shape[1] != X_labelled.shape[1]:
        raise ValueError(
            f"X_unlabelled has {X_unlabelled.shape[1]} features, X_labelled {X_labelled.shape[1]}."
        )
    y_labelled = np.asarray(y_labelled)
    if y_labelled.shape != (X_labelled.shape[0],):
        raise ValueError(f"y_labelled must have shape ({X_labelled.shape[0]},), got {y_labelled.shape}.")
    y = np.concatenate([y_labelled.astype(object), np.full(len(X_unlabelled), None, dtype=object)])
    return np.vstack([X_labelled, X_unlabelled]), y
