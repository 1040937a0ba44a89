"""The mixture classifier as the experiments of chs. 5 and 6 build and score it.

Shared by :mod:`mixlib.experiments.semisupervised` (figs. 5.1, 5.3-5.5) and
:mod:`mixlib.experiments.dna` (fig. 6.1): one seeded classifier from the study's EM settings,
its training and test errors under a scoring function (the semi-supervised stages: an
unclassifiable rule of :mod:`mixlib.semi_supervised`; the supervised fig. 6.1: the
classifier's own decision), and its collapsed kernels.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from mixlib.catalogue.registry import make_mixture
from mixlib.catalogue.settings import EMSettings
from mixlib.mixture import MixtureClassifier, kernel_counts


def seeded_classifier(n_components: int, em: EMSettings,
                      rng: np.random.Generator) -> MixtureClassifier:
    """The study's mixture classifier (:func:`mixlib.catalogue.registry.make_mixture`) with
    the EM settings ``em``.

    Its ``random_state`` is one integer drawn from ``rng``: every refit of a semi-supervised
    run then restarts EM from the same random stream (as scikit-learn's self-training does
    with an int seed), so the rounds differ by their training data and priors, not by a new
    random initialisation.
    """
    return make_mixture(n_components, em, int(rng.integers(2**32)))


def memoised_classifier(n_components: int, em: EMSettings,
                        rng: np.random.Generator) -> MixtureClassifier:
    """:func:`seeded_classifier` whose fits are looked up in :data:`FITS` first.

    The semi-supervised stages refit with the same seed on the same rows again and again:
    every threshold of the iterative method starts from the same labelled-only fit (and
    goes on alike while the thresholds assign the same rows), the prior method's warm and
    fresh restarts share theirs. Such a fit is a function of what :meth:`FitMemo.key` reads,
    so it is computed once per job and its fitted attributes are shared (they are read,
    never changed in place, by the stages). A fit found in the memo raises none of the
    warnings the first one raised.
    """
    return FITS.classifier(seeded_classifier(n_components, em, rng))


def _digest(array: Any) -> Hashable:
    if array is None:
        return None
    array = np.ascontiguousarray(array)
    if array.dtype == object:
        raise TypeError("object array")
    return (array.shape, array.dtype.str, hashlib.blake2b(array.view(np.uint8).ravel(),
                                                          digest_size=16).digest())


class FitMemo:
    """Fitted :class:`~mixlib.mixture.MixtureClassifier` attributes by what determines them.

    A fit of the classifier with an integer ``random_state`` is a function of its parameters,
    of ``X``, the labels (hard or soft), ``classes`` and ``sample_weight`` and, under
    ``warm_start``, of the fit it continues from (its own key). The memo keeps the fitted
    attributes of the last ``capacity`` fits under that key.
    """

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._fits: OrderedDict[Hashable, dict[str, Any]] = OrderedDict()
        self.hits = self.misses = 0
        # The parameter names, read once (get_params inspects the signature at every call).
        self._names = tuple(MixtureClassifier._param_names())
        memo = self

        class Memoised(MixtureClassifier):
            def fit(self, X, y=None, sample_weight=None, *, soft_labels=None, classes=None):
                key = memo.key(self, X, y, sample_weight, soft_labels, classes)
                fitted = None if key is None else memo._fits.get(key)
                if fitted is not None:
                    memo.hits += 1
                    memo._fits.move_to_end(key)
                    self.__dict__.update(fitted)
                    return self
                super().fit(X, y, sample_weight, soft_labels=soft_labels, classes=classes)
                self._fit_key = key
                if key is not None:
                    memo.misses += 1
                    memo._fits[key] = {name: value for name, value in vars(self).items()
                                       if name.endswith("_") or name == "_fit_key"}
                    if len(memo._fits) > memo.capacity:
                        memo._fits.popitem(last=False)
                return self

        Memoised.__name__ = Memoised.__qualname__ = "MixtureClassifier"
        self._type = Memoised

    def classifier(self, estimator: MixtureClassifier) -> MixtureClassifier:
        """An unfitted classifier with ``estimator``'s parameters whose fits use this memo."""
        return self._type(**estimator.get_params())

    def key(self, estimator: MixtureClassifier, X, y, sample_weight, soft_labels,
            classes) -> Hashable | None:
        """What a fit depends on; None when it cannot be memoised (a random generator, object
        labels, or a warm start from a fit the memo did not make)."""
        params = {name: getattr(estimator, name) for name in self._names}
        if not isinstance(params["random_state"], (int, np.integer)):
            return None
        previous = None
        if params["warm_start"] and hasattr(estimator, "mixtures_"):
            previous = getattr(estimator, "_fit_key", None)
            if previous is None:
                return None
        try:
            return (tuple(params.items()), previous,
                    *(_digest(a) for a in (X, y, sample_weight, soft_labels, classes)))
        except TypeError:
            return None


#: The memo of :func:`memoised_classifier`: one per process, i.e. per job.
FITS = FitMemo()


def collapsed_per_class(model: MixtureClassifier) -> np.ndarray:
    """Collapsed (live, at the variance floor) kernels of each class mixture of ``model``."""
    return np.array([kernel_counts(mixture)[1] for mixture in model.mixtures_], dtype=float)


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
