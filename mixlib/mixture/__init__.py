"""Isotropic Gaussian mixtures fitted by EM, and the classifier with one mixture per class
(report ch. 3).

Modules: :mod:`~mixlib.mixture.initialisation` (initial centres and widths, the variance
floor, the EM defaults of every mixture), :mod:`~mixlib.mixture.isotropic` (one mixture and
its EM), :mod:`~mixlib.mixture.capped` (a mixture of as many kernels as asked or as its rows
have distinct values: ``fit_capped_mixture``, shared by the classifier and the kernel-mode
imputer) and :mod:`~mixlib.mixture.gaussian_mixture` (the per-class classifier).
"""

from mixlib.mixture.capped import fit_capped_mixture
from mixlib.mixture.gaussian_mixture import MixtureClassifier
from mixlib.mixture.initialisation import initial_centres, initial_sigmas, variance_floor
from mixlib.mixture.isotropic import LIVE_WEIGHT, IsotropicGaussianMixture, kernel_counts

__all__ = [
    "IsotropicGaussianMixture", "LIVE_WEIGHT", "MixtureClassifier", "fit_capped_mixture",
    "initial_centres", "initial_sigmas", "kernel_counts", "variance_floor",
]
