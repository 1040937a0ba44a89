"""Generative classifiers (linear-classification lecture): Gaussian class models with full or shared covariance,
and naive Bayes."""

from mixlib.generative.gaussian import LinearGaussianClassifier, QuadraticGaussianClassifier
from mixlib.generative.naive_bayes import (
    BernoulliNaiveBayes,
    CategoricalNaiveBayes,
    GaussianNaiveBayes,
)

__all__ = ["BernoulliNaiveBayes", "CategoricalNaiveBayes", "GaussianNaiveBayes",
           "LinearGaussianClassifier", "QuadraticGaussianClassifier"]
