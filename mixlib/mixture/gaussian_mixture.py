"""The classifier with one isotropic Gaussian mixture per class (report ch. 3).

This is the probabilistic classifier of the report (STUDY.md section 1): every class owns
``K`` isotropic Gaussian kernels (one ``sigma`` per kernel, never shared between classes),
fit by the EM algorithm of the report's fig. 3.2
(:class:`~mixlib.mixture.isotropic.IsotropicGaussianMixture`); a new example is classified by
Bayes' rule with class priors, and the output is the vector of posteriors ``p(c | x)``.
Everything is computed in log space.
"""

from __future__ import annotations

import numbers

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.log_space import logsumexp_rows
from mixlib.core.validation import (
    check_array,
    check_fitted_input,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
)
from mixlib.mixture._underflow import underflow_from_distances
from mixlib.mixture.capped import fit_capped_mixture
from mixlib.mixture.initialisation import (
    DEFAULT_INIT,
    DEFAULT_MAX_ITER,
    DEFAULT_MIN_VARIANCE,
    DEFAULT_TOL,
    variance_floor,
)
from mixlib.mixture.isotropic import IsotropicGaussianMixture, check_em_params

# IsotropicGaussianMixture is exported with the classifier whose ``mixtures_`` hold them.
__all__ = ["IsotropicGaussianMixture", "MixtureClassifier"]


def _posterior(joint: np.ndarray) -> np.ndarray:
    """``p(c | x_n) = exp(ln p(x_n, c) - logsumexp_c' ln p(x_n, c'))`` from the joint log
    likelihoods of shape (n_samples, n_classes)."""
    return np.exp(joint - logsumexp_rows(joint, keepdims=True))


class MixtureClassifier(ClassifierMixin, BaseEstimator):
    """One isotropic Gaussian mixture per class, combined by Bayes' rule (report ch. 3).

    Parameters
    ----------
    n_components : int, default=4
        Kernels per class ``K`` (the same for every class; kernels are never shared). A class
        with fewer distinct training rows (of positive weight) than ``K`` gets one kernel per
        distinct row, with a ``UserWarning`` (``K`` distinct centres need ``K`` distinct rows;
        :func:`fit_capped_mixture`); ``n_components_per_class_`` records the ``K`` used.
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
    n_iter_ : ndarray of int of shape (n_classes,)
        EM iterations run by each class's mixture.
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
        init: str = DEFAULT_INIT,
        tol: float = DEFAULT_TOL,
        max_iter: int = DEFAULT_MAX_ITER,
        min_variance: float = DEFAULT_MIN_VARIANCE,
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
        y = check_labels(y, n_samples)
        given = classes is not None
        classes = np.asarray(classes) if given else np.unique(y)
        Q = y[:, None] == classes[None, :]
        # given classes: the labels outside them, looked for (object labels: always) when a
        # row matches no class (numpy's == of numbers and strings is that of np.unique)
        if given and (y.dtype == object or not Q.any(axis=1).all()):
            unknown = np.setdiff1d(np.unique(y), classes)
            if len(unknown):
                raise ValueError(f"y holds labels {unknown.tolist()} not in classes {classes.tolist()}.")
        return classes, Q.astype(np.float64)

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
        check_int(self.n_components, "n_components", min_value=1)
        check_float(self.margin, "margin", low=0)
        weights = Q * sample_weight[:, None]
        totals = weights.sum(axis=0)
        if (totals <= 0).any():
            empty = classes[totals <= 0].tolist()
            raise ValueError(f"classes {empty} have zero total weight: nothing to fit them on.")

        check_float(self.relative_min_variance, "relative_min_variance", low=0, closed="neither",
                    allow_none=True)
        previous = self._previous_mixtures(classes, X.shape[1])
        rng = check_random_state(self.random_state)
        self.min_variance_ = variance_floor(X, sample_weight, self.min_variance, self.relative_min_variance)
        self.classes_ = classes
        self.class_prior_ = totals / totals.sum()
        self.n_features_in_ = X.shape[1]
        self.mixtures_ = []
        effective = []
        # what every class's mixture would check (its n_components, 1 or more, needs none)
        check_em_params(self.max_iter, self.tol, self.min_variance_, self.init)
        for c, label in enumerate(classes):
            keep = weights[:, c] > 0
            mixture, k = fit_capped_mixture(
                X[keep], weights[keep, c], self.n_components, rng, f"class {label}", "example(s)",
                stacklevel=3, init=self.init, tol=self.tol, max_iter=self.max_iter,
                min_variance=self.min_variance_, previous=previous[c], checked=True,
            )
            self.mixtures_.append(mixture)
            effective.append(k)
        self.n_components_per_class_ = np.asarray(effective)
        self.n_iter_ = np.array([mixture.n_iter_ for mixture in self.mixtures_])
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
        return self.underflow_from_distances(self.class_distances(X))

    def class_distances(self, X) -> list[np.ndarray]:
        """Squared distances ``||x_n - mu_cj||^2`` of the rows of ``X`` to every class's
        kernels: one array of shape (n_samples, K_c) per class, in the order of ``classes_``.

        :meth:`predict_log_density` and :meth:`underflow_mask` are functions of these
        (:meth:`log_density_from_distances`, :meth:`underflow_from_distances`): a caller that
        needs both computes them once.
        """
        X = check_fitted_input(self, X, attribute="mixtures_")
        X_sq = np.einsum("ij,ij->i", X, X)  # the rows' squared norms, once for every class
        return [mixture._distances(X, X_sq) for mixture in self.mixtures_]

    def underflow_from_distances(self, distances: list[np.ndarray]) -> np.ndarray:
        """:meth:`underflow_mask` from the :meth:`class_distances` of the examples."""
        return underflow_from_distances(self.class_prior_, self.mixtures_, distances)

    def log_density_from_distances(self, distances: list[np.ndarray]) -> np.ndarray:
        """:meth:`predict_log_density` from the :meth:`class_distances` of the examples."""
        # each class's score_samples
        terms = [m._log_prob_from(d) for m, d in zip(self.mixtures_, distances)]
        if len({t.shape[1] for t in terms}) > 1:
            return np.column_stack([logsumexp_rows(t) for t in terms])
        # as many kernels in every class: one call on the classes' rows stacked (a row's result
        # is its own), laid out (n, n_classes) C-contiguous as column_stack's
        return np.ascontiguousarray(logsumexp_rows(np.vstack(terms)).reshape(len(terms), -1).T)

    def predict_log_density(self, X) -> np.ndarray:
        """Class-conditional log densities ``ln p(x_n | c)``, shape (n_samples, n_classes)."""
        return self.log_density_from_distances(self.class_distances(X))

    def _joint_log_likelihood(self, X) -> np.ndarray:
        return self._joint_from(self.class_distances(X))

    def _joint_from(self, distances: list[np.ndarray]) -> np.ndarray:
        """``ln p(x_n | c) + ln P(c)`` from the :meth:`class_distances` of the examples."""
        return self.log_density_from_distances(distances) + np.log(self.class_prior_)

    def proba_from_distances(self, distances: list[np.ndarray]) -> np.ndarray:
        """:meth:`predict_proba` from the :meth:`class_distances` of the examples."""
        return _posterior(self._joint_from(distances))

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posteriors ``ln p(c | x_n)``, shape (n_samples, n_classes)."""
        joint = self._joint_log_likelihood(X)
        return joint - logsumexp_rows(joint, keepdims=True)

    def predict_proba(self, X) -> np.ndarray:
        """Posteriors ``p(c | x_n)`` by Bayes' rule, shape (n_samples, n_classes); rows sum to 1."""
        return _posterior(self._joint_log_likelihood(X))

    def proba_and_unclassifiable(self, X) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`predict_proba` and :meth:`unclassifiable` of ``X``, bit for bit, from one
        evaluation of the joint log likelihoods (the iterative method asks for both)."""
        joint = self._joint_log_likelihood(X)
        posterior = _posterior(joint)
        return posterior, self._unclassifiable(joint, posterior)

    def _unclassifiable(self, joint: np.ndarray, posterior: np.ndarray | None = None) -> np.ndarray:
        posterior = _posterior(joint) if posterior is None else posterior
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

    def error_shares(self, X, y, undecided: np.ndarray | None = None) -> tuple[float, float]:
        """Hard error and unknown error on labelled examples: how well the model labels them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True classes.
        undecided : ndarray of bool of shape (n_samples,), optional
            The examples counted as unknown. None: the model's own decision,
            :meth:`unclassifiable` (top two posteriors within ``margin``; with the default
            ``margin = 0``, exact ties only).

        Returns
        -------
        hard_error : float
            ``mean_n [not u_n and argmax_c p(c | x_n) != y_n]``, ``u`` the undecided mask.
        unknown_error : float
            ``mean_n u_n``. The two are disjoint: ``1 - hard - unknown`` is the share
            classified correctly.
        """
        joint = self._joint_log_likelihood(X)  # once, for the posteriors and the undecided
        posterior = _posterior(joint)
        predicted = self.classes_[posterior.argmax(axis=1)]
        if undecided is None:
            undecided = self._unclassifiable(joint, posterior)
        return float(np.mean(~undecided & (predicted != np.asarray(y)))), float(np.mean(undecided))

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
