"""All-together multi-class SVM of the ensembles-and-SVM notes (VI): the Weston-Watkins problem.

One optimisation problem over the ``c`` decision functions at once, solved in the kernel
(dual) form by the block descent and Newton steps of :mod:`mixlib.svm._all_together_solver`,
with the biases regularised as in Hsu & Lin (2002) so that the dual is bound-constrained.
"""

from __future__ import annotations

import warnings

import numpy as np

from mixlib.core.base import ClassifierMixin
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import resolve_sigma
from mixlib.core.validation import check_sample_weight, check_X_y, encode_labels
from mixlib.svm.svc import KernelMachine, check_svm_params, support_kernel


class AllTogetherSVC(ClassifierMixin, KernelMachine):
    """Multi-class SVM solving one problem for all classes (Weston & Watkins 1999).

    Parameters
    ----------
    C : float, default=1.0
        Cost of each slack variable ``xi_{il}`` (box bound of the dual variables).
    kernel : {"gaussian", "poly", "linear"}, default="gaussian"
    degree : int, default=3
        Degree ``m`` of the polynomial kernel ``(x.y + 1)^m``.
    sigma : float or "scale", default=1.0
        Width of the Gaussian kernel ``exp(-||x - y||^2 / (2 sigma^2))`` (scikit-learn's
        ``gamma = 1 / (2 sigma^2)``). ``"scale"``: ``sqrt(d var(X) / 2)`` of the training
        rows, scikit-learn's ``gamma="scale"`` (:func:`mixlib.core.kernels.scale_sigma`).
    tol : float, default=1e-3
        Stopping tolerance on the largest absolute projected gradient of the dual (a margin
        ``f_{y_i}(x_i) - f_l(x_i) - 1`` of a constraint whose variable can still move).
    max_iter : int or None, default=None
        Maximal block updates and Newton steps (None: 10^7, as :class:`mixlib.svm.SVC`).
    cache_size : float, default=200.0
        MiB for kernel values: the full Gram matrix when it fits, otherwise an LRU cache of
        kernel rows of this size.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Training rows with some ``alpha_{il} > 0``.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_classes, n_SV)
        ``beta_{im}`` over ``support_``: ``f_m(x) = sum_i beta_{im} k(x_i, x) + b_m``.
    intercept_ : ndarray of shape (n_classes,)
        Biases ``b_m = sum_i beta_{im}``.
    alpha_ : ndarray of shape (n_samples, n_classes)
        Dual variables of every training row (``alpha_{i y_i} = 0``).
    dual_objective_ : float
        ``D(alpha)`` (see Notes) at the solution.
    sigma_ : float
        The width the kernel uses: ``sigma``, or its value resolved from the training rows.
    n_iter_ : int
        Block updates and Newton steps of the solver.

    Notes
    -----
    The notes' problem, with slacks (labels ``y_i`` in ``1..c``, feature map ``phi``), is

        min_{w, b, xi} 1/2 sum_m ||w_m||^2 + C sum_i w_i sum_{l != y_i} xi_{il}
        s.t. (w_{y_i} - w_l)' phi(x_i) + b_{y_i} - b_l >= 1 - xi_{il},  xi_{il} >= 0,

    for every ``i`` and ``l != y_i`` (``w_i`` the sample weights). Its dual keeps one equality
    constraint per class (``sum_i beta_{im} = 0``). As in Hsu & Lin (2002, "A comparison of
    methods for multiclass support vector machines", IEEE TNN 13(2), section 3), the primal
    here also contains ``1/2 sum_m b_m^2``: the biases are regularised, not the notes' exact
    ones. The dual is then bound-constrained:

        min_alpha D(alpha) = 1/2 sum_m sum_{i,j} beta_{im} beta_{jm} (k(x_i, x_j) + 1)
                             - sum_{i, l != y_i} alpha_{il},
        0 <= alpha_{il} <= C w_i,  alpha_{i y_i} = 0,
        beta_{im} = [y_i = m] sum_l alpha_{il} - alpha_{im},

    and ``w_m = sum_i beta_{im} phi(x_i)``, ``b_m = sum_i beta_{im}``. (Hsu & Lin, like
    Weston & Watkins, write the margin 2 instead of 1: the same problem with ``C`` halved and
    ``w, b`` doubled, so the same classifier as ``C / 2`` here.) It is solved by greedy block
    coordinate descent, one training row's variables at a time, with primal-dual active-set
    Newton steps on the free variables once they cost less than the rest of the descent
    (:func:`mixlib.svm._all_together_solver.all_together_solve`); where a Newton step lands
    the solution is the exact optimum, not only one within ``tol``. The prediction is
    ``argmax_m f_m(x)``; ties go to the lowest class. The regularised biases stay close to
    the exact ones on the small problems of the tests: the notes' primal objective at this
    ``(w, b)`` is within 0.05 % of its optimum (``tests/test_svm_all_together.py``).
    """

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> "AllTogetherSVC":
        """Fit the classifier.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
            Class labels (at least two distinct values).
        sample_weight : ndarray of shape (n_samples,), optional
            Per-sample multipliers of ``C`` (weight 2 is the same as a duplicated row).
        """
        # numba (the compiled descent): loaded by the processes that fit
        from mixlib.svm._all_together_solver import all_together_fit

        X, y = check_X_y(X, y)
        self.sigma_ = resolve_sigma(self.kernel, self.degree, self.sigma, X)
        max_iter = check_svm_params(self.C, self.tol, self.max_iter, self.cache_size)
        weight = check_sample_weight(sample_weight, X.shape[0])
        self.classes_, y_index = encode_labels(y, min_classes=2)
        self.n_features_in_ = X.shape[1]
        n_classes = len(self.classes_)
        result = all_together_fit(X, y_index, self.C * weight, n_classes, kernel=self.kernel,
                                  degree=self.degree, sigma=self.sigma_,
                                  cache_size=self.cache_size, tol=self.tol, max_iter=max_iter)
        if not result.converged:
            warnings.warn(
                f"The all-together solver reached max_iter={max_iter} before the KKT "
                f"tolerance {self.tol} (largest violation {result.max_violation:.3g}); "
                "increase max_iter.", ConvergenceWarning)
        self.support_ = np.flatnonzero((result.alpha > 0.0).any(axis=1))
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = result.beta[self.support_].T.copy()
        self.intercept_ = result.beta.sum(axis=0)
        self.alpha_ = result.alpha
        self.dual_objective_ = result.objective
        self.n_iter_ = result.n_iter
        return self

    def _class_values(self, X: np.ndarray) -> np.ndarray:
        """``f_m(x)`` of every class, shape (n_samples, n_classes)."""
        _, K = support_kernel(self, X)
        return K @ self.dual_coef_.T + self.intercept_

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Decision values ``f_m(x) = sum_i beta_{im} k(x_i, x) + b_m`` of every class.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Column ``m`` for ``classes_[m]``; for two classes, shape (n_samples,):
            ``f_2(x) - f_1(x)``, positive for ``classes_[1]`` (scikit-learn's shape).
        """
        return self._binary_decision(self._class_values(X))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class labels ``classes_[argmax_m f_m(x)]``, shape (n_samples,).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        """
        values = self._class_values(X)  # checks first that the model is fitted
        return self.classes_[values.argmax(axis=1)]
