"""The linear-space density of :meth:`mixlib.mixture.MixtureClassifier.underflow_mask`.

The classifier works in log space; the study's "underflow" rule asks instead whether a
program computing the densities as plain products of doubles would get 0 for every class.
This module evaluates that product from the squared distances of the examples to every
class's kernels, which the classifier's log densities use too (one distance computation per
scored set serves both).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mixlib.core.log_space import exp_flushed


def underflow_from_distances(class_prior: np.ndarray, mixtures: Sequence,
                             distances: Sequence[np.ndarray]) -> np.ndarray:
    """Examples whose density underflows to 0 for every class in linear-space float64.

    Parameters
    ----------
    class_prior : ndarray of shape (n_classes,)
        ``P(c)``.
    mixtures : sequence of fitted IsotropicGaussianMixture
        The mixture of every class (``weights_`` ``p_cj``, ``variances_`` ``sigma_cj^2``).
    distances : sequence of ndarray of shape (n_samples, K_c)
        ``||x_n - mu_cj||^2`` of every class (not modified).

    Returns
    -------
    ndarray of bool of shape (n_samples,)
        True where, for every class ``c`` (``d`` the dimension),
        ``P(c) * sum_j (p_cj * (2 pi sigma_cj^2)^(-d/2))
        * exp(-||x_n - mu_cj||^2 / (2 sigma_cj^2)) == 0``, each factor in float64
        (``numpy.power``, ``numpy.exp``), multiplied left to right, the sum over kernels in
        float64 (numpy's pairwise sum), with IEEE semantics: underflow to 0, overflow to inf,
        ``inf * 0 = NaN`` (never 0).
    """
    zero = np.ones(len(distances[0]), dtype=bool)
    # IEEE semantics on purpose: underflow to 0, overflow to inf, inf * 0 = NaN.
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        for prior, mixture, class_distances in zip(class_prior, mixtures, distances):
            # p_cj (2 pi sigma_cj^2)^(-d/2) and -2 sigma_cj^2, computed once per fit; the
            # exponent -D / (2 sigma^2) as D / (-2 sigma^2), the same double (IEEE division
            # and negation are exact in sign)
            linear, minus_two_variances = mixture._kernel_constants()[3:]
            terms = linear * exp_flushed(class_distances / minus_two_variances)
            density = prior * terms.sum(axis=1)
            zero &= density == 0.0
    return zero
