"""Isotropic Gaussian mixtures fitted by EM, and the classifier with one mixture per class
(report ch. 3).

Modules: :mod:`~mixlib.mixture.initialisation` (initial centres and widths, the variance
floor, the EM defaults of every mixture), :mod:`~mixlib.mixture.isotropic` (one mixture and
its EM) and :mod:`~mixlib.mixture.gaussian_mixture` (the per-class classifier, whose mixtures
have as many kernels as asked or as their class has distinct rows: ``fit_capped_mixture``,
shared with the kernel-mode imputer).
"""

from mixlib.mixture.gaussian_mixture import MixtureClassifier, fit_capped_mixture
from mixlib.mixture.initialisation import initial_centres, initial_sigmas, variance_floor
from mixlib.mixture.isotropic import LIVE_WEIGHT, IsotropicGaussianMixture, kernel_counts

__all__ = [
    "IsotropicGaussianMixture", "LIVE_WEIGHT", "MixtureClassifier", "fit_capped_mixture",
    "initial_centres", "initial_sigmas", "kernel_counts", "variance_floor",
]
