"""CART as Breiman, Friedman, Olshen and Stone (1984) define it for classification: a binary
tree grown to pure leaves, pruned back by minimal cost-complexity, the pruning level chosen by
V-fold cross-validation with the one-standard-error rule (ch. 3 and 11)."""

from __future__ import annotations

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.validation import (
    check_choice, check_float, check_int, check_random_state,
)
from mixlib.model_selection.resampling import stratified_folds
from mixlib.tree.decision_tree import DecisionTreeClassifier, FittedTreeMixin
from mixlib.tree.pruning import RISKS, cost_complexity_path, prune, pruned_leaves


def cv_pruning_errors(X: np.ndarray, y_idx: np.ndarray, weight: np.ndarray,
                      betas: np.ndarray, folds: np.ndarray, grow, risk: str) -> np.ndarray:
    """Misclassified weight of each pruning level, summed over the V test folds.

    For fold ``v``, the tree ``grow(train rows)`` is grown on the other folds, its own
    pruning path is computed, and each test row is classified by its subtree ``T_v(beta_k)``
    for every ``beta_k`` (Breiman et al. 1984, section 3.4.2).

    Returns
    -------
    ndarray of shape (len(betas),)
        ``sum_v sum_{i in fold v} w_i [y_i != T_v(beta_k)(x_i)]``.
    """
    wrong = np.zeros(len(betas))
    for v in np.unique(folds):
        test = folds == v
        tree = grow(~test).tree_
        path = cost_complexity_path(tree, risk)
        for k, beta in enumerate(betas):
            leaves = pruned_leaves(path, tree, X[test], beta)
            predicted = np.argmax(tree.value[leaves], axis=1)
            wrong[k] += weight[test][predicted != y_idx[test]].sum()
    return wrong


class CARTClassifier(FittedTreeMixin, ClassifierMixin, BaseEstimator):
    """Classification tree pruned by minimal cost-complexity, its size chosen by V-fold CV.

    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
        Splitting impurity (Breiman et al. use Gini).
    risk : {"misclassification", "impurity"}, default="misclassification"
        Node risk ``R(t)`` of the cost-complexity ``R(T) + alpha |leaves(T)|``:
        ``misclassification`` is Breiman's resubstitution error ``r(t) p(t)``; ``impurity``
        is ``p(t) i(t)``, scikit-learn's choice for ``ccp_alpha``.
    ccp_alpha : float or None, default=None
        Prune at this ``alpha`` (no cross-validation); ``None``: choose it by CV.
    n_folds : int, default=10
        ``V`` of the V-fold cross-validation (Breiman et al. use 10).
    se_rule : float, default=1.0
        Choose the smallest subtree whose CV error is within ``se_rule`` standard errors of
        the minimum (1: the one-standard-error rule; 0: the minimum itself).
    min_samples_leaf : int, default=1
        Rows each leaf of the grown tree keeps at least.
    max_depth : int or None, default=None
        Depth limit of the grown tree (``None``: grown until pure).
    random_state : None, int or numpy.random.Generator
        Seeds the stratified assignment of rows to CV folds (the only random step).

    Attributes
    ----------
    classes_, n_features_in_
    tree_ : TreeArrays
        The pruned tree.
    full_tree_ : TreeArrays
        The tree grown on all rows.
    ccp_alphas_ : ndarray of shape (K,)
        ``alpha_1 = 0 < ... < alpha_K`` of the grown tree's pruning sequence.
    n_leaves_path_ : ndarray of shape (K,)
        Leaves of each subtree ``T_k``.
    cv_errors_, cv_standard_errors_ : ndarray of shape (K,)
        CV error of ``T_k`` and its standard error (NaN when ``ccp_alpha`` is given).
    ccp_alpha_ : float
        The ``alpha`` the tree was pruned at.

    Notes
    -----
    Grow ``T_max`` on all rows and compute its weakest-link sequence ``alpha_k``, ``T_k``
    (:func:`mixlib.tree.pruning.cost_complexity_path`). Subtree ``T_k`` is best for
    ``alpha`` in ``[alpha_k, alpha_{k+1})``; its representative is the geometric mean
    ``beta_k = sqrt(alpha_k alpha_{k+1})`` (``beta_K = alpha_K``). With the V folds
    :func:`cv_pruning_errors` gives ``R^cv(T_k)`` = misclassified share of the rows, and

    .. math:: SE(R^{cv}) = \\sqrt{R^{cv} (1 - R^{cv}) / N}.

    With ``k_0 = argmin_k R^cv(T_k)``, the chosen subtree is ``T_{k*}``, ``k*`` the largest
    ``k`` with ``R^cv(T_k) <= R^cv(T_{k_0}) + se_rule SE(R^cv(T_{k_0}))`` (Breiman et al.
    1984, section 3.4.3). The folds are stratified and seeded, so the result is
    deterministic.

    sklearn check not passed: check_sample_weight_equivalence_on_dense_data — the pruning
    level is chosen by V-fold cross-validation, and a row of weight 2 lies in one fold where
    its two copies can fall in two: the folds differ, so the chosen alpha and the pruned
    tree can differ. At a fixed ccp_alpha the weighted and the repeated fits are the same
    tree.
    """

    def __init__(self, criterion: str = "gini", risk: str = "misclassification",
                 ccp_alpha: float | None = None, n_folds: int = 10, se_rule: float = 1.0,
                 min_samples_leaf: int = 1, max_depth: int | None = None,
                 random_state: None | int | np.random.Generator = None):
        self.criterion = criterion
        self.risk = risk
        self.ccp_alpha = ccp_alpha
        self.n_folds = n_folds
        self.se_rule = se_rule
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.random_state = random_state

    def _check_params(self) -> None:
        check_choice(self.criterion, "criterion", ("gini", "entropy"))
        check_choice(self.risk, "risk", RISKS)
        if self.ccp_alpha is not None:
            check_float(self.ccp_alpha, "ccp_alpha", low=0)
        check_int(self.n_folds, "n_folds", min_value=2)
        check_float(self.se_rule, "se_rule", low=0)

    def _grower(self, XT: np.ndarray, y_idx: np.ndarray, classes: np.ndarray,
                weight: np.ndarray):
        def grow(rows: np.ndarray) -> DecisionTreeClassifier:
            tree = DecisionTreeClassifier(criterion=self.criterion, max_depth=self.max_depth,
                                          min_samples_leaf=self.min_samples_leaf)
            return tree._fit_transposed(XT, y_idx, classes, np.where(rows, weight, 0.0))
        return grow

    def fit(self, X, y, sample_weight=None) -> "CARTClassifier":
        """Grow, compute the pruning sequence, choose ``alpha`` (CV or ``ccp_alpha``), prune.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        """
        XT, y_idx, classes, weight, n_features = self._training_arrays(X, y, sample_weight)
        grow = self._grower(XT, y_idx, classes, weight)
        full = grow(np.ones(len(y_idx), dtype=bool))
        self.classes_, self.n_features_in_ = classes, n_features
        self.full_tree_ = full.tree_
        path = cost_complexity_path(self.full_tree_, self.risk)
        self.ccp_alphas_, self.n_leaves_path_ = path.ccp_alphas, path.n_leaves
        self.cv_errors_ = np.full(len(path.ccp_alphas), np.nan)
        self.cv_standard_errors_ = np.full(len(path.ccp_alphas), np.nan)
        if self.ccp_alpha is not None:
            self.ccp_alpha_ = float(self.ccp_alpha)
        else:
            self.ccp_alpha_ = self._cross_validated_alpha(XT.T, y_idx, weight, grow, path)
        self.tree_ = prune(self.full_tree_, path, self.ccp_alpha_)
        return self

    def _cross_validated_alpha(self, X, y_idx, weight, grow, path) -> float:
        alphas = path.ccp_alphas
        betas = np.append(np.sqrt(alphas[:-1] * alphas[1:]), alphas[-1])
        fitted = weight > 0
        if fitted.sum() < 2:
            raise ValueError(
                f"CARTClassifier has {int(fitted.sum())} sample (of positive weight) to fit: "
                f"it chooses its pruning level by cross-validation on the training rows (up "
                f"to n_folds={self.n_folds} folds), which needs at least 2 samples. Give more "
                "samples, or set ccp_alpha to prune at a fixed level without cross-validation.")
        n_folds = min(self.n_folds, int(fitted.sum()))
        folds = np.full(len(y_idx), -1)
        folds[fitted] = stratified_folds(y_idx[fitted], n_folds,
                                         check_random_state(self.random_state))
        wrong = cv_pruning_errors(X, y_idx, np.where(fitted, weight, 0.0), betas, folds, grow,
                                  self.risk)
        errors = wrong / weight[fitted].sum()
        n = int(fitted.sum())
        self.cv_errors_ = errors
        self.cv_standard_errors_ = np.sqrt(errors * (1 - errors) / n)
        best = int(np.argmin(errors))
        bound = errors[best] + self.se_rule * self.cv_standard_errors_[best]
        chosen = int(np.flatnonzero(errors <= bound + 1e-12).max())
        return float(alphas[chosen])
