"""Isotropic Gaussian mixtures fitted by EM, and the classifier with one mixture per class
(report ch. 3)."""

from mixlib.mixture.gaussian_mixture import LIVE_WEIGHT, IsotropicGaussianMixture, MixtureClassifier, initial_centres, initial_sigmas, kernel_counts

__all__ = ["IsotropicGaussianMixture", "LIVE_WEIGHT", "MixtureClassifier", "initial_centres", "initial_sigmas", "kernel_counts"]
