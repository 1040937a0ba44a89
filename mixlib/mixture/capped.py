"""Fit one mixture with as many kernels as asked, or as the data have distinct rows.

Shared by the classifier (one mixture per class) and the kernel-mode imputer (one univariate
mixture per feature and class): ``K`` distinct centres need ``K`` distinct training vectors.
"""

from __future__ import annotations

import warnings

import numpy as np

from mixlib.core.base import BaseEstimator
from mixlib.core.validation import check_sample_weight
from mixlib.mixture.initialisation import distinct_rows, draw_centres
from mixlib.mixture.isotropic import IsotropicGaussianMixture


def fit_capped_mixture(
    settings: BaseEstimator,
    X: np.ndarray,
    sample_weight: np.ndarray | None,
    rng: np.random.Generator,
    subject: str,
    unit: str,
    *,
    stacklevel: int,
    min_variance: float | None = None,
    previous: IsotropicGaussianMixture | None = None,
) -> tuple[IsotropicGaussianMixture, int]:
    """Fit a mixture of ``K = min(n_components, distinct rows of X)`` kernels, warning if capped.

    Shared by :class:`MixtureClassifier` (one mixture per class) and
    :class:`mixlib.impute.imputers.KernelModeImputer` (one univariate mixture per feature and class):
    ``K`` distinct centres need ``K`` distinct training vectors (:func:`initial_centres`).

    Parameters
    ----------
    settings : estimator
        Supplies ``n_components`` (the requested ``K``) and the ``init``, ``tol``,
        ``max_iter`` and ``min_variance`` passed to :class:`IsotropicGaussianMixture`.
    X : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,) or None
        Only rows of positive weight count as distinct vectors (None: unit weights).
    rng : numpy.random.Generator
        Drives the initialisation.
    subject, unit : str
        Name the data and its rows in the ``UserWarning`` raised when ``K`` is reduced:
        ``"{subject} has {n} distinct {unit}, fewer than n_components=..."``.
    stacklevel : int
        Of that warning, counted from this function.
    min_variance : float, optional
        Absolute variance floor replacing ``settings.min_variance`` (the classifier's floor
        relative to all its training rows).
    previous : IsotropicGaussianMixture, optional
        A fitted mixture to continue from (warm start): its kernel count, centres, widths and
        weights are the initial parameters, so EM resumes where that fit stopped.

    Returns
    -------
    mixture : IsotropicGaussianMixture
        Fitted on ``X`` with ``sample_weight``.
    k : int
        The number of kernels used.
    """
    floor = settings.min_variance if min_variance is None else min_variance
    em = {"init": settings.init, "tol": settings.tol, "max_iter": settings.max_iter,
          "min_variance": floor, "random_state": rng}
    if previous is not None:
        mixture = IsotropicGaussianMixture(
            previous.n_components, means_init=previous.means_, sigmas_init=previous.sigmas_,
            weights_init=previous.weights_ / previous.weights_.sum(), **em,
        )
        return mixture.fit(X, sample_weight=sample_weight), previous.n_components
    rows, weights = distinct_rows(X, check_sample_weight(sample_weight, X.shape[0]))
    n_distinct = len(rows)
    k = min(settings.n_components, n_distinct)
    if k < settings.n_components:
        warnings.warn(
            f"{subject} has {n_distinct} distinct {unit}, fewer than "
            f"n_components={settings.n_components}; using {k} kernel(s) for it.",
            UserWarning,
            stacklevel=stacklevel,
        )
    # the centres the mixture's own initialisation would draw, from the rows counted above
    centres = draw_centres(rows, weights, k, init=settings.init, rng=rng)
    mixture = IsotropicGaussianMixture(k, means_init=centres, **em)
    return mixture.fit(X, sample_weight=sample_weight), k
