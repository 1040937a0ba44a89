"""Soft-margin support vector classifier (C-SVM) solved in the dual by SMO (ensembles-and-SVM notes, III, VI).

Binary problems are solved by :func:`mixlib.svm._smo.smo_solve`; several classes are handled by
one-vs-one voting or one-vs-all (the notes' table of part VI).
"""

from __future__ import annotations

import warnings

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.svm._smo import SMOResult, kernel_rows, smo_solve
from mixlib.core.validation import (
    check_choice,
    check_fitted_input,
    check_float,
    check_int,
    check_sample_weight,
    check_X_y,
    encode_labels,
)
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import kernel_matrix, resolve_sigma


def check_svm_params(C: float, tol: float, max_iter: int | None, cache_size: float) -> int:
    """Validate the solver parameters shared by SVC, SVDD and MKL; return ``max_iter``."""
    check_float(C, "C", low=0, closed="neither")
    check_float(tol, "tol", low=0, closed="neither", finite=False)
    check_float(cache_size, "cache_size", low=0, closed="neither", finite=False)
    max_iter = check_int(max_iter, "max_iter", min_value=1, allow_none=True)
    return 10_000_000 if max_iter is None else max_iter


class KernelMachine(BaseEstimator):
    """The parameters of a kernel machine solved by a dual method: the slack cost ``C``, the
    kernel (``kernel``, ``degree``, ``sigma``) and the solver's ``tol``, ``max_iter`` and
    ``cache_size``, as :class:`SVC` documents them. :class:`SVC`, :class:`~mixlib.svm.AllTogetherSVC`
    and :class:`~mixlib.svm.SVDD` derive from it (each documents its own reading of ``C`` and
    ``tol``)."""

    def __init__(self, C: float = 1.0, kernel: str = "gaussian", degree: int = 3,
                 sigma: float | str = 1.0, tol: float = 1e-3, max_iter: int | None = None,
                 cache_size: float = 200.0) -> None:
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.sigma = sigma
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size


class SVC(ClassifierMixin, KernelMachine):
    """C-support vector classifier with linear, polynomial or Gaussian kernel.

    Parameters
    ----------
    C : float, default=1.0
        Cost of the slack variables (box bound of the dual variables).
    kernel : {"gaussian", "poly", "linear"}, default="gaussian"
    degree : int, default=3
        Degree ``m`` of the polynomial kernel ``(x.y + 1)^m``.
    sigma : float or "scale", default=1.0
        Width of the Gaussian kernel ``exp(-||x - y||^2 / (2 sigma^2))`` (scikit-learn's
        ``gamma = 1 / (2 sigma^2)``). ``"scale"``: ``sqrt(d var(X) / 2)`` of the training
        rows, scikit-learn's ``gamma="scale"`` (:func:`mixlib.core.kernels.scale_sigma`).
    tol : float, default=1e-3
        KKT tolerance of SMO (libsvm's ``eps``).
    max_iter : int or None, default=None
        Maximal SMO pair updates per binary problem (None: 10^7, as libsvm).
    cache_size : float, default=200.0
        MiB for kernel values: the full Gram matrix of a binary problem when it fits,
        otherwise an LRU cache of kernel rows of this size.
    multiclass : {"ovo", "ova"}, default="ovo"
        One-vs-one with voting (ties go to the lowest class, unless ``break_ties``), or
        one-vs-all (largest decision value wins).
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        What :meth:`decision_function` returns for three classes or more under one-vs-one:
        one column per class (``"ovr"``, scikit-learn's default: votes plus confidences, see
        :func:`ovr_decision`), or the decision value of every binary problem (``"ovo"``).
    break_ties : bool, default=False
        One-vs-one with three classes or more: if True, :meth:`predict` returns the argmax of
        the ``"ovr"`` decision function, so that a tie in votes goes to the class of largest
        summed confidence; if False, to the lowest class index (libsvm's rule, the notes').
        Either way the argmax of the ``"ovr"`` decision function and :meth:`predict` agree
        on every row without a tie in votes (as in scikit-learn).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    problems_ : list of (int, int)
        Per binary problem, the indices into ``classes_`` of its +1 and -1 classes (-1 for
        "all other classes" in one-vs-all). Binary: ``[(1, 0)]``; one-vs-one: ``(a, b)``
        for ``a < b`` in lexicographic order (as libsvm); one-vs-all: ``(k, -1)``.
    support_ : ndarray of shape (n_SV,)
        Indices of the training rows that are support vectors of at least one problem.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        ``alpha_i y_i`` of each problem over ``support_`` (0 where a row is not a support
        vector of that problem).
    intercept_ : ndarray of shape (n_problems,)
        Biases ``b = -rho``.
    dual_objective_ : ndarray of shape (n_problems,)
        ``1/2 alpha' G alpha - e' alpha`` at the solution of each problem.
    sigma_ : float
        The width the kernel uses: ``sigma``, or its value resolved from the training rows.
    n_iter_ : ndarray of shape (n_problems,)
        SMO pair updates per problem.
    n_features_in_ : int

    Notes
    -----
    Each binary problem with labels ``y_i = +/-1`` solves the dual of the notes,

        min_alpha 1/2 alpha' G alpha - e' alpha,  G_ij = y_i y_j k(x_i, x_j),
        0 <= alpha_i <= C w_i,  alpha' y = 0,

    (``w_i`` the sample weights) and decides with ``f(x) = sum_i alpha_i y_i k(x_i, x) + b``.
    With the dual gradient ``g = G alpha - e``, every free support vector
    (``0 < alpha_i < C w_i``, so ``y_i f(x_i) = 1``) gives ``b = -y_i g_i``; the bias is their
    mean. Without free vectors it is the midpoint of the interval of ``b`` allowed by the KKT
    conditions of the bounded ones (libsvm's rule). For two classes, ``f > 0`` predicts ``classes_[1]`` (as scikit-learn).
    ``predict_proba`` is not provided (it would need Platt scaling, outside the notes).

    sklearn check not passed: check_sample_weight_equivalence_on_dense_data — a weight w
    multiplies the row's C, which is the primal objective of the row repeated w times, but
    SMO stops at the KKT tolerance tol=1e-3: the weighted and the repeated fits agree to
    about 1e-3, not to the check's 1e-7 (at tol=1e-9 they agree).
    """

    def __init__(self, C: float = 1.0, kernel: str = "gaussian", degree: int = 3,
                 sigma: float | str = 1.0, tol: float = 1e-3, max_iter: int | None = None,
                 cache_size: float = 200.0, multiclass: str = "ovo",
                 decision_function_shape: str = "ovr", break_ties: bool = False) -> None:
        super().__init__(C=C, kernel=kernel, degree=degree, sigma=sigma, tol=tol,
                         max_iter=max_iter, cache_size=cache_size)
        self.multiclass = multiclass
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "SVC":
        """Fit the classifier.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
            Class labels (at least two distinct values).
        sample_weight : ndarray of shape (n_samples,), optional
            Per-sample multipliers of ``C``.
        """
        X, y = check_X_y(X, y)
        self.sigma_ = resolve_sigma(self.kernel, self.degree, self.sigma, X)
        max_iter = check_svm_params(self.C, self.tol, self.max_iter, self.cache_size)
        check_choice(self.multiclass, "multiclass", ("ovo", "ova"))
        check_choice(self.decision_function_shape, "decision_function_shape", ("ovr", "ovo"))
        check_choice(self.break_ties, "break_ties", (False, True))
        weight = check_sample_weight(sample_weight, X.shape[0])
        self.classes_, y_index = encode_labels(y, min_classes=2)
        self.n_features_in_ = X.shape[1]
        n_classes = len(self.classes_)
        problems = binary_problems(n_classes, self.multiclass)

        gram = self._shared_gram(X, len(problems))
        subsets, results = [], []
        for k, (pos, neg) in enumerate(problems):
            rows, signs = problem_rows(y_index, pos, neg)
            get_row, diag = self._problem_kernel(X, rows, gram)
            result = smo_solve(get_row, diag, -np.ones(len(rows)), signs, self.C * weight[rows],
                               np.zeros(len(rows)), tol=self.tol, max_iter=max_iter)
            subsets.append((rows, signs))
            results.append(result)
            if not result.converged:
                warnings.warn(
                    f"SMO reached max_iter={max_iter} on problem {k} "
                    f"(classes {self.classes_[pos]!r} vs "
                    f"{'rest' if neg < 0 else repr(self.classes_[neg])}) before the KKT "
                    f"tolerance {self.tol}; increase max_iter.", ConvergenceWarning)
        self.problems_ = problems
        self.support_, self.dual_coef_, self.intercept_ = dual_coefficients(
            X.shape[0], subsets, results)
        self.support_vectors_ = X[self.support_]
        self.dual_objective_ = np.array([result.objective for result in results])
        self.n_iter_ = np.array([result.n_iter for result in results], dtype=int)
        return self

    def _shared_gram(self, X: np.ndarray, n_problems: int) -> np.ndarray | None:
        """The Gram matrix of all training rows, computed once for every binary problem, when
        there are several problems and it fits in ``cache_size`` MiB (else None).

        One-vs-one problems each need the block of their two classes' rows, one-vs-all
        problems all of it: one Gram matrix costs fewer kernel evaluations than one per
        problem (``n^2`` against ``sum_k n_k^2``, ``c n^2`` for one-vs-all). An entry depends
        only on its two rows, so every problem gets the values it would compute itself.
        """
        n = X.shape[0]
        if n_problems < 2 or 8.0 * n * n > self.cache_size * 2**20:
            return None
        return kernel_matrix(X, kernel=self.kernel, degree=self.degree, sigma=self.sigma_)

    def _problem_kernel(self, X: np.ndarray, rows: np.ndarray, gram: np.ndarray | None):
        """Row access to the kernel matrix of a binary problem's ``rows`` and its diagonal: a
        block of the shared Gram matrix when there is one (:meth:`_shared_gram`), else
        :func:`~mixlib.svm._smo.kernel_rows` of those rows."""
        if gram is None:
            return kernel_rows(X[rows], kernel=self.kernel, degree=self.degree,
                               sigma=self.sigma_, cache_size=self.cache_size)
        block = gram_block(gram, rows)
        return block.__getitem__, np.ascontiguousarray(np.diagonal(block))

    def _decision_matrix(self, X: np.ndarray) -> np.ndarray:
        _, K = support_kernel(self, X)
        return K @ self.dual_coef_.T + self.intercept_

    def _ovo_classes(self) -> bool:
        """Whether the problems are one-vs-one between three classes or more."""
        return len(self.classes_) > 2 and self.problems_[0][1] != -1

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Decision values built on ``f(x) = sum_i alpha_i y_i k(x_i, x) + b`` of every problem.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray
            Two classes: shape (n_samples,), ``f(x)`` (positive: ``classes_[1]``).
            One-vs-all: shape (n_samples, n_classes), ``f_k(x)`` (positive for class k).
            One-vs-one: with ``decision_function_shape="ovr"``, shape (n_samples, n_classes),
            the votes of each class plus its summed confidence squashed into (-1/3, 1/3)
            (:func:`ovr_decision`); with ``"ovo"``, shape (n_samples, n_problems), ``f(x)``
            in the order of ``problems_`` (positive votes for the first class of the pair,
            as libsvm).
        """
        values = self._decision_matrix(X)
        if len(self.classes_) == 2:
            return values[:, 0]
        if self._ovo_classes() and self.decision_function_shape == "ovr":
            return ovr_decision(values, self.problems_, len(self.classes_))
        return values

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class labels, shape (n_samples,).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        """
        values = self._decision_matrix(X)
        if self.break_ties and self._ovo_classes():
            scores = ovr_decision(values, self.problems_, len(self.classes_))
            return self.classes_[scores.argmax(axis=1)]
        return vote(values, self.problems_, self.classes_)


def support_kernel(estimator: BaseEstimator, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate ``X`` for a fitted kernel machine and compute its kernel with the support vectors.

    Shared by the prediction methods of :class:`SVC` and :class:`mixlib.svm.svdd.SVDD`.

    Parameters
    ----------
    estimator : fitted SVC or SVDD
        Supplies ``support_vectors_`` (n_SV, n_features) and ``kernel``, ``degree``, ``sigma_``.
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Validated.
    K : ndarray of shape (n_samples, n_SV)
        ``K_ij = k(x_i, sv_j)``.
    """
    X = check_fitted_input(estimator, X, attribute="dual_coef_")
    K = kernel_matrix(X, estimator.support_vectors_, kernel=estimator.kernel,
                      degree=estimator.degree, sigma=estimator.sigma_)
    return X, K


def gram_block(gram: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``gram[rows][:, rows]`` as a C-contiguous array (``gram`` itself when ``rows`` takes
    every row in order).

    The rows are copied whole, then their columns taken: half the time of ``np.ix_``'s
    two-axis gather on a one-vs-one block of the study's 1000-row Gram matrices.
    """
    if len(rows) == gram.shape[0] and (rows == np.arange(len(rows))).all():
        return gram
    return np.take(gram[rows], rows, axis=1)


def problem_rows(y_index: np.ndarray, pos: int, neg: int) -> tuple[np.ndarray, np.ndarray]:
    """Training rows of the binary problem ``(pos, neg)`` and their labels ``+/-1``.

    Parameters
    ----------
    y_index : ndarray of int of shape (n_samples,)
        Class index of every training row.
    pos, neg : int
        Class indices of the +1 and -1 classes (``neg = -1``: all other classes), as in
        :func:`binary_problems`.

    Returns
    -------
    rows : ndarray of int of shape (n_rows,)
        Indices of the rows of the two classes (every row for one-vs-all), increasing.
    signs : ndarray of shape (n_rows,)
        ``+1.0`` for the rows of class ``pos``, ``-1.0`` for the others.
    """
    rows = np.flatnonzero((y_index == pos) | (y_index == neg)) if neg >= 0 else \
        np.arange(y_index.shape[0])
    return rows, np.where(y_index[rows] == pos, 1.0, -1.0)


def dual_coefficients(
    n_samples: int, subsets: list[tuple[np.ndarray, np.ndarray]], results: list[SMOResult]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Support vectors, dual coefficients and biases from the solutions of binary problems.

    Shared by :class:`SVC` and :class:`mixlib.svm.mkl.MKLSVC`.

    Parameters
    ----------
    n_samples : int
        Training rows.
    subsets : list of (rows, signs)
        Per problem, the output of :func:`problem_rows`.
    results : list of SMOResult
        Per problem, the SMO solution on those rows.

    Returns
    -------
    support : ndarray of int of shape (n_SV,)
        Rows with ``alpha_i > 0`` in at least one problem.
    dual_coef : ndarray of shape (n_problems, n_SV)
        ``alpha_i y_i`` of each problem over ``support`` (0 where a row is not a support
        vector of that problem).
    intercept : ndarray of shape (n_problems,)
        Biases ``b = -rho``.
    """
    coefs = np.zeros((len(results), n_samples))
    for k, ((rows, signs), result) in enumerate(zip(subsets, results)):
        coefs[k, rows] = result.alpha * signs
    support = np.flatnonzero((coefs != 0).any(axis=0))
    intercept = np.array([-result.rho for result in results], dtype=float)
    return support, coefs[:, support], intercept


def binary_problems(n_classes: int, multiclass: str = "ovo") -> list[tuple[int, int]]:
    """The binary problems ``(positive class, negative class or -1 for the rest)``.

    Two classes: ``[(1, 0)]``; one-vs-one: ``(a, b)`` for ``a < b``; one-vs-all: ``(k, -1)``.
    """
    if n_classes == 2:
        return [(1, 0)]
    if multiclass == "ovo":
        return [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
    return [(k, -1) for k in range(n_classes)]


def vote(values: np.ndarray, problems: list[tuple[int, int]], classes: np.ndarray) -> np.ndarray:
    """Class labels from the decision values of binary problems.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_problems)
    problems : list of (int, int)
        As returned by :func:`binary_problems`.
    classes : ndarray of shape (n_classes,)

    Returns
    -------
    ndarray of shape (n_samples,)
        One-vs-all: the class of largest decision value. Otherwise each problem votes for its
        positive class when its value is > 0, else for its negative class; the most votes win,
        ties going to the lowest class index (as libsvm).
    """
    if problems[0][1] == -1:
        return classes[values.argmax(axis=1)]
    return classes[ovo_votes(values, problems, len(classes)).argmax(axis=1)]


def ovo_votes(values: np.ndarray, problems: list[tuple[int, int]], n_classes: int) -> np.ndarray:
    """Votes of one-vs-one problems, shape (n_samples, n_classes).

    Problem ``(a, b)`` votes for ``a`` where its decision value is > 0, else for ``b``.
    """
    votes = np.zeros((values.shape[0], n_classes), dtype=int)
    rows = np.arange(values.shape[0])
    for k, (pos, neg) in enumerate(problems):
        votes[rows, np.where(values[:, k] > 0, pos, neg)] += 1
    return votes


def ovr_decision(values: np.ndarray, problems: list[tuple[int, int]], n_classes: int) -> np.ndarray:
    """One column per class from one-vs-one decision values: votes plus squashed confidence.

    Parameters
    ----------
    values : ndarray of shape (n_samples, n_problems)
        Decision value of every one-vs-one problem ``(a, b)``, positive for ``a``.
    problems : list of (int, int)
    n_classes : int

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        ``votes_c + s_c / (3 (|s_c| + 1))`` with ``s_c`` the sum over the problems of ``c``
        of its decision value taken positive for ``c`` (scikit-learn's transformation for
        ``decision_function_shape="ovr"``). The squashed term lies in (-1/3, 1/3), so
        two classes' terms differ by less than one vote: the argmax is a class with the
        most votes, and among tied classes the one of largest summed confidence.
    """
    confidence = np.zeros((values.shape[0], n_classes))
    for k, (pos, neg) in enumerate(problems):
        confidence[:, pos] += values[:, k]
        confidence[:, neg] -= values[:, k]
    squashed = confidence / (3.0 * (np.abs(confidence) + 1.0))
    return ovo_votes(values, problems, n_classes) + squashed
