"""Linear models (seed 003): multinomial logistic regression."""

from mixlib.linear_model.logistic import LogisticRegression

__all__ = ["LogisticRegression"]
