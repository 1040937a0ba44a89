"""Support vector data description: the smallest ball enclosing the data in feature space
(ensembles-and-SVM notes, part V), solved in the dual by SMO.
"""

from __future__ import annotations

import warnings

import numpy as np

from mixlib.svm._smo import kernel_rows, smo_solve
from mixlib.core.validation import check_array, check_sample_weight
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import kernel_diagonal, resolve_sigma
from mixlib.svm.svc import KernelMachine, check_svm_params, support_kernel


class SVDD(KernelMachine):
    """Support vector data description (one-class detector).

    Parameters
    ----------
    C : float, default=0.1
        Cost of the slacks; feasibility needs ``C >= 1 / n_samples`` (``C >= 1`` gives the
        hard minimum enclosing ball). The fraction of rows outside the ball is at most
        ``1 / (n C)``.
    kernel : {"gaussian", "poly", "linear"}, default="gaussian"
    degree, sigma
        Kernel parameters, as in :class:`mixlib.svm.svc.SVC` (``sigma="scale"`` too).
    tol : float, default=1e-3
        KKT tolerance of SMO.
    max_iter : int or None, default=None
        Maximal SMO pair updates (None: 10^7).
    cache_size : float, default=200.0
        MiB for kernel values (full Gram matrix or LRU row cache).

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Training rows with ``alpha_i > 0``.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_SV,)
        Their ``alpha_i`` (summing to 1).
    center_sq_norm_ : float
        ``||c||^2 = alpha' G alpha``.
    radius_ : float
        ``R``.
    offset_ : float
        ``rho = alpha' G alpha - R^2`` (the notes' ``mu = -rho``).
    dual_objective_ : float
        ``alpha' G alpha - alpha' diag G`` at the solution.
    n_iter_ : int
    sigma_ : float
        The width the kernel uses: ``sigma``, or its value resolved from the training rows.

    Notes
    -----
    Primal: ``min R^2 + C sum_i xi_i`` s.t. ``||phi(x_i) - c||^2 <= R^2 + xi_i``, ``xi_i >= 0``.
    Dual (notes): ``min_alpha alpha' G alpha - alpha' diag G`` s.t. ``alpha' e = 1``,
    ``0 <= alpha_i <= C w_i`` with ``G_ij = k(x_i, x_j)``; centre
    ``c = sum_i alpha_i phi(x_i)``. ``R^2 = ||phi(x_s) - c||^2`` averaged over the free
    support vectors ``0 < alpha_s < C`` (libsvm's rule without free ones). The notes'
    decision ``f(x) = ||phi(x) - c||^2 - R^2 = k(x, x) - 2 sum_i alpha_i k(x, x_i) + rho``
    is positive outside the ball; :meth:`decision_function` returns ``-f`` so that, as
    scikit-learn's ``OneClassSVM``, positive means inlier. For a Gaussian kernel
    (``k(x, x) = 1``) the dual is that of ``OneClassSVM`` with ``nu = 1 / (n C)`` and
    ``gamma = 1 / (2 sigma^2)``, whose decision is ``decision_function / (2 C)``.
    """

    def __init__(self, C: float = 0.1, kernel: str = "gaussian", degree: int = 3,
                 sigma: float | str = 1.0, tol: float = 1e-3, max_iter: int | None = None,
                 cache_size: float = 200.0) -> None:
        super().__init__(C, kernel, degree, sigma, tol, max_iter, cache_size)

    def fit(self, X: np.ndarray, y: None = None, sample_weight: np.ndarray | None = None) -> "SVDD":
        """Fit the ball to the rows of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        y : ignored
        sample_weight : ndarray of shape (n_samples,), optional
            Per-sample multipliers of ``C``.
        """
        X = check_array(X)
        self.sigma_ = resolve_sigma(self.kernel, self.degree, self.sigma, X)
        max_iter = check_svm_params(self.C, self.tol, self.max_iter, self.cache_size)
        upper = self.C * check_sample_weight(sample_weight, X.shape[0])
        if upper.sum() < 1.0:
            raise ValueError(f"C={self.C} is too small: the dual needs sum_i C w_i >= 1 "
                             f"(C >= 1/n = {1 / X.shape[0]:.4g} without weights).")
        # feasible start as libsvm's one-class solver: fill the first rows up to their bound
        alpha = np.minimum(upper, np.maximum(1.0 - (np.cumsum(upper) - upper), 0.0))
        get_row, diag = kernel_rows(X, kernel=self.kernel, degree=self.degree,
                                    sigma=self.sigma_, cache_size=self.cache_size)
        result = smo_solve(get_row, diag, -diag, np.ones(X.shape[0]), upper, alpha, scale=2.0,
                           tol=self.tol, max_iter=max_iter)
        if not result.converged:
            warnings.warn(f"SMO reached max_iter={max_iter} before the KKT tolerance "
                          f"{self.tol}; increase max_iter.", ConvergenceWarning)
        alpha = result.alpha
        # G = 2 K alpha - diag K, so alpha'K alpha = alpha'(G + diag K) / 2
        self.center_sq_norm_ = float(alpha @ (result.yG + diag)) / 2.0
        self.offset_ = result.rho
        self.radius_ = float(np.sqrt(max(self.center_sq_norm_ - result.rho, 0.0)))
        self.dual_objective_ = result.objective
        self.n_iter_ = result.n_iter
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = alpha[self.support_]
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """``R^2 - ||phi(x) - c||^2``: positive inside the ball, shape (n_samples,).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        """
        X, K = support_kernel(self, X)
        self_k = kernel_diagonal(X, kernel=self.kernel, degree=self.degree, sigma=self.sigma_)
        return 2.0 * (K @ self.dual_coef_) - self_k - self.offset_

    def predict(self, X: np.ndarray) -> np.ndarray:
        """+1 inside the ball (inlier), -1 outside, shape (n_samples,).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        """
        return np.where(self.decision_function(X) >= 0, 1, -1)
