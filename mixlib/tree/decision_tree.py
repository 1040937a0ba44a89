"""Binary decision trees on numeric features (CART-style, Gini or entropy).

The estimator lives here; the engine is split by concern: :mod:`mixlib.tree._growth`
grows many trees together level by level (stored as flat arrays, walked together for
prediction), :mod:`mixlib.tree._split` finds the best cut of every node of a level at once
(candidate features, choice of search, sort of the values) with the impurities of
:mod:`mixlib.tree._impurity`; :mod:`mixlib.tree._bins` and
:mod:`mixlib.tree._histogram_search` hold the histogram search used when features have few
distinct values (one ``bincount`` per chunk of candidate columns over (node, value rank,
class), then a cumulative sum over ranks), and :mod:`mixlib.tree._packed_search` the search
for integer weights (unweighted trees, bootstrap counts) that sorts (node, candidate, rank,
class, weight) packed into one integer per row and candidate. There
is no Python loop over samples or nodes; the children's impurities of all valid cuts of a
level are evaluated in one array expression.
"""

from __future__ import annotations

import numbers

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.tree._bins import BinnedFeatures, bin_features
from mixlib.tree._growth import TreeArrays, apply_trees, grow_trees
from mixlib.tree._split import draw_candidates, level_splits, node_impurity
from mixlib.core.validation import (
    check_fitted_input,
    check_choice,
    check_float,
    check_int,
    check_is_fitted,
    check_random_state,
    check_sample_weight,
    check_X_y,
)

__all__ = [
    "BinnedFeatures",
    "DecisionTreeClassifier",
    "TreeArrays",
    "apply_trees",
    "bin_features",
    "draw_candidates",
    "grow_trees",
    "level_splits",
    "node_impurity",
]


def check_growth_limits(max_depth: int | None, min_samples_split: int) -> None:
    """Validate the depth and node-size limits shared by the CART and ID3 trees.

    Parameters
    ----------
    max_depth : int >= 1 or None
        Maximum depth (root at depth 0); ``None``: unlimited.
    min_samples_split : int >= 2
        A node with fewer rows is a leaf.

    Raises
    ------
    ValueError
        Naming the parameter, the bad value and the values expected.
    """
    check_int(max_depth, "max_depth", min_value=1, allow_none=True)
    check_int(min_samples_split, "min_samples_split", min_value=2)


def resolve_max_features(max_features, n_features: int) -> int:
    """Number of candidate features per split for ``max_features``.

    ``None`` -> all; ``"sqrt"`` -> ``max(1, floor(sqrt(p)))``; ``"log2"`` ->
    ``max(1, floor(log2(p)))``; an int -> itself (1 <= k <= p); a float in (0, 1] ->
    ``max(1, floor(f p))``.
    """
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        if not 1 <= max_features <= n_features:
            raise ValueError(
                f"max_features={max_features} must be in [1, n_features={n_features}]."
            )
        return int(max_features)
    if isinstance(max_features, numbers.Real) and 0.0 < max_features <= 1.0:
        return max(1, int(max_features * n_features))
    raise ValueError(
        f"max_features must be None, 'sqrt', 'log2', an int in [1, n_features] or a float "
        f"in (0, 1], got {max_features!r}."
    )


class FittedTreeMixin:
    """Predictions of a classifier whose fitted tree is ``tree_`` (:class:`TreeArrays`) over
    the classes ``classes_``: each row reaches one leaf, whose weighted class proportions are
    its probabilities, ``p(c | x) = value[leaf(x), c]``, and whose majority class is its label.
    """

    def _check_X(self, X) -> np.ndarray:
        return check_fitted_input(self, X, attribute="tree_")

    def _training_arrays(self, X, y, sample_weight
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """The checked parameters and training data, as the growth reads them: ``X``
        transposed (a feature per row, contiguous), the class index of each row, the classes,
        the row weights (all 1 if None) and the number of features."""
        self._check_params()
        X, y = check_X_y(X, y)
        weight = check_sample_weight(sample_weight, X.shape[0])
        classes, y_idx = np.unique(y, return_inverse=True)
        return np.ascontiguousarray(X.T), y_idx, classes, weight, X.shape[1]

    def apply(self, X) -> np.ndarray:
        """Leaf id of each row: ndarray of shape (n_samples,)."""
        X = self._check_X(X)
        return self.tree_.apply(X)

    def predict_proba(self, X) -> np.ndarray:
        """Weighted class proportions of the leaf of each row: shape (n_samples, n_classes)."""
        leaves = self.apply(X)
        return self.tree_.value[leaves]

    def predict(self, X) -> np.ndarray:
        """Majority class of the leaf of each row: shape (n_samples,)."""
        index = self._class_index(self._check_X(X))
        return self.classes_[index]

    def _class_index(self, X: np.ndarray) -> np.ndarray:
        """Index in ``classes_`` of the class :meth:`predict` gives each row of ``X``, already
        validated (for ensembles that validate their input once for all members)."""
        return np.argmax(self.tree_.value[self.tree_.apply(X)], axis=1)

    def get_depth(self) -> int:
        """Depth of the fitted tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the fitted tree."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves


class DecisionTreeClassifier(FittedTreeMixin, ClassifierMixin, BaseEstimator):
    """Binary classification tree on numeric features, grown greedily depth first.

    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
        Node impurity (entropy in bits).
    max_depth : int or None, default=None
        Maximum depth (root at depth 0); ``None`` grows until leaves are pure or too small.
    min_samples_split : int, default=2
        A node with fewer rows is a leaf.
    min_samples_leaf : int, default=1
        Every child keeps at least this many rows.
    min_impurity_decrease : float, default=0.0
        A node is split only if the weighted decrease (see Notes) reaches this value.
    max_features : None, "sqrt", "log2", int or float, default=None
        Number of features drawn at random (among those not constant in the node) as split
        candidates at each node, as in random forests; ``None`` uses all of them.
    random_state : None, int or numpy.random.Generator
        Source of the per-node feature draws.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    tree_ : TreeArrays
        The fitted tree.

    Notes
    -----
    A split of node :math:`t` (weight :math:`w_t`) into :math:`L, R` is chosen to minimise
    :math:`w_L I(L) + w_R I(R)`; its impurity decrease is

    .. math:: \\Delta = \\frac{w_t}{w} \\Big(I(t) - \\frac{w_L}{w_t} I(L)
              - \\frac{w_R}{w_t} I(R)\\Big),

    with :math:`w` the total training weight (scikit-learn's definition). Rows with zero
    weight are dropped before growing. Leaves predict the class with the largest weighted
    proportion (the first such class on ties).
    """

    def __init__(
        self,
        criterion: str = "gini",
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        min_impurity_decrease: float = 0.0,
        max_features=None,
        random_state: None | int | np.random.Generator = None,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.random_state = random_state

    def _check_params(self) -> None:
        check_choice(self.criterion, "criterion", ("gini", "entropy"))
        check_growth_limits(self.max_depth, self.min_samples_split)
        check_int(self.min_samples_leaf, "min_samples_leaf", min_value=1)
        check_float(self.min_impurity_decrease, "min_impurity_decrease", low=0, finite=False)

    def fit(self, X, y, sample_weight=None) -> "DecisionTreeClassifier":
        """Grow the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        """
        XT, y_idx, classes, weight, _ = self._training_arrays(X, y, sample_weight)
        return self._fit_transposed(XT, y_idx, classes, weight)

    def _fit_transposed(
        self,
        XT: np.ndarray,
        y_idx: np.ndarray,
        classes: np.ndarray,
        weight: np.ndarray,
        binned: BinnedFeatures | None = None,
    ) -> "DecisionTreeClassifier":
        """Grow on validated data: ``XT`` (n_features, n_samples) C-contiguous, class
        indices ``y_idx`` into ``classes``, weights ``weight`` (and ``bin_features(XT)``
        if already computed): what :meth:`fit` does after validation, for ensembles that
        fit many trees on the same data."""
        self._check_params()
        self.classes_ = classes
        self.n_features_in_ = XT.shape[0]
        k_features = resolve_max_features(self.max_features, XT.shape[0])
        rng = check_random_state(self.random_state)
        rows = np.flatnonzero(weight > 0)
        (self.tree_,) = grow_trees(
            XT, y_idx, classes.shape[0], [(rows, weight[rows])],
            criterion=self.criterion, max_depth=self.max_depth,
            min_samples_split=self.min_samples_split, min_samples_leaf=self.min_samples_leaf,
            min_impurity_decrease=self.min_impurity_decrease, k_features=k_features, rng=rng,
            binned=binned,
        )
        return self

