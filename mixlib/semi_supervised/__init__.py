"""Learning from unlabelled examples with a mixture classifier: the iterative method and the
prior-probability method (report ch. 5)."""

from mixlib.semi_supervised.methods import IterativeClassifier, PriorProbabilityClassifier

__all__ = ["IterativeClassifier", "PriorProbabilityClassifier"]
