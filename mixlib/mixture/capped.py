"""A mixture of as many kernels as asked, or as its rows have distinct values if fewer.

``K`` distinct centres need ``K`` distinct training vectors, so the classifier's mixture of a
class (:class:`~mixlib.mixture.MixtureClassifier`) and the kernel-mode imputer's mixture of a
feature (:class:`mixlib.impute.KernelModeImputer`) are fitted by :func:`fit_capped_mixture`.
"""

from __future__ import annotations

import warnings

import numpy as np

from mixlib.core.validation import check_sample_weight
from mixlib.mixture.initialisation import (
    DEFAULT_INIT,
    DEFAULT_MAX_ITER,
    DEFAULT_MIN_VARIANCE,
    DEFAULT_TOL,
    distinct_rows,
    draw_centres,
)
from mixlib.mixture.isotropic import IsotropicGaussianMixture

__all__ = ["fit_capped_mixture"]


def fit_capped_mixture(
    X: np.ndarray,
    sample_weight: np.ndarray | None,
    n_components: int,
    rng: np.random.Generator,
    subject: str,
    unit: str,
    *,
    stacklevel: int,
    init: str = DEFAULT_INIT,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    min_variance: float = DEFAULT_MIN_VARIANCE,
    previous: IsotropicGaussianMixture | None = None,
    checked: bool = False,
) -> tuple[IsotropicGaussianMixture, int]:
    """Fit a mixture of ``K = min(n_components, distinct rows of X)`` kernels, warning if capped.

    ``K`` distinct centres need ``K`` distinct training vectors (:func:`initial_centres`), so
    the classifier's mixture of a class (:class:`MixtureClassifier`) and the kernel-mode
    imputer's mixture of a feature (:class:`mixlib.impute.KernelModeImputer`) use as many
    kernels as asked, or as their rows have distinct values if fewer.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,) or None
        Only rows of positive weight count as distinct vectors (None: unit weights).
    n_components : int
        The requested ``K``.
    rng : numpy.random.Generator
        Drives the initialisation.
    subject, unit : str
        Name the data and its rows in the ``UserWarning`` raised when ``K`` is reduced:
        ``"{subject} has {n} distinct {unit}, fewer than n_components=..."``.
    stacklevel : int
        Of that warning, counted from this function.
    init, tol, max_iter, min_variance :
        Of :class:`IsotropicGaussianMixture` (``min_variance`` absolute, in units of ``X``).
    previous : IsotropicGaussianMixture, optional
        A fitted mixture to continue from (warm start): its kernel count, centres, widths and
        weights are the initial parameters, so EM resumes where that fit stopped.
    checked : bool, default=False
        ``X`` from :func:`check_array`, ``sample_weight`` positive float64 weights of its own
        and ``init``, ``tol``, ``max_iter``, ``min_variance`` valid (``check_em_params``):
        the mixture does not check them again (the classifier checks once for all classes).

    Returns
    -------
    mixture : IsotropicGaussianMixture
        Fitted on ``X`` with ``sample_weight``.
    k : int
        The number of kernels used.
    """
    em = {"init": init, "tol": tol, "max_iter": max_iter, "min_variance": min_variance,
          "random_state": rng}
    if previous is not None:
        k = previous.n_components
        mixture = IsotropicGaussianMixture(k, means_init=previous.means_, sigmas_init=previous.sigmas_,
                                           weights_init=previous.weights_ / previous.weights_.sum(), **em)
        given = mixture._check_given(X.shape[1]) if checked else None
    else:
        weighted = sample_weight if checked else check_sample_weight(sample_weight, X.shape[0])
        rows, weights = distinct_rows(X, weighted)
        n_distinct = len(rows)
        k = min(n_components, n_distinct)
        if k < n_components:
            warnings.warn(f"{subject} has {n_distinct} distinct {unit}, fewer than "
                          f"n_components={n_components}; using {k} kernel(s) for it.",
                          UserWarning, stacklevel=stacklevel)
        # the centres the mixture's own initialisation would draw, from the rows counted above
        centres = draw_centres(rows, weights, k, init=init, rng=rng)
        mixture = IsotropicGaussianMixture(k, means_init=centres, **em)
        given = {"means": centres}  # rows of X: a (k, n_features) float64 array, as checked
    if checked:
        return mixture._fit(X, sample_weight, given), k
    return mixture.fit(X, sample_weight=sample_weight), k
