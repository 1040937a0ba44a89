"""Isotropic Gaussian mixtures fit by EM, and the one-mixture-per-class classifier.

This is the probabilistic classifier of the report (STUDY.md section 1, report ch. 3): every
class owns ``K`` isotropic Gaussian kernels (one ``sigma`` per kernel, never shared between
classes), fit by the EM algorithm of the report's fig. 3.2; a new example is classified by
Bayes' rule with class priors, and the output is the vector of posteriors ``p(c | x)``.
Everything is computed in log space.
"""

from __future__ import annotations

import logging
import numbers
import warnings

import numpy as np
from scipy.special import logsumexp

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.distances import squared_euclidean
from mixlib.core.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
)
from mixlib.core.exceptions import ConvergenceWarning

logger = logging.getLogger(__name__)

_LOG_2PI = float(np.log(2.0 * np.pi))
# Added to every kernel's total responsibility, as scikit-learn does, so that a kernel that
# lost all its examples divides by a tiny positive number instead of zero.
_NK_EPS = 10.0 * np.finfo(np.float64).eps
_INITS = ("report", "kmeans++")
# A variance within this factor of the floor counts as "at the floor" (the M-step sets it to
# the floor exactly; the factor only absorbs the sqrt/square round trip of a warm start).
_AT_FLOOR = 1.0 + 1e-9
#: Mixing weight at or below which a kernel counts as dead (it lost all its examples).
LIVE_WEIGHT = 1e-6


def variance_floor(X: np.ndarray, sample_weight: np.ndarray, min_variance: float,
                   relative_min_variance: float | None) -> float:
    """The variance floor of a fit, in squared units of ``X``.

    ``min_variance`` when ``relative_min_variance`` is None, else
    ``relative_min_variance * (1/d) sum_i sum_n w_n (x_ni - xbar_i)^2 / sum_n w_n``, the mean
    per-feature weighted variance of the training rows (if that is 0, all rows are equal, the
    absolute ``min_variance`` is used).
    """
    if relative_min_variance is None:
        return float(min_variance)
    total = sample_weight.sum()
    centred = X - sample_weight @ X / total
    scale = float(sample_weight @ np.einsum("ij,ij->i", centred, centred) / (total * X.shape[1]))
    return float(relative_min_variance * scale) if scale > 0 else float(min_variance)


def kernel_counts(mixture: "IsotropicGaussianMixture") -> tuple[int, int]:
    """Live kernels and collapsed kernels of a fitted mixture.

    Returns
    -------
    live : int
        Kernels whose mixing weight exceeds :data:`LIVE_WEIGHT`.
    collapsed : int
        Live kernels whose variance ended at the floor (``at_floor_``): each sits on one
        training vector (or a few identical ones) and its width is the floor's, not the data's.
    """
    live = mixture.weights_ > LIVE_WEIGHT
    return int(live.sum()), int((live & mixture.at_floor_).sum())


def _check_positive_int(value, name: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}.")
    return int(value)


def _check_nonnegative_float(value, name: str, *, strict: bool = False) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}.")
    if value < 0 or (strict and value == 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be {bound}, got {value!r}.")
    return float(value)


def distinct_rows(X: np.ndarray, sample_weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``X`` that carry a positive weight, with their summed weights.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,)

    Returns
    -------
    rows : ndarray of shape (n_distinct, n_features)
        Sorted lexicographically, so the result does not depend on the order of the rows.
    weights : ndarray of shape (n_distinct,)
        Total weight of each distinct row (a row repeated ``m`` times counts ``m`` times).
    """
    positive = sample_weight > 0
    rows, inverse = np.unique(X[positive], axis=0, return_inverse=True)
    weights = np.bincount(inverse.ravel(), weights=sample_weight[positive], minlength=len(rows))
    return rows, weights


def initial_centres(
    X: np.ndarray,
    n_components: int,
    *,
    init: str = "report",
    sample_weight: np.ndarray | None = None,
    random_state=None,
) -> np.ndarray:
    """Initial kernel centres: ``n_components`` distinct training vectors.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    n_components : int
    init : {"report", "kmeans++"}
        ``"report"``: distinct rows drawn without replacement with probability proportional
        to their total weight (uniform for unit weights; fig. 3.2: "mu_i = a vector in learning
        examples, mu_i != mu_j"). ``"kmeans++"``: the first drawn in the same way, each next
        one with probability proportional to ``w * D^2``, ``D`` the distance to the nearest
        centre already chosen.
    sample_weight : ndarray of shape (n_samples,), optional
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of shape (n_components, n_features)
    """
    X = check_array(X)
    sample_weight = check_sample_weight(sample_weight, X.shape[0])
    rng = check_random_state(random_state)
    if init not in _INITS:
        raise ValueError(f"init must be one of {_INITS}, got {init!r}.")
    rows, weights = distinct_rows(X, sample_weight)
    k = n_components
    if len(rows) < k:
        raise ValueError(
            f"n_components={k} needs at least {k} distinct training vectors with positive "
            f"weight, got {len(rows)}."
        )
    if init == "report":
        chosen = rng.choice(len(rows), size=k, replace=False, p=weights / weights.sum())
        return rows[chosen]
    chosen = [int(rng.choice(len(rows), p=weights / weights.sum()))]
    nearest = squared_euclidean(rows, rows[chosen])[:, 0]
    for _ in range(1, k):
        score = weights * nearest
        score[chosen] = 0.0
        chosen.append(int(rng.choice(len(rows), p=score / score.sum())))
        np.minimum(nearest, squared_euclidean(rows, rows[chosen[-1:]])[:, 0], out=nearest)
    return rows[chosen]


def initial_sigmas(means: np.ndarray, X: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Initial widths: ``sigma_i = min_{j != i} ||mu_i - mu_j||`` (report, fig. 3.2).

    Parameters
    ----------
    means : ndarray of shape (n_components, n_features)
    X : ndarray of shape (n_samples, n_features)
        Training data (used only when ``n_components == 1``).
    sample_weight : ndarray of shape (n_samples,), optional

    Returns
    -------
    ndarray of shape (n_components,)

    Notes
    -----
    With a single kernel there is no other centre; the width is then the root mean square
    per-dimension distance of the (weighted) data to the centre,
    ``sigma = sqrt(sum_n w_n ||x_n - mu||^2 / (d sum_n w_n))``, i.e. the maximum-likelihood
    width of one isotropic kernel at that centre.
    """
    n_components, n_features = means.shape
    sample_weight = check_sample_weight(sample_weight, X.shape[0])
    if n_components == 1:
        sq = squared_euclidean(X, means)[:, 0]
        return np.array([np.sqrt(np.dot(sample_weight, sq) / (n_features * sample_weight.sum()))])
    between = squared_euclidean(means, means)
    np.fill_diagonal(between, np.inf)
    return np.sqrt(between.min(axis=1))


def _normalise_log_prob(log_prob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Responsibilities and log normaliser from ``log_prob`` of shape (n, K), in place.

    Notes
    -----
    The log-sum-exp trick of :func:`scipy.special.logsumexp`, written out so that the
    exponentials serve twice: with ``m_n = max_j a_nj`` and ``s_n = sum_j exp(a_nj - m_n)``
    (``s_n >= 1``, so no underflow to ``log 0``), ``ln sum_j exp(a_nj) = m_n + ln s_n`` and
    ``r_nj = exp(a_nj - m_n) / s_n``. ``log_prob`` is overwritten with ``r``.
    """
    shift = log_prob.max(axis=1)
    log_prob -= shift[:, None]
    resp = np.exp(log_prob, out=log_prob)
    total = resp.sum(axis=1)
    resp /= total[:, None]
    return resp, shift + np.log(total)


class IsotropicGaussianMixture(BaseEstimator):
    """Mixture of isotropic Gaussian kernels fit by (weighted) EM.

    Parameters
    ----------
    n_components : int, default=1
        Number of kernels ``K``.
    init : {"report", "kmeans++"}, default="report"
        How to choose the initial centres when ``means_init`` is not given.
        ``"report"``: ``K`` distinct training vectors drawn without replacement, with
        probability proportional to their total sample weight (uniform for unit weights).
        ``"kmeans++"``: the first centre is drawn in the same way, each next one with
        probability proportional to ``w_n * D(x_n)^2``, ``D`` the distance to the nearest
        centre already chosen. In both cases the initial widths are
        ``sigma_i = min_{j != i} ||mu_i - mu_j||`` (for ``K = 1``: the root mean square
        per-dimension distance of the data to the centre) and the weights are ``1/K``.
    means_init : array-like of shape (n_components, n_features), optional
        Initial centres (overrides ``init``).
    sigmas_init : array-like of shape (n_components,), optional
        Initial widths (standard deviations, > 0).
    weights_init : array-like of shape (n_components,), optional
        Initial mixing weights (positive, summing to 1).
    tol : float, default=1e-6
        EM stops when the weighted mean log-likelihood changes by less than ``tol``.
    max_iter : int, default=200
        Maximum number of EM iterations; reaching it raises a ``ConvergenceWarning``.
    min_variance : float, default=1e-6
        Variance floor: after every M-step ``sigma_j^2 = max(sigma_j^2, min_variance)``
        (squared units of ``X``), so that a kernel sitting on one example cannot collapse to
        zero width and make the likelihood infinite.
    relative_min_variance : float or None, default=None
        If set, replaces ``min_variance`` by a floor relative to the data:
        ``relative_min_variance * (1/d) sum_i var_w(X[:, i])``, the mean per-feature
        (weighted) variance of the training rows, so that the floor means the same thing on
        every data set whatever its units.
    random_state : None, int or numpy.random.Generator, default=None
        Source of randomness of the initialisation.

    Attributes
    ----------
    min_variance_ : float
        The variance floor used (``min_variance``, or the relative floor in units of ``X``).
    at_floor_ : ndarray of bool of shape (n_components,)
        Kernels whose variance ended at the floor: a kernel collapsed onto one or a few
        identical examples, or a dead kernel (weight ~0, see Notes).
    means_ : ndarray of shape (n_components, n_features)
    sigmas_ : ndarray of shape (n_components,)
        Kernel widths (standard deviations).
    variances_ : ndarray of shape (n_components,)
        ``sigmas_ ** 2``.
    weights_ : ndarray of shape (n_components,)
        Mixing weights ``p_j``.
    lower_bounds_ : ndarray of shape (n_iter_,)
        Weighted mean log-likelihood ``sum_n w_n ln p(x_n) / sum_n w_n`` computed in the E-step
        of every iteration, i.e. under the parameters *before* that iteration's M-step
        (entry 0 is the likelihood of the initial parameters), as in scikit-learn.
    lower_bound_ : float
        Last entry of ``lower_bounds_``.
    n_iter_ : int
        Number of EM iterations (M-steps) performed.
    converged_ : bool
        Whether the change of the mean log-likelihood fell below ``tol``.
    n_features_in_ : int

    Notes
    -----
    Kernel density (report eq. 3.1), ``d`` the dimension::

        N(mu_j, sigma_j, x) = (2 pi)^(-d/2) sigma_j^(-d) exp(-||x - mu_j||^2 / (2 sigma_j^2))
        p(x) = sum_j p_j N(mu_j, sigma_j, x)

    One EM iteration with sample weights ``w_n`` (report figs. 3.2 and 5.2):

    - E-step: ``r_nj = p_j N(mu_j, sigma_j, x_n) / p(x_n)`` (in log space with logsumexp),
      and the weighted mean log-likelihood ``L = sum_n w_n ln p(x_n) / sum_n w_n``.
    - M-step, with ``N_j = sum_n w_n r_nj``::

        mu_j      = sum_n w_n r_nj x_n / N_j
        sigma_j^2 = (1/d) sum_n w_n r_nj ||x_n - mu_j||^2 / N_j
        p_j       = N_j / sum_n w_n

    The report writes ``p_j = (1/N) sum_n q(x_n) r_nj`` for the weighted case (fig. 5.2);
    with non-binary weights those ``p_j`` do not sum to 1, so the mixture would not be a
    density. Dividing by the total weight ``sum_n w_n`` is the maximiser of the weighted
    likelihood (5.1) under ``sum_j p_j = 1``, and equals ``1/N`` for unit weights. Integer
    weights are therefore equivalent to repeating rows.

    A kernel that loses all its examples (every ``r_nj`` underflows to 0; common in high
    dimension, e.g. splice one-hot with K = 64 ends with about two live kernels) keeps
    ``N_j = 10 eps`` as in scikit-learn: its weight becomes ~1e-18, its variance the floor, and
    it no longer affects the likelihood. It is not re-seeded (neither the report nor
    scikit-learn does); ``weights_`` shows which kernels are alive.

    The variance is computed from the squared distances to the previous centres, which the
    E-step already has: ``sum_n w_n r_nj ||x_n - mu_j||^2 = sum_n w_n r_nj ||x_n - mu_j^old||^2
    - N_j ||mu_j - mu_j^old||^2``. The data are centred on their weighted mean during the fit
    (the model is translation equivariant) to limit cancellation in the BLAS distances.
    """

    def __init__(
        self,
        n_components: int = 1,
        *,
        init: str = "report",
        means_init=None,
        sigmas_init=None,
        weights_init=None,
        tol: float = 1e-6,
        max_iter: int = 200,
        min_variance: float = 1e-6,
        relative_min_variance: float | None = None,
        random_state=None,
    ) -> None:
        self.n_components = n_components
        self.init = init
        self.means_init = means_init
        self.sigmas_init = sigmas_init
        self.weights_init = weights_init
        self.tol = tol
        self.max_iter = max_iter
        self.min_variance = min_variance
        self.relative_min_variance = relative_min_variance
        self.random_state = random_state

    # ------------------------------------------------------------------ validation / init
    def _check_params(self, n_features: int) -> None:
        _check_positive_int(self.n_components, "n_components")
        _check_positive_int(self.max_iter, "max_iter")
        _check_nonnegative_float(self.tol, "tol")
        _check_nonnegative_float(self.min_variance, "min_variance", strict=True)
        if self.relative_min_variance is not None:
            _check_nonnegative_float(self.relative_min_variance, "relative_min_variance", strict=True)
        if self.init not in _INITS:
            raise ValueError(f"init must be one of {_INITS}, got {self.init!r}.")
        k = self.n_components
        if self.means_init is not None:
            means = check_array(self.means_init, name="means_init")
            if means.shape != (k, n_features):
                raise ValueError(
                    f"means_init must have shape ({k}, {n_features}), got {means.shape}."
                )
        if self.sigmas_init is not None:
            sigmas = check_array(self.sigmas_init, name="sigmas_init", ndim=1)
            if sigmas.shape != (k,) or (sigmas <= 0).any():
                raise ValueError(
                    f"sigmas_init must hold {k} positive values, got {sigmas.tolist()}."
                )
        if self.weights_init is not None:
            weights = check_array(self.weights_init, name="weights_init", ndim=1)
            if weights.shape != (k,) or (weights <= 0).any() or not np.isclose(weights.sum(), 1.0):
                raise ValueError(
                    f"weights_init must hold {k} positive values summing to 1, "
                    f"got {weights.tolist()}."
                )

    def _initialize(self, X: np.ndarray, sample_weight: np.ndarray, rng: np.random.Generator) -> None:
        if self.means_init is not None:
            means = check_array(self.means_init, name="means_init").copy()
        else:
            means = initial_centres(
                X, self.n_components, init=self.init, sample_weight=sample_weight, random_state=rng
            )
        if self.sigmas_init is not None:
            sigmas = check_array(self.sigmas_init, name="sigmas_init", ndim=1)
        else:
            sigmas = initial_sigmas(means, X, sample_weight)
        if self.weights_init is not None:
            weights = check_array(self.weights_init, name="weights_init", ndim=1)
            weights = weights / weights.sum()
        else:
            weights = np.full(self.n_components, 1.0 / self.n_components)
        self.means_ = means
        self.variances_ = np.maximum(sigmas**2, self.min_variance_)
        self.weights_ = weights

    # ------------------------------------------------------------------ EM
    def _weighted_log_prob(self, X: np.ndarray, X_sq: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``ln p_j + ln N(mu_j, sigma_j, x_n)`` of shape (n, K), and the squared distances."""
        n_features = X.shape[1]
        distances = squared_euclidean(X, self.means_, X_sq=X_sq)
        log_prob = distances * (-0.5 / self.variances_)
        log_prob += np.log(self.weights_) - 0.5 * n_features * (_LOG_2PI + np.log(self.variances_))
        return log_prob, distances

    def fit(self, X, y=None, sample_weight=None) -> "IsotropicGaussianMixture":
        """Fit the mixture by EM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors (no NaN).
        y : ignored
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights (the priors ``q(x_n)`` of the report's fig. 5.2); rows of
            weight 0 are ignored.
        """
        X = check_array(X)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        n_features = X.shape[1]
        self._check_params(n_features)
        rng = check_random_state(self.random_state)
        if (sample_weight == 0).any():
            keep = sample_weight > 0
            X, sample_weight = X[keep], sample_weight[keep]
        self.n_features_in_ = n_features
        self.min_variance_ = variance_floor(X, sample_weight, self.min_variance, self.relative_min_variance)
        self._initialize(X, sample_weight, rng)

        total_weight = sample_weight.sum()
        centre = sample_weight @ X / total_weight
        Xc = X - centre
        X_sq = np.einsum("ij,ij->i", Xc, Xc)
        self.means_ = self.means_ - centre
        weight_column = sample_weight[:, None]

        lower_bounds: list[float] = []
        self.converged_ = False
        for n_iter in range(1, self.max_iter + 1):
            # E-step: responsibilities and the weighted mean log-likelihood.
            log_prob, distances = self._weighted_log_prob(Xc, X_sq)
            resp, log_norm = _normalise_log_prob(log_prob)
            lower_bounds.append(float(sample_weight @ log_norm / total_weight))
            resp *= weight_column
            # M-step on the weighted responsibilities w_n r_nj.
            nk = resp.sum(axis=0) + _NK_EPS
            # Xc.T @ resp rather than resp.T @ Xc: the same GEMM, but multi-threaded OpenBLAS
            # is several times slower on the latter layout.
            new_means = (Xc.T @ resp).T / nk[:, None]
            shift = new_means - self.means_
            spread = np.einsum("nk,nk->k", resp, distances) / nk
            variances = (spread - np.einsum("kd,kd->k", shift, shift)) / n_features
            self.means_ = new_means
            self.variances_ = np.maximum(variances, self.min_variance_)
            self.weights_ = nk / nk.sum()
            logger.debug("EM iteration %d: mean log-likelihood %.10g", n_iter, lower_bounds[-1])
            if len(lower_bounds) > 1 and abs(lower_bounds[-1] - lower_bounds[-2]) < self.tol:
                self.converged_ = True
                break
        self.means_ = self.means_ + centre
        self.sigmas_ = np.sqrt(self.variances_)
        self.at_floor_ = self.variances_ <= self.min_variance_ * _AT_FLOOR
        self.lower_bounds_ = np.asarray(lower_bounds)
        self.lower_bound_ = lower_bounds[-1]
        self.n_iter_ = n_iter
        if not self.converged_:
            warnings.warn(
                f"EM did not converge in max_iter={self.max_iter} iterations (last change of "
                f"the mean log-likelihood {lower_bounds[-1] - lower_bounds[-2] if n_iter > 1 else np.nan:.3g}"
                f" >= tol={self.tol}); increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    # ------------------------------------------------------------------ inference
    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self, "means_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with "
                f"{self.n_features_in_}."
            )
        return X

    def score_samples(self, X) -> np.ndarray:
        """Log density ``ln p(x_n)`` of every row, shape (n_samples,)."""
        log_prob, _ = self._weighted_log_prob(self._check_X(X))
        return logsumexp(log_prob, axis=1)

    def score(self, X, y=None, sample_weight=None) -> float:
        """Weighted mean log density ``sum_n w_n ln p(x_n) / sum_n w_n``."""
        log_density = self.score_samples(X)
        return float(np.average(log_density, weights=check_sample_weight(sample_weight, len(log_density))))

    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities ``p(theta_j | x_n)``, shape (n_samples, n_components), rows sum to 1."""
        log_prob, _ = self._weighted_log_prob(self._check_X(X))
        log_prob -= logsumexp(log_prob, axis=1)[:, None]
        return np.exp(log_prob, out=log_prob)

    def predict(self, X) -> np.ndarray:
        """Index of the most responsible kernel of every row, shape (n_samples,)."""
        return self.predict_proba(X).argmax(axis=1)


def _fit_capped_mixture(
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
    n_distinct = len(distinct_rows(X, check_sample_weight(sample_weight, X.shape[0]))[0])
    k = min(settings.n_components, n_distinct)
    if k < settings.n_components:
        warnings.warn(
            f"{subject} has {n_distinct} distinct {unit}, fewer than "
            f"n_components={settings.n_components}; using {k} kernel(s) for it.",
            UserWarning,
            stacklevel=stacklevel,
        )
    return IsotropicGaussianMixture(k, **em).fit(X, sample_weight=sample_weight), k


class MixtureClassifier(ClassifierMixin, BaseEstimator):
    """One isotropic Gaussian mixture per class, combined by Bayes' rule (report ch. 3).

    Parameters
    ----------
    n_components : int, default=4
        Kernels per class ``K`` (the same for every class; kernels are never shared).
    init, tol, max_iter, min_variance :
        Passed to every class's :class:`IsotropicGaussianMixture`.
    relative_min_variance : float or None, default=None
        If set, the variance floor of every class's mixture is ``relative_min_variance``
        times the mean per-feature variance of *all* training rows (weighted by
        ``sample_weight``), instead of ``min_variance`` (see :func:`variance_floor`).
    warm_start : bool, default=False
        If True and the classifier was already fitted with the same classes and number of
        features, :meth:`fit` continues EM from the fitted parameters of each class's
        mixture (same kernel count, centres, widths and weights) instead of a new random
        start, as scikit-learn's ``GaussianMixture(warm_start=True)``. The prior-probability
        method (report section 5.2) refits this way every round.
    margin : float, default=0.0
        Unclassifiable rule: an example is unclassifiable when its largest posterior exceeds
        the second largest by at most ``margin``: ``p_(1) - p_(2) <= margin``. With the
        default 0 only exact ties are unclassifiable, among them the report's case where all
        posteriors equal ``1/C``.
    min_log_density : float or None, default=None
        If set, an example is also unclassifiable when ``max_c [ln p(x|c) + ln P(c)]`` is
        below this value (it lies far from every kernel of every class). Log-space evaluation
        never underflows, so without this option an example far from all kernels is assigned,
        with a posterior close to 1, to the class whose kernel is widest relative to its
        distance; ``min_log_density=np.log(np.finfo(float).tiny)`` (about -708.4) reproduces
        the original program, whose densities underflowed to 0 there and gave ``1/C``.
    reject_label : object or None, default=None
        If not None, :meth:`predict` returns this value for unclassifiable examples.
    random_state : None, int or numpy.random.Generator, default=None
        One generator drives the initialisation of all class mixtures, in class order.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    mixtures_ : list of IsotropicGaussianMixture
        The fitted model of each class, in the order of ``classes_``.
    n_components_per_class_ : ndarray of int of shape (n_classes,)
        Effective ``K`` of each class: ``min(n_components, distinct examples of the class)``.
    class_prior_ : ndarray of shape (n_classes,)
        ``P(c) = sum_n w_n Q_nc / sum_n w_n``.
    min_variance_ : float
        The variance floor every class's mixture used (units of ``X``).
    n_features_in_ : int

    Notes
    -----
    Training labels are a matrix ``Q`` of shape (n_samples, n_classes) whose rows sum to 1
    (one-hot for hard labels; the priors ``q(c | x_n)`` of the report's section 5.2 for soft
    labels). The mixture of class ``c`` is fit by EM with sample weights ``w_n Q_nc`` (rows of
    zero weight are skipped) and the class priors are the weighted class totals. Prediction::

        ln p(x, c) = ln P(c) + ln sum_j p_cj N(mu_cj, sigma_cj, x)
        p(c | x)   = exp(ln p(x, c) - logsumexp_c' ln p(x, c'))
    """

    def __init__(
        self,
        n_components: int = 4,
        *,
        init: str = "report",
        tol: float = 1e-6,
        max_iter: int = 200,
        min_variance: float = 1e-6,
        relative_min_variance: float | None = None,
        warm_start: bool = False,
        margin: float = 0.0,
        min_log_density: float | None = None,
        reject_label=None,
        random_state=None,
    ) -> None:
        self.n_components = n_components
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.min_variance = min_variance
        self.relative_min_variance = relative_min_variance
        self.warm_start = warm_start
        self.margin = margin
        self.min_log_density = min_log_density
        self.reject_label = reject_label
        self.random_state = random_state

    def _label_matrix(self, y, soft_labels, classes, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """Validate the labels and return ``(classes, Q)`` with Q of shape (n_samples, n_classes)."""
        if soft_labels is not None:
            if y is not None:
                raise ValueError("Give either y (hard labels) or soft_labels, not both.")
            if classes is None:
                raise ValueError("soft_labels needs classes: the label of each of its columns.")
            classes = np.asarray(classes)
            Q = check_array(soft_labels, name="soft_labels")
            if Q.shape != (n_samples, len(classes)):
                raise ValueError(
                    f"soft_labels must have shape ({n_samples}, {len(classes)}) (n_samples, "
                    f"n_classes), got {Q.shape}."
                )
            if len(np.unique(classes)) != len(classes):
                raise ValueError(f"classes must be distinct, got {classes.tolist()}.")
            if (Q < 0).any() or not np.allclose(Q.sum(axis=1), 1.0, atol=1e-6):
                bad = np.nonzero((Q < 0).any(axis=1) | ~np.isclose(Q.sum(axis=1), 1.0, atol=1e-6))[0]
                raise ValueError(
                    f"soft_labels rows must be non-negative and sum to 1; rows {bad[:5].tolist()} "
                    "do not."
                )
            return classes, Q
        if y is None:
            raise ValueError("fit needs y (hard labels) or soft_labels.")
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != n_samples:
            raise ValueError(f"y must have shape ({n_samples},), got {y.shape}.")
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("y contains NaN labels.")
        if classes is None:
            classes = np.unique(y)
        else:
            classes = np.asarray(classes)
            unknown = np.setdiff1d(np.unique(y), classes)
            if len(unknown):
                raise ValueError(f"y holds labels {unknown.tolist()} not in classes {classes.tolist()}.")
        Q = (y[:, None] == classes[None, :]).astype(np.float64)
        return classes, Q

    def fit(self, X, y=None, sample_weight=None, *, soft_labels=None, classes=None) -> "MixtureClassifier":
        """Fit one mixture per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Hard class labels. Exactly one of ``y`` and ``soft_labels`` must be given.
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies the weight every row carries in every class.
        soft_labels : array-like of shape (n_samples, n_classes), optional
            Soft labels ``Q``: non-negative rows summing to 1; column ``c`` weights the fit of
            class ``classes[c]`` (the prior-probability method of the report's section 5.2
            calls ``fit(X, soft_labels=Q, classes=clf.classes_)`` once per round).
        classes : array-like of shape (n_classes,), optional
            Labels of the columns of ``soft_labels`` (required with it). With hard ``y`` it
            fixes the order of ``classes_``; every class must then have examples.
        """
        X = check_array(X)
        n_samples = X.shape[0]
        sample_weight = check_sample_weight(sample_weight, n_samples)
        classes, Q = self._label_matrix(y, soft_labels, classes, n_samples)
        _check_positive_int(self.n_components, "n_components")
        _check_nonnegative_float(self.margin, "margin")
        weights = Q * sample_weight[:, None]
        totals = weights.sum(axis=0)
        if (totals <= 0).any():
            empty = classes[totals <= 0].tolist()
            raise ValueError(f"classes {empty} have zero total weight: nothing to fit them on.")

        if self.relative_min_variance is not None:
            _check_nonnegative_float(self.relative_min_variance, "relative_min_variance", strict=True)
        previous = self._previous_mixtures(classes, X.shape[1])
        rng = check_random_state(self.random_state)
        self.min_variance_ = variance_floor(X, sample_weight, self.min_variance, self.relative_min_variance)
        self.classes_ = classes
        self.class_prior_ = totals / totals.sum()
        self.n_features_in_ = X.shape[1]
        self.mixtures_ = []
        effective = []
        for c, label in enumerate(classes):
            keep = weights[:, c] > 0
            mixture, k = _fit_capped_mixture(
                self, X[keep], weights[keep, c], rng, f"class {label}", "example(s)", stacklevel=3,
                min_variance=self.min_variance_, previous=previous[c],
            )
            self.mixtures_.append(mixture)
            effective.append(k)
        self.n_components_per_class_ = np.asarray(effective)
        return self

    def _previous_mixtures(self, classes: np.ndarray, n_features: int) -> list:
        """The fitted class mixtures to continue from (``warm_start``), else ``None`` per class."""
        fitted = getattr(self, "mixtures_", None)
        if (not self.warm_start or fitted is None or self.n_features_in_ != n_features
                or len(self.classes_) != len(classes) or not np.array_equal(self.classes_, classes)):
            return [None] * len(classes)
        return list(fitted)

    def underflow_mask(self, X) -> np.ndarray:
        """Examples whose density underflows to 0 for every class in linear-space float64.

        This emulates a program that computes the densities as plain products of doubles (the
        original study's most likely arithmetic); it does not change how this classifier
        classifies, which stays in log space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of bool of shape (n_samples,)
            True where ``P(c) * sum_j p_cj * (2 pi sigma_cj^2)^(-d/2) * exp(-||x - mu_cj||^2 /
            (2 sigma_cj^2)) == 0`` for every class ``c``, each factor evaluated in float64
            (``numpy.power``, ``numpy.exp``) and multiplied left to right, the sum over kernels
            in float64. Such an example gets the posteriors ``0/0``, read as ``1/C`` for every
            class: it lies "exactly on the boundary" and cannot be classified.

        Notes
        -----
        ``exp(-t)`` underflows to 0 in float64 for ``t > 745.13``, so a kernel stops counting
        for an example farther than about ``38.6 sigma`` from its centre; a kernel collapsed
        to the variance floor (``sigma = 1e-3`` for ``min_variance = 1e-6``) stops counting
        ``0.04`` away, i.e. for every example but the one it sits on.
        """
        check_is_fitted(self, "mixtures_")
        X = check_array(X)
        n_features = X.shape[1]
        if n_features != self.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but MixtureClassifier was fitted with "
                f"{self.n_features_in_}."
            )
        X_sq = np.einsum("ij,ij->i", X, X)
        zero = np.ones(len(X), dtype=bool)
        for prior, mixture in zip(self.class_prior_, self.mixtures_):
            variances = mixture.variances_
            distances = squared_euclidean(X, mixture.means_, X_sq=X_sq)
            # IEEE semantics on purpose: underflow to 0, overflow to inf, inf * 0 = NaN.
            with np.errstate(under="ignore", over="ignore", invalid="ignore"):
                normaliser = np.power(2.0 * np.pi * variances, -0.5 * n_features)
                terms = mixture.weights_ * normaliser * np.exp(-distances / (2.0 * variances))
                density = prior * terms.sum(axis=1)
            zero &= density == 0.0
        return zero

    def predict_log_density(self, X) -> np.ndarray:
        """Class-conditional log densities ``ln p(x_n | c)``, shape (n_samples, n_classes)."""
        check_is_fitted(self, "mixtures_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but MixtureClassifier was fitted with "
                f"{self.n_features_in_}."
            )
        return np.column_stack([m.score_samples(X) for m in self.mixtures_])

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self.predict_log_density(X) + np.log(self.class_prior_)

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posteriors ``ln p(c | x_n)``, shape (n_samples, n_classes)."""
        joint = self._joint_log_likelihood(X)
        return joint - logsumexp(joint, axis=1)[:, None]

    def predict_proba(self, X) -> np.ndarray:
        """Posteriors ``p(c | x_n)`` by Bayes' rule, shape (n_samples, n_classes); rows sum to 1."""
        return np.exp(self.predict_log_proba(X))

    def _unclassifiable(self, joint: np.ndarray) -> np.ndarray:
        posterior = np.exp(joint - logsumexp(joint, axis=1)[:, None])
        mask = np.zeros(len(joint), dtype=bool)
        if posterior.shape[1] > 1:
            top_two = -np.partition(-posterior, 1, axis=1)[:, :2]
            mask = top_two[:, 0] - top_two[:, 1] <= self.margin
        if self.min_log_density is not None:
            mask |= joint.max(axis=1) < self.min_log_density
        return mask

    def unclassifiable(self, X) -> np.ndarray:
        """Boolean mask of shape (n_samples,): the examples the model cannot decide.

        True where ``p_(1) - p_(2) <= margin`` (the two largest posteriors), or, when
        ``min_log_density`` is set, where ``max_c ln p(x, c) < min_log_density``.
        """
        return self._unclassifiable(self._joint_log_likelihood(X))

    def predict(self, X) -> np.ndarray:
        """Class of largest posterior (ties: first class), shape (n_samples,).

        When ``reject_label`` is not None, unclassifiable examples get ``reject_label``; the
        result is then a string array (string classes and label), a numeric array (numeric
        classes and label) or else an object array.
        """
        joint = self._joint_log_likelihood(X)
        labels = self.classes_[joint.argmax(axis=1)]
        if self.reject_label is None:
            return labels
        out = labels.astype(object)
        out[self._unclassifiable(joint)] = self.reject_label
        reject = self.reject_label
        if labels.dtype.kind in "US" and isinstance(reject, str):
            return out.astype(str)
        if labels.dtype.kind in "iuf" and isinstance(reject, numbers.Real) and not isinstance(reject, bool):
            return out.astype(np.result_type(labels.dtype, np.asarray(reject).dtype))
        return out
