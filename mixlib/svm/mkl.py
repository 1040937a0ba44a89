"""Multiple kernel learning by reduced gradient on the simplex (ensembles-and-SVM notes, part VII; SimpleMKL,
Rakotomamonjy, Bach, Canu & Grandvalet 2008).
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Sequence

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.svm._smo import smo_solve
from mixlib.core.validation import (
    check_fitted_input,
    check_float,
    check_int,
    check_X_y,
    encode_labels,
)
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import kernel_matrix, resolve_sigma
from mixlib.svm.svc import (
    binary_problems,
    check_svm_params,
    dual_coefficients,
    ovr_decision,
    problem_rows,
    vote,
)

logger = logging.getLogger(__name__)

DEFAULT_KERNELS = tuple({"kernel": "gaussian", "sigma": s} for s in (0.5, 1.0, 2.0, 5.0, 10.0))
GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


def _check_kernels(kernels: Sequence[dict[str, Any]], X: np.ndarray) -> list[dict[str, Any]]:
    """The kernel specifications, complete, with ``sigma="scale"`` resolved from ``X``."""
    specs = list(kernels)
    if len(specs) < 1:
        raise ValueError("kernels must list at least one kernel.")
    checked = []
    for spec in specs:
        if not isinstance(spec, dict) or set(spec) - {"kernel", "degree", "sigma"}:
            raise ValueError(f"each kernel must be a dict with keys among 'kernel', 'degree', "
                             f"'sigma', got {spec!r}.")
        full = {"kernel": "gaussian", "degree": 3, "sigma": 1.0, **spec}
        full["sigma"] = resolve_sigma(full["kernel"], full["degree"], full["sigma"], X)
        checked.append(full)
    return checked


class MKLSVC(ClassifierMixin, BaseEstimator):
    """SVM on a learned convex combination of kernels ``K = sum_m d_m K_m``.

    Parameters
    ----------
    C : float, default=1.0
    kernels : sequence of dict, default=Gaussian kernels with sigma in (0.5, 1, 2, 5, 10)
        Each ``{"kernel": ..., "sigma": ..., "degree": ...}`` as in :class:`mixlib.svm.svc.SVC`
        (``"sigma": "scale"`` too, resolved from the training rows).
    tol : float, default=1e-5
        KKT tolerance of each inner SMO solve (small, so ``J(d)`` is accurate).
    max_iter : int or None, default=None
        Maximal SMO pair updates per inner solve.
    mkl_max_iter : int, default=50
        Maximal reduced-gradient steps.
    gap_tol : float, default=1e-3
        Stop when the duality gap is below ``gap_tol * J(d)``.
    line_search_steps : int, default=8
        Golden-section evaluations of ``J`` per line search (more, up to 40, while none has
        decreased ``J``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    problems_ : list of (int, int)
        Binary problems (one-vs-one for several classes), see :func:`mixlib.svm.svc.binary_problems`.
    kernel_weights_ : ndarray of shape (n_kernels,)
        ``d``, on the simplex.
    objective_history_ : ndarray of shape (n_steps + 1,)
        ``J(d)`` at the start and after every step (non-increasing).
    weight_history_ : ndarray of shape (n_steps + 1, n_kernels)
    duality_gap_ : float
    n_iter_ : int
        Reduced-gradient steps taken.
    support_, support_vectors_, dual_coef_, intercept_
        As in :class:`mixlib.svm.svc.SVC`, for the final weights.

    Notes
    -----
    With ``G_m = (y_i y_j k_m(x_i, x_j))`` and the optimal dual ``alpha`` of the SVM on
    ``G(d) = sum_m d_m G_m``, the cost to minimise over the simplex is
    ``J(d) = e'alpha - 1/2 alpha' G(d) alpha`` (the SVM's optimal primal value, i.e. minus
    the notes' ``1/2 alpha'G alpha - e'alpha``; summed over the binary problems, which share
    ``d``), with gradient ``dJ/dd_m = -1/2 alpha' G_m alpha``. With ``mu = argmax_m d_m``, the
    reduced-gradient direction is ``D_m = -(dJ/dd_m - dJ/dd_mu)`` for ``m != mu`` (0 if
    ``d_m = 0`` and that value is negative) and ``D_mu = -sum_{m != mu} D_m``, so that
    ``sum_m D_m = 0``. As SimpleMKL, the step first moves to the boundary of the simplex
    while ``J`` decreases (zeroing one weight each time), then a golden-section search along
    ``D`` picks the step; only decreases of ``J`` are accepted, so ``J`` never increases.
    The duality gap is ``J(d) - e'alpha + 1/2 max_m alpha'G_m alpha``.
    """

    def __init__(self, C: float = 1.0, kernels: Sequence[dict[str, Any]] = DEFAULT_KERNELS,
                 tol: float = 1e-5, max_iter: int | None = None, mkl_max_iter: int = 50,
                 gap_tol: float = 1e-3, line_search_steps: int = 8) -> None:
        self.C = C
        self.kernels = kernels
        self.tol = tol
        self.max_iter = max_iter
        self.mkl_max_iter = mkl_max_iter
        self.gap_tol = gap_tol
        self.line_search_steps = line_search_steps

    def fit(self, X: np.ndarray, y: np.ndarray) -> "MKLSVC":
        """Learn the kernel weights and the SVM.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
        """
        X, y = check_X_y(X, y)
        self._max_iter = check_svm_params(self.C, self.tol, self.max_iter, 1.0)
        specs = _check_kernels(self.kernels, X)
        for name in ("mkl_max_iter", "line_search_steps"):
            check_int(getattr(self, name), name, min_value=1)
        check_float(self.gap_tol, "gap_tol", low=0, closed="neither", finite=False)
        self.classes_, y_index = encode_labels(y, min_classes=2)
        self.n_features_in_ = X.shape[1]
        self.problems_ = binary_problems(len(self.classes_), "ovo")
        grams = [kernel_matrix(X, **spec) for spec in specs]
        self._rows, self._signs, self._grams = [], [], []
        for pos, neg in self.problems_:
            rows, signs = problem_rows(y_index, pos, neg)
            self._rows.append(rows)
            self._signs.append(signs)
            self._grams.append([g[np.ix_(rows, rows)] for g in grams])

        M = len(specs)
        d = np.full(M, 1.0 / M)
        J, solutions = self._cost(d, [np.zeros(len(r)) for r in self._rows])
        objectives, weights = [J], [d.copy()]
        converged = False
        for step in range(self.mkl_max_iter):
            grad = self._gradient(solutions)
            alpha_sum = sum(s.alpha.sum() for s in solutions)
            # 1/2 max_m alpha'G_m alpha = -min_m dJ/dd_m
            self.duality_gap_ = J - alpha_sum - float(grad.min())
            logger.info("MKL step %d: J = %.6g, gap = %.3g, d = %s", step, J,
                        self.duality_gap_, np.round(d, 4))
            if self.duality_gap_ <= self.gap_tol * abs(J):
                converged = True
                break
            d_new, J_new, solutions_new = self._step(d, J, solutions, grad)
            if J_new >= J:
                warnings.warn(f"MKL line search found no decrease of J at step {step} with "
                              f"duality gap {self.duality_gap_:.3g} > gap_tol * J; the inner "
                              f"SMO tolerance tol={self.tol} may be too loose.",
                              ConvergenceWarning)
                converged = True  # stalled: reported above, not as max_iter
                break
            d, J, solutions = d_new, J_new, solutions_new
            objectives.append(J)
            weights.append(d.copy())
        if not converged:
            warnings.warn(f"MKL reached mkl_max_iter={self.mkl_max_iter} with duality gap "
                          f"{self.duality_gap_:.3g} > gap_tol * J = {self.gap_tol * J:.3g}.",
                          ConvergenceWarning)
        self.n_iter_ = len(objectives) - 1
        self.kernel_weights_ = d
        self.objective_history_ = np.array(objectives)
        self.weight_history_ = np.array(weights)
        self._finalise(X, specs, solutions)
        del self._rows, self._signs, self._grams
        return self

    def _cost(self, d: np.ndarray, starts: list[np.ndarray]):
        """``J(d)`` summed over the problems, and their SMO solutions (warm-started)."""
        total, solutions = 0.0, []
        for signs, grams, start in zip(self._signs, self._grams, starts):
            gram = sum(w * g for w, g in zip(d, grams) if w > 0)
            result = smo_solve(gram.__getitem__, np.ascontiguousarray(np.diagonal(gram)),
                               -np.ones(len(signs)), signs, np.full(len(signs), float(self.C)),
                               start, tol=self.tol, max_iter=self._max_iter)
            if not result.converged:
                warnings.warn(f"inner SMO reached max_iter={self._max_iter}.", ConvergenceWarning)
            total -= result.objective
            solutions.append(result)
        return total, solutions

    def _gradient(self, solutions) -> np.ndarray:
        """``dJ/dd_m = -1/2 sum_problems (alpha y)' K_m (alpha y)``, shape (n_kernels,)."""
        grad = np.zeros(len(self._grams[0]))
        for signs, grams, result in zip(self._signs, self._grams, solutions):
            beta = result.alpha * signs
            support = np.flatnonzero(beta)
            for m, gram in enumerate(grams):
                grad[m] -= 0.5 * beta[support] @ gram[np.ix_(support, support)] @ beta[support]
        return grad

    def _step(self, d: np.ndarray, J: float, solutions, grad: np.ndarray):
        """One SimpleMKL update: moves to the simplex boundary, then a line search."""
        mu = int(d.argmax())
        direction = -(grad - grad[mu])
        direction[(d <= 0) & (direction < 0)] = 0.0
        direction[mu] = 0.0
        direction[mu] = -direction.sum()
        while True:
            shrinking = np.flatnonzero(direction < 0)
            if len(shrinking) == 0:
                return d, J, solutions
            ratios = -d[shrinking] / direction[shrinking]
            nu = int(shrinking[ratios.argmin()])
            gamma_max = float(ratios.min())
            d_edge = np.maximum(d + gamma_max * direction, 0.0)
            d_edge[nu] = 0.0
            d_edge /= d_edge.sum()
            J_edge, sol_edge = self._cost(d_edge, [s.alpha for s in solutions])
            if J_edge >= J or nu == mu:
                break
            d, J, solutions = d_edge, J_edge, sol_edge
            direction[mu] -= direction[nu]
            direction[nu] = 0.0
        return self._line_search(d, J, solutions, direction, gamma_max, J_edge, d_edge,
                                 sol_edge)

    def _line_search(self, d, J, solutions, direction, gamma_max, J_edge, d_edge, sol_edge):
        """Golden-section search of ``J(d + gamma D)`` on ``[0, gamma_max]``; best point kept."""
        best = (J, d, solutions) if J <= J_edge else (J_edge, d_edge, sol_edge)
        lo, hi = 0.0, gamma_max
        cache: dict[float, float] = {}

        def value(gamma: float) -> float:
            nonlocal best
            if gamma not in cache:
                point = np.maximum(d + gamma * direction, 0.0)
                point /= point.sum()
                cost, sols = self._cost(point, [s.alpha for s in best[2]])
                cache[gamma] = cost
                if cost < best[0]:
                    best = (cost, point, sols)
            return cache[gamma]

        a, b = hi - GOLDEN * (hi - lo), lo + GOLDEN * (hi - lo)
        # at least line_search_steps evaluations, more (up to 40) until J decreases
        while len(cache) < 40 and (len(cache) < self.line_search_steps or best[0] >= J):
            if value(a) <= value(b):
                hi, b = b, a
                a = hi - GOLDEN * (hi - lo)
            else:
                lo, a = a, b
                b = lo + GOLDEN * (hi - lo)
        return best[1], best[0], best[2]

    def _finalise(self, X: np.ndarray, specs: list[dict[str, Any]], solutions) -> None:
        self.support_, self.dual_coef_, self.intercept_ = dual_coefficients(
            X.shape[0], list(zip(self._rows, self._signs)), solutions)
        self.support_vectors_ = X[self.support_]
        self._specs = specs

    def _decision_matrix(self, X: np.ndarray) -> np.ndarray:
        X = check_fitted_input(self, X, attribute="kernel_weights_")
        K = sum(w * kernel_matrix(X, self.support_vectors_, **spec)
                for w, spec in zip(self.kernel_weights_, self._specs) if w > 0)
        return K @ self.dual_coef_.T + self.intercept_

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """One score per class, from ``f(x) = sum_i alpha_i y_i sum_m d_m k_m(x_i, x) + b``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (``f`` of the one problem, positive for
        ``classes_[1]``), else (n_samples, n_classes): the votes of the one-vs-one problems
        plus their squashed summed confidence (:func:`mixlib.svm.svc.ovr_decision`, the
        conventions of :meth:`mixlib.svm.svc.SVC.decision_function`). Its argmax is
        :meth:`predict` on every row.
        """
        values = self._decision_matrix(X)
        if len(self.classes_) == 2:
            return values[:, 0]
        return ovr_decision(values, self.problems_, len(self.classes_))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted labels (one-vs-one voting), shape (n_samples,).

        The class of largest :meth:`decision_function`: with two classes ``classes_[1]`` where
        ``f(x) > 0``; with more, the class with the most votes, a tie in votes going to the
        tied class of largest summed confidence (scikit-learn's ``SVC(break_ties=True)``,
        where libsvm gives it to the lowest class index), so that :meth:`predict` and the
        argmax of :meth:`decision_function` are the same on every row.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        """
        values = self._decision_matrix(X)
        if len(self.classes_) > 2:
            scores = ovr_decision(values, self.problems_, len(self.classes_))
            return self.classes_[scores.argmax(axis=1)]
        return vote(values, self.problems_, self.classes_)
