"""Learning from unlabelled examples with the mixture classifier (report ch. 5, STUDY.md section 3).

Two wrappers around :class:`~mixlib.mixture.MixtureClassifier`:

- :class:`IterativeClassifier` (report section 5.1, fig. 5.1): self-training. Each round fits
  the classifier on the labelled set, classifies the unknowns and moves those whose top
  posterior clears a confidence threshold into the labelled set, with that class; when a
  round moves none, the unknowns left get their top-posterior class in a last round
  (``finish="argmax"``: the report repeats "until every unknown is classified").
- :class:`PriorProbabilityClassifier` (report section 5.2, figs. 5.2-5.3): every training
  example carries a prior ``q(c | x)``, one-hot for the labelled ones; the unlabelled ones get
  the posteriors of the current model and the classifier is refit by the weighted EM
  (``MixtureClassifier.fit(X, soft_labels=Q, classes=...)``) until no argmax class changes.
  Each refit continues EM from the previous round's parameters (``restart="warm"``, the
  report's outer loop around one EM) or starts anew (``restart="fresh"``).

Both fit on training data only. Each keeps a plain record of its own state per round in
``history_`` (dict of numpy arrays) and shows the model of every round to an optional
``callback`` of ``fit`` (:class:`RoundState`): that is where a caller scores the rounds, e.g.
with :func:`label_errors` under the unclassifiable rules of :mod:`~mixlib.semi_supervised.scoring`.
:func:`iterative_classification` and :func:`prior_probability_classification` take the
labelled and unlabelled examples as separate arrays.
"""

from mixlib.semi_supervised.base import RoundCallback, RoundState, unlabelled_mask
from mixlib.semi_supervised.iterative import (
    IterativeClassifier,
    iterative_classification,
    iterative_classification_finishes,
)
from mixlib.semi_supervised.prior import PriorProbabilityClassifier, prior_probability_classification
from mixlib.semi_supervised.scoring import (
    UNCLASSIFIABLE_RULES,
    ScoredExamples,
    label_errors,
    unclassifiable_mask,
)

__all__ = [
    "IterativeClassifier",
    "PriorProbabilityClassifier",
    "RoundCallback",
    "RoundState",
    "ScoredExamples",
    "UNCLASSIFIABLE_RULES",
    "iterative_classification",
    "iterative_classification_finishes",
    "label_errors",
    "prior_probability_classification",
    "unclassifiable_mask",
    "unlabelled_mask",
]
