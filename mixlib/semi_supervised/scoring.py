"""How well a fitted mixture classifier labels examples, under the study's unclassifiable rules.

The report states two rules under which an example is *unclassifiable*, which we read as
follows:

- ``"confidence"``: the top posterior is at or below the confidence threshold, the rule by
  which the iterative method leaves an example unknown ("impossible to classify");
- ``"underflow"``: every class density underflows to 0 in linear-space float64 arithmetic, so
  the posteriors are ``1/C`` and the example lies "exactly on the boundary, preventing any
  decision" (the prior method's wording). This is our reading of the original program, which
  computed densities as plain products of doubles; see
  :meth:`~mixlib.mixture.MixtureClassifier.underflow_mask` for the exact formula.

The classification itself (argmax of the log-space posteriors) is the same under every rule.
On a set of labelled examples, the *hard error* is the share classified (not unclassifiable)
into a wrong class and the *unknown error* the share that is unclassifiable.
"""

from __future__ import annotations

import numpy as np

from mixlib.core.vocabulary import UNCLASSIFIABLE_RULES
from mixlib.mixture import MixtureClassifier


class ScoredExamples:
    """A fitted classifier's verdicts on one set of examples, under every rule and threshold.

    The squared distances of the examples to every kernel, the posteriors, their maximum,
    the misclassified examples and, once a rule asks for it, the underflow mask are computed
    once: an experiment that scores one model under several rules and thresholds (the
    sensitivity grid) reads them again instead of recomputing them, and the posteriors and
    the underflow mask come from the same distances
    (:meth:`~mixlib.mixture.MixtureClassifier.class_distances`), bit for bit what
    ``predict_proba`` and ``underflow_mask`` give. Every mask and error is the one
    :func:`unclassifiable_mask` and :func:`label_errors` give.

    Parameters
    ----------
    classifier : fitted MixtureClassifier
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), optional
        True classes (needed by :meth:`errors` only).
    """

    def __init__(self, classifier: MixtureClassifier, X: np.ndarray,
                 y: np.ndarray | None = None) -> None:
        self.classifier, self.X, self.y = classifier, X, y
        self._distances: list[np.ndarray] | None = None
        self._proba: np.ndarray | None = None
        self._top: np.ndarray | None = None
        self._underflow: np.ndarray | None = None
        self._wrong: np.ndarray | None = None

    @property
    def distances(self) -> list[np.ndarray]:
        """The squared distances of the examples to every class's kernels (computed once)."""
        if self._distances is None:
            self._distances = self.classifier.class_distances(self.X)
        return self._distances

    @property
    def proba(self) -> np.ndarray:
        """``p(c | x)``, shape (n_samples, n_classes) (``predict_proba``, computed once)."""
        if self._proba is None:
            self._proba = self.classifier.proba_from_distances(self.distances)
        return self._proba

    def unclassifiable(self, rule: str, threshold: float | None = None) -> np.ndarray:
        """Examples the classifier cannot classify under ``rule``, shape (n_samples,).

        ``rule``, ``threshold``: as in :func:`unclassifiable_mask`.
        """
        if rule == "confidence":
            if threshold is None:
                raise ValueError("the confidence rule needs a threshold.")
            if self._top is None:
                self._top = self.proba.max(axis=1)
            return self._top <= threshold
        if rule == "underflow":
            if self._underflow is None:
                self._underflow = self.classifier.underflow_from_distances(self.distances)
            return self._underflow
        raise ValueError(
            f"unclassifiable rule must be one of {UNCLASSIFIABLE_RULES}, got {rule!r}.")

    def errors(self, rule: str, threshold: float | None = None) -> tuple[float, float]:
        """Hard error and unknown error under ``rule`` (as :func:`label_errors`).

        ``hard = mean_n [not u_n and argmax_c p(c | x_n) != y_n]`` and ``unknown = mean_n
        u_n``, ``u`` the examples unclassifiable under ``rule``
        (:meth:`~mixlib.mixture.MixtureClassifier.error_shares` with ``undecided = u``).
        """
        if self.y is None:
            raise ValueError("errors need the true classes: give y.")
        undecided = self.unclassifiable(rule, threshold)
        if self._wrong is None:  # argmax_c p(c | x_n) != y_n, computed once
            predicted = self.classifier.classes_[self.proba.argmax(axis=1)]
            self._wrong = predicted != np.asarray(self.y)
        # the means of boolean masks as counts / n: numpy's mean of 0s and 1s, exactly
        n = undecided.size
        return (float(np.count_nonzero(self._wrong & ~undecided) / n),
                float(np.count_nonzero(undecided) / n))


def unclassifiable_mask(classifier: MixtureClassifier, X: np.ndarray, rule: str,
                        threshold: float | None = None) -> np.ndarray:
    """Examples a fitted classifier cannot classify under ``rule``, shape (n_samples,).

    Parameters
    ----------
    classifier : fitted MixtureClassifier
    X : ndarray of shape (n_samples, n_features)
    rule : {"confidence", "underflow"}
        ``"confidence"``: ``max_c p(c | x) <= threshold``. ``"underflow"``: every class
        density is 0 in linear-space float64
        (:meth:`~mixlib.mixture.MixtureClassifier.underflow_mask`). A supervised score under
        the classifier's own decision is
        :meth:`~mixlib.mixture.MixtureClassifier.error_shares`, not a rule of this study.
    threshold : float
        The confidence threshold (required by ``"confidence"``, unused by ``"underflow"``).
    """
    return ScoredExamples(classifier, X).unclassifiable(rule, threshold)


def label_errors(classifier: MixtureClassifier, X: np.ndarray, y: np.ndarray,
                 rule: str, threshold: float | None = None) -> tuple[float, float]:
    """Hard error and unknown error of a fitted classifier on labelled examples.

    Parameters
    ----------
    classifier : fitted MixtureClassifier
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        True classes.
    rule, threshold :
        The unclassifiable rule, as in :func:`unclassifiable_mask`.

    Returns
    -------
    hard_error, unknown_error : float
        :meth:`~mixlib.mixture.MixtureClassifier.error_shares` with the examples
        unclassifiable under ``rule`` as the unknowns.
    """
    return ScoredExamples(classifier, X, y).errors(rule, threshold)

