"""Isotropic Gaussian mixtures fitted by EM, and the classifier with one mixture per class
(report ch. 3)."""

from mixlib.mixture.gaussian_mixture import IsotropicGaussianMixture, MixtureClassifier

__all__ = ["IsotropicGaussianMixture", "MixtureClassifier"]
