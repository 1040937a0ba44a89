"""Linear models (linear-classification lecture): multinomial logistic regression."""

from mixlib.linear_model.logistic import LogisticRegression, softmax_objective

__all__ = ["LogisticRegression", "softmax_objective"]
