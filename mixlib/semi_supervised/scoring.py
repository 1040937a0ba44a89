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
    if rule == "confidence":
        if threshold is None:
            raise ValueError("the confidence rule needs a threshold.")
        return classifier.predict_proba(X).max(axis=1) <= threshold
    if rule == "underflow":
        return classifier.underflow_mask(X)
    raise ValueError(f"unclassifiable rule must be one of {UNCLASSIFIABLE_RULES}, got {rule!r}.")


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
    return classifier.error_shares(X, y, unclassifiable_mask(classifier, X, rule, threshold))

