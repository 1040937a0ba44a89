"""Missing-value imputation: the report's kernel-mode imputer (ch. 4) and two baselines.

Every imputer learns one substitute value per feature, and (class-conditional imputers) one
per feature and class, on the training rows only; ``transform`` then fills the NaN of any rows.
Rows of known class use their class's values; rows of unknown class (unlabelled or test rows)
use the value learned on all training rows regardless of class, so no test label leaks in.

Unknown labels: pass ``y=None`` (every row unknown), or put ``None`` (object arrays) or NaN
(float arrays) in ``y`` for the rows whose class is unknown. Those rows still count in the
class-free values learned by ``fit``.
"""

from __future__ import annotations

import warnings

import numpy as np

from mixlib.core.base import BaseEstimator
from mixlib.core.validation import (
    check_array,
    check_float,
    check_int,
    check_is_fitted,
    check_random_state,
    reject_extra_arguments,
)
from mixlib.mixture import fit_capped_mixture, variance_floor
from mixlib.mixture.initialisation import (
    DEFAULT_INIT, DEFAULT_MAX_ITER, DEFAULT_MIN_VARIANCE, DEFAULT_TOL,
)


def _known_mask(y, n_samples: int) -> np.ndarray:
    """True for the rows whose label in ``y`` is known (not None, not NaN); shape (n_samples,)."""
    if y is None:
        return np.zeros(n_samples, dtype=bool)
    y = np.asarray(y)
    if y.shape != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},), got {y.shape}.")
    if y.dtype.kind == "f":
        return ~np.isnan(y)
    if y.dtype == object:
        return np.array([not (v is None or (isinstance(v, float) and np.isnan(v))) for v in y], dtype=bool)
    return np.ones(n_samples, dtype=bool)


class _Imputer(BaseEstimator):
    """Shared fit/transform; subclasses give the substitute of one column of observed values."""

    _class_conditional = True

    def _substitute(self, values: np.ndarray, rng: np.random.Generator, where: str,
                    feature: int) -> tuple[float, int]:
        """Substitute for feature ``feature`` from its observed ``values`` (n_observed,), and
        the K used.

        ``where`` names the feature (and class) for messages.
        """
        raise NotImplementedError

    def _prepare(self, X: np.ndarray) -> None:
        """Validate the parameters before fitting on ``X`` (nothing to do by default)."""

    def fit(self, X, y=None, **unsupported) -> "_Imputer":
        """Learn the substitute values from the training rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows, NaN where a value is missing.
        y : array-like of shape (n_samples,), optional
            Class labels; None/NaN entries mark rows of unknown class.

        Raises
        ------
        TypeError
            For any other argument (``sample_weight``...), naming the imputer's class.
        """
        reject_extra_arguments(self, "fit", unsupported, "X and y only")
        X = check_array(X, allow_nan=True)
        self._prepare(X)
        rng = check_random_state(getattr(self, "random_state", None))
        known = _known_mask(y, X.shape[0]) if self._class_conditional else np.zeros(len(X), bool)
        observed = ~np.isnan(X)
        empty = np.nonzero(~observed.any(axis=0))[0]
        if len(empty):
            raise ValueError(
                f"features {empty.tolist()} have no observed value in the training rows: "
                "nothing to impute them from."
            )
        self.n_features_in_ = X.shape[1]
        columns = [
            self._substitute(X[observed[:, j], j], rng, f"feature {j} (all classes)", j)
            for j in range(X.shape[1])
        ]
        self.global_statistics_ = np.array([value for value, _ in columns])
        self.global_n_components_ = np.array([k for _, k in columns])

        labels = np.asarray(y)[known] if known.any() else np.array([])
        self.classes_ = np.unique(labels)
        self.statistics_ = np.tile(self.global_statistics_, (len(self.classes_), 1))
        self.n_components_ = np.zeros((len(self.classes_), X.shape[1]), dtype=int)
        fallback = []
        for c, label in enumerate(self.classes_):
            rows = X[known][labels == label]
            for j in range(X.shape[1]):
                values = rows[~np.isnan(rows[:, j]), j]
                if len(values) == 0:
                    fallback.append((label, j))
                    continue
                self.statistics_[c, j], self.n_components_[c, j] = self._substitute(
                    values, rng, f"feature {j} in class {label}", j
                )
        if fallback:
            warnings.warn(
                f"(class, feature) pairs {fallback[:10]} have no observed value; their rows "
                "use the value learned on all training rows.",
                UserWarning,
                stacklevel=2,
            )
        return self

    def transform(self, X, y=None) -> np.ndarray:
        """Return a copy of ``X`` with every NaN replaced.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Labels of the rows; rows of known class take their class's value, the others
            (``y=None``, or None/NaN entries) the class-free value. Class-free imputers
            ignore ``y``.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self, "global_statistics_")
        X = check_array(X, allow_nan=True).copy()
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with "
                f"{self.n_features_in_}."
            )
        fill = np.broadcast_to(self.global_statistics_, X.shape).copy()
        known = _known_mask(y, X.shape[0]) if self._class_conditional else np.zeros(len(X), bool)
        if known.any():
            labels = np.asarray(y)[known]
            unseen = np.setdiff1d(labels, self.classes_)
            if len(unseen):
                raise ValueError(
                    f"y holds classes {unseen.tolist()} not seen in fit (classes "
                    f"{self.classes_.tolist()}); mark unknown classes with None or NaN."
                )
            fill[known] = self.statistics_[np.searchsorted(self.classes_, labels)]
        missing = np.isnan(X)
        X[missing] = fill[missing]
        return X

    def fit_transform(self, X, y=None) -> np.ndarray:
        """``fit(X, y)`` then ``transform(X, y)``."""
        return self.fit(X, y).transform(X, y)


class MeanImputer(_Imputer):
    """Replace a missing value by the mean of the feature's observed training values (y ignored).

    Attributes
    ----------
    global_statistics_ : ndarray of shape (n_features,)
        The substitute of every feature.
    """

    _class_conditional = False

    def __init__(self) -> None:
        pass

    def _substitute(self, values, rng, where, feature):
        return float(values.mean()), 1


class ClassMeanImputer(_Imputer):
    """Replace a missing value by the mean of the feature's observed values in the row's class.

    Rows of unknown class take the mean over all training rows.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    statistics_ : ndarray of shape (n_classes, n_features)
        Class means (the class-free mean when a class has no observed value of a feature).
    global_statistics_ : ndarray of shape (n_features,)
    """

    def __init__(self) -> None:
        pass

    def _substitute(self, values, rng, where, feature):
        return float(values.mean()), 1


class KernelModeImputer(_Imputer):
    """The report's imputer (ch. 4): the centre of the heaviest kernel of a 1-d mixture.

    For every feature ``i`` and class ``k`` a univariate Gaussian mixture (4.1)
    ``p(x_i | k) = sum_j p_j N(mu_j, sigma_j, x_i)`` is fit by EM
    (:class:`mixlib.mixture.IsotropicGaussianMixture` with ``d = 1``) on the observed values of
    the feature in the training rows of the class (rows missing other features still count).
    The substitute is ``mu_j`` of the kernel of largest ``p_j`` (the first on ties); with
    ``K = 1`` it is the class mean. Rows of unknown class use a mixture fit on all training rows.

    Parameters
    ----------
    n_components : int, default=2
        Kernels per univariate mixture (the report uses 2 to 4). Where a class has fewer
        distinct observed values of a feature than ``n_components``, that mixture uses as many
        kernels as there are distinct values and a ``UserWarning`` is raised; the number used
        is recorded in ``n_components_`` / ``global_n_components_``.
    init, tol, max_iter, min_variance :
        Passed to :class:`~mixlib.mixture.IsotropicGaussianMixture` (``min_variance`` is in
        squared units of the feature).
    relative_min_variance : float or None, default=None
        If set, the variance floor of every mixture of feature ``i`` is
        ``relative_min_variance * var_i``, ``var_i`` the variance of the feature's observed
        training values (all classes), instead of ``min_variance`` (which is used only for a
        feature whose observed values are all equal). The same reading as
        :class:`~mixlib.mixture.MixtureClassifier`'s, so one ``em`` section serves both.
    random_state : None, int or numpy.random.Generator, default=None
        One generator drives all initialisations (features in order, class-free first).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    statistics_ : ndarray of shape (n_classes, n_features)
    n_components_ : ndarray of int of shape (n_classes, n_features)
        Kernels used per class and feature (0 where the class-free value was used).
    global_statistics_ : ndarray of shape (n_features,)
    global_n_components_ : ndarray of int of shape (n_features,)
    feature_floors_ : ndarray of shape (n_features,)
        The variance floor of every mixture of each feature.
    """

    def __init__(self, n_components: int = 2, *, init: str = DEFAULT_INIT,
                 tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER,
                 min_variance: float = DEFAULT_MIN_VARIANCE,
                 relative_min_variance: float | None = None, random_state=None) -> None:
        self.n_components = n_components
        self.init = init
        self.tol = tol
        self.max_iter = max_iter
        self.min_variance = min_variance
        self.relative_min_variance = relative_min_variance
        self.random_state = random_state

    def _prepare(self, X: np.ndarray) -> None:
        check_int(self.n_components, "n_components", min_value=1)
        check_float(self.relative_min_variance, "relative_min_variance", low=0,
                    closed="neither", allow_none=True)
        self.feature_floors_ = np.array([
            variance_floor(column[~np.isnan(column), None], np.ones(int((~np.isnan(column)).sum())),
                           self.min_variance, self.relative_min_variance)
            if (~np.isnan(column)).any() else float(self.min_variance)
            for column in X.T
        ])

    def _substitute(self, values, rng, where, feature):
        mixture, k = fit_capped_mixture(
            values[:, None], None, self.n_components, rng, where, "observed value(s)",
            stacklevel=4, init=self.init, tol=self.tol, max_iter=self.max_iter,
            min_variance=self.feature_floors_[feature],
        )
        return float(mixture.means_[np.argmax(mixture.weights_), 0]), k
