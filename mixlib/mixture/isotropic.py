"""The isotropic Gaussian mixture fit by (weighted) EM (report ch. 3, figs. 3.2 and 5.2).

Every kernel has one ``sigma`` (an isotropic covariance ``sigma^2 I``); everything is computed
in log space.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np

from mixlib.core.base import BaseEstimator
from mixlib.core.distances import squared_euclidean
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.log_space import logsumexp_rows
from mixlib.core.validation import (
    check_array,
    check_choice,
    check_float,
    check_int,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
)
from mixlib.mixture._em_loop import em_iterations
from mixlib.mixture.initialisation import (
    DEFAULT_INIT,
    DEFAULT_MAX_ITER,
    DEFAULT_MIN_VARIANCE,
    DEFAULT_TOL,
    INITS,
    distinct_rows,
    draw_centres,
    nearest_centre_sigmas,
    variance_floor,
)

logger = logging.getLogger(__name__)

_LOG_2PI = float(np.log(2.0 * np.pi))
# A variance within this factor of the floor counts as "at the floor" (the M-step sets it to
# the floor exactly; the factor only absorbs the sqrt/square round trip of a warm start).
_AT_FLOOR = 1.0 + 1e-9
#: Mixing weight at or below which a kernel counts as dead (it lost all its examples).
LIVE_WEIGHT = 1e-6


def check_em_params(max_iter, tol, min_variance, init, relative_min_variance=None) -> None:
    """Check the EM parameters of an :class:`IsotropicGaussianMixture` (in its order).

    Raises
    ------
    InvalidParameterError
        Naming the parameter: ``max_iter`` (an int >= 1), ``tol`` (>= 0), ``min_variance``
        (> 0), ``relative_min_variance`` (> 0 or None), ``init`` (one of :data:`INITS`).
    """
    check_int(max_iter, "max_iter", min_value=1)
    check_float(tol, "tol", low=0)
    check_float(min_variance, "min_variance", low=0, closed="neither")
    check_float(relative_min_variance, "relative_min_variance", low=0, closed="neither",
                allow_none=True)
    check_choice(init, "init", INITS)


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
    (the model is translation equivariant) to limit cancellation in the BLAS distances. The
    iterations run in one compiled loop (:func:`mixlib.mixture._em_loop.em_iterations`).
    """

    def __init__(
        self,
        n_components: int = 1,
        *,
        init: str = DEFAULT_INIT,
        means_init=None,
        sigmas_init=None,
        weights_init=None,
        tol: float = DEFAULT_TOL,
        max_iter: int = DEFAULT_MAX_ITER,
        min_variance: float = DEFAULT_MIN_VARIANCE,
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
    def _check_params(self, n_features: int) -> dict[str, np.ndarray]:
        """Check the parameters; the given initial ``means``, ``sigmas`` and ``weights``,
        checked (as :meth:`_initialize` reads them)."""
        check_int(self.n_components, "n_components", min_value=1)
        check_em_params(self.max_iter, self.tol, self.min_variance, self.init,
                        self.relative_min_variance)
        return self._check_given(n_features)

    def _check_given(self, n_features: int) -> dict[str, np.ndarray]:
        """The given initial ``means``, ``sigmas`` and ``weights``, checked."""
        k = self.n_components
        given = {}
        if self.means_init is not None:
            given["means"] = means = check_array(self.means_init, name="means_init")
            if means.shape != (k, n_features):
                raise ValueError(
                    f"means_init must have shape ({k}, {n_features}), got {means.shape}."
                )
        if self.sigmas_init is not None:
            given["sigmas"] = sigmas = check_array(self.sigmas_init, name="sigmas_init", ndim=1)
            if sigmas.shape != (k,) or (sigmas <= 0).any():
                raise ValueError(
                    f"sigmas_init must hold {k} positive values, got {sigmas.tolist()}."
                )
        if self.weights_init is not None:
            given["weights"] = weights = check_array(self.weights_init, name="weights_init",
                                                     ndim=1)
            if weights.shape != (k,) or (weights <= 0).any() or not np.isclose(weights.sum(), 1.0):
                raise ValueError(
                    f"weights_init must hold {k} positive values summing to 1, "
                    f"got {weights.tolist()}."
                )
        return given

    def _initialize(self, X: np.ndarray, sample_weight: np.ndarray, rng: np.random.Generator,
                    given: dict[str, np.ndarray]) -> None:
        # X and sample_weight are checked: initial_centres and initial_sigmas without their checks
        if "means" in given:
            means = given["means"].copy()
        else:
            rows, row_weights = distinct_rows(X, sample_weight)
            means = draw_centres(rows, row_weights, self.n_components, init=self.init, rng=rng)
        if "sigmas" in given:
            sigmas = given["sigmas"]
        else:
            sigmas = nearest_centre_sigmas(means, X, sample_weight)
        if "weights" in given:
            weights = given["weights"] / given["weights"].sum()
        else:
            weights = np.full(self.n_components, 1.0 / self.n_components)
        self.means_ = means
        self.variances_ = np.maximum(sigmas**2, self.min_variance_)
        self.weights_ = weights

    # ------------------------------------------------------------------ EM
    def _kernel_constants(self) -> tuple[np.ndarray, ...]:
        """Per-kernel constants of the fitted parameters, each of shape (K,)::

            -1 / (2 sigma_j^2),  ln p_j - (d/2) (ln 2 pi + ln sigma_j^2),  ||mu_j||^2,
            p_j * (2 pi sigma_j^2)^(-d/2),  -2 sigma_j^2

        the last two in linear-space float64 (``numpy.power``; underflow to 0 and overflow to
        inf as IEEE arithmetic gives them), for the classifier's underflow rule.

        Computed once per set of parameters: the cache is keyed by the very arrays
        ``means_``, ``variances_`` and ``weights_`` it was computed from, so a refit (which
        rebinds them to new arrays; none is changed in place), a warm start or a shallow copy
        never reads constants of other parameters.
        """
        means, variances, weights = self.means_, self.variances_, self.weights_
        cached = self.__dict__.get("_constants")
        if cached is None or cached[0] is not means or cached[1] is not variances or cached[2] is not weights:
            half_d = 0.5 * means.shape[1]
            with np.errstate(under="ignore", over="ignore", invalid="ignore"):
                linear = weights * np.power(2.0 * np.pi * variances, -half_d)
            cached = (means, variances, weights, -0.5 / variances,
                      np.log(weights) - half_d * (_LOG_2PI + np.log(variances)),
                      np.einsum("ij,ij->i", means, means), linear, -2.0 * variances)
            self._constants = cached
        return cached[3:]

    def _distances(self, X: np.ndarray, X_sq: np.ndarray | None = None) -> np.ndarray:
        """Squared distances ``||x_n - mu_j||^2`` of the rows of checked ``X``, shape (n, K)."""
        return squared_euclidean(X, self.means_, X_sq=X_sq, Y_sq=self._kernel_constants()[2])

    def _log_prob_from(self, distances: np.ndarray) -> np.ndarray:
        """``ln p_j + ln N(mu_j, sigma_j, x_n)`` of shape (n, K) from the squared distances
        (a new array)::

            ln p_j - (d/2) (ln 2 pi + ln sigma_j^2) - ||x_n - mu_j||^2 / (2 sigma_j^2)
        """
        scale, offset = self._kernel_constants()[:2]
        log_prob = distances * scale
        log_prob += offset
        return log_prob

    def _weighted_log_prob(self, X: np.ndarray, X_sq: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``ln p_j + ln N(mu_j, sigma_j, x_n)`` of shape (n, K), and the squared distances."""
        distances = self._distances(X, X_sq)
        return self._log_prob_from(distances), distances

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
        return self._fit(X, sample_weight, self._check_params(X.shape[1]))

    def _fit(self, X: np.ndarray, sample_weight: np.ndarray,
             given: dict[str, np.ndarray]) -> "IsotropicGaussianMixture":
        """:meth:`fit` on checked input: ``X`` from :func:`check_array`, ``sample_weight``
        from :func:`check_sample_weight` (or an array it would return unchanged, never
        modified here), the parameters valid and ``given`` from :meth:`_check_params`.

        The per-class fits of :class:`~mixlib.mixture.MixtureClassifier` come here directly:
        it checks its arrays and parameters once for all of them.
        """
        n_features = X.shape[1]
        rng = check_random_state(self.random_state)
        if (sample_weight == 0).any():
            keep = sample_weight > 0
            X, sample_weight = X[keep], sample_weight[keep]
        self.n_features_in_ = n_features
        self.min_variance_ = variance_floor(X, sample_weight, self.min_variance, self.relative_min_variance)
        self._initialize(X, sample_weight, rng, given)

        # The data centred on their weighted mean (C-contiguous: one compiled specialisation).
        centre = sample_weight @ X / sample_weight.sum()
        contiguous = np.ascontiguousarray
        means, variances, weights, lower_bounds, self.converged_ = em_iterations(
            contiguous(X - centre), contiguous(sample_weight), not (sample_weight == 1.0).all(),
            contiguous(self.means_ - centre), contiguous(self.variances_),
            contiguous(self.weights_), float(self.min_variance_), float(self.tol),
            int(self.max_iter))
        n_iter = len(lower_bounds)
        if logger.isEnabledFor(logging.DEBUG):
            for iteration, bound in enumerate(lower_bounds, start=1):
                logger.debug("EM iteration %d: mean log-likelihood %.10g", iteration, bound)
        self.means_ = means + centre
        self.variances_, self.weights_ = variances, weights
        self.sigmas_ = np.sqrt(self.variances_)
        self.at_floor_ = self.variances_ <= self.min_variance_ * _AT_FLOOR
        self.lower_bounds_ = lower_bounds
        self.lower_bound_ = float(lower_bounds[-1])
        self.n_iter_ = n_iter
        if not self.converged_:
            change = abs(lower_bounds[-1] - lower_bounds[-2]) if n_iter > 1 else np.nan
            warnings.warn(
                ConvergenceWarning(
                    f"EM did not converge in max_iter={self.max_iter} iterations (last change of "
                    f"the mean log-likelihood {change:.3g} >= tol={self.tol}); increase max_iter "
                    "or tol.", change=float(change), tol=float(self.tol)),
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
        return logsumexp_rows(log_prob)

    def score(self, X, y=None, sample_weight=None) -> float:
        """Weighted mean log density ``sum_n w_n ln p(x_n) / sum_n w_n``."""
        log_density = self.score_samples(X)
        return float(np.average(log_density, weights=check_sample_weight(sample_weight, len(log_density))))

    def predict_proba(self, X) -> np.ndarray:
        """Responsibilities ``p(theta_j | x_n)``, shape (n_samples, n_components), rows sum to 1."""
        log_prob, _ = self._weighted_log_prob(self._check_X(X))
        log_prob -= logsumexp_rows(log_prob, keepdims=True)
        return np.exp(log_prob, out=log_prob)

    def predict(self, X) -> np.ndarray:
        """Index of the most responsible kernel of every row, shape (n_samples,)."""
        return self.predict_proba(X).argmax(axis=1)
