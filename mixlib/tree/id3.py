"""ID3 decision trees: multi-way splits on categorical features by information gain.

This is the algorithm of the supervised-learning notes (section 2.2): a node becomes a leaf when
its rows share one class or no feature separates them; otherwise it is split on the feature of
largest information gain, with one child per value the feature takes in the node, and that
feature is not tested again below.
"""

from __future__ import annotations

import numbers

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin
from mixlib.core.validation import (
    check_is_fitted,
    check_labels,
    check_n_features,
    check_sample_weight,
    is_sparse,
)
from mixlib.tree.decision_tree import check_growth_limits

__all__ = ["ID3Classifier", "information_gain"]

_GAIN_TOL = 1e-12


def _entropy_bits(counts: np.ndarray) -> np.ndarray:
    """Shannon entropy in bits of class counts of shape (..., n_classes); 0 for empty rows."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=float), where=total > 0)
    logp = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logp).sum(axis=-1)


def information_gain(table: np.ndarray) -> np.ndarray:
    """Information gain of splitting on each feature, from its value-by-class count tables.

    Parameters
    ----------
    table : ndarray of shape (n_features, n_values, n_classes)
        ``table[j, a, k]`` is the (weighted) number of rows of class ``k`` whose feature ``j``
        takes its ``a``-th value. All features describe the same set of rows ``S``.

    Returns
    -------
    ndarray of shape (n_features,)

    Notes
    -----
    :math:`G(S, j) = H(S) - \\sum_a \\frac{|S_{x_j=a}|}{|S|} H(S_{x_j=a})` with
    :math:`H(S) = -\\sum_k \\frac{|C_k|}{|S|} \\log_2 \\frac{|C_k|}{|S|}` (supervised-learning notes, def. 5-6).
    """
    class_counts = table[0].sum(axis=0)
    n = class_counts.sum()
    sizes = table.sum(axis=-1)  # (n_features, n_values)
    children = (sizes / n * _entropy_bits(table)).sum(axis=-1)
    return _entropy_bits(class_counts) - children


class ID3Classifier(ClassifierMixin, BaseEstimator):
    """ID3 tree for categorical features (any hashable, sortable values: letters, ints, ...).

    Parameters
    ----------
    max_depth : int or None, default=None
        Maximum depth (root 0); ``None`` grows until the ID3 stopping rules apply.
    min_samples_split : int, default=2
        A node with fewer rows becomes a leaf.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        Sorted values seen in training, per feature.
    n_features_in_ : int
    feature_ : ndarray of shape (n_nodes,)
        Feature tested at each node (-1 at leaves); node 0 is the root.
    children_ : ndarray of shape (n_nodes, max_n_values)
        ``children_[t, a]`` is the child of node ``t`` for the ``a``-th category of its
        feature, -1 when no training row of the node took that value.
    value_ : ndarray of shape (n_nodes, n_classes)
        Weighted class proportions of each node.
    depth_ : ndarray of shape (n_nodes,)

    Notes
    -----
    Stopping rules (supervised-learning notes, §2.2): all rows of one class -> leaf of that class; no feature
    with positive gain left (or all features used on the path) -> leaf of the majority class.
    Children are created only for values present in the node; a value with no child at
    prediction time (an empty subset in the notes, or a category never seen in training) falls
    back to the majority class of the node where it stops, which is the notes' "majority class
    of the parent" rule for the empty child. Majority ties go to the first class in
    ``classes_``. Among features of equal gain the first column wins.
    """

    def __init__(self, max_depth: int | None = None, min_samples_split: int = 2):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split

    def _encode(self, X: np.ndarray) -> np.ndarray:
        """Category codes (n_samples, n_features) of ``X``; -1 for unseen values."""
        codes = np.full(X.shape, -1, dtype=np.intp)
        for j, cats in enumerate(self.categories_):
            col = X[:, j]
            pos = np.clip(np.searchsorted(cats, col), 0, cats.shape[0] - 1)
            found = cats[pos] == col
            codes[found, j] = pos[found]
        return codes

    @staticmethod
    def _as_2d(X) -> np.ndarray:
        """``X`` as a 2-d array of categories: numbers, or strings and numbers (object).

        Raises
        ------
        TypeError
            For a sparse matrix, or a cell that is neither a string nor a number.
        ValueError
            For another shape, no feature, NaN or infinite values (a missing value is its own
            category only when it is coded as one, e.g. ``"?"``), or complex numbers.
        """
        if is_sparse(X):
            raise TypeError("X is a sparse matrix; ID3Classifier needs a dense array of "
                            "categories: pass X.toarray().")
        X = np.asarray(X)
        if X.ndim != 2:
            hint = (" Reshape your data: X.reshape(-1, 1) if it holds a single feature, "
                    "X.reshape(1, -1) if it holds a single sample." if X.ndim == 1 else "")
            raise ValueError(f"X must be 2-dimensional, got shape {X.shape}.{hint}")
        if X.shape[1] < 1:
            raise ValueError(f"X has 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
                             "required.")
        if X.dtype.kind == "c":
            raise ValueError("Complex data not supported: X holds complex numbers.")
        if X.dtype == object:
            cells = X.ravel()
            kinds = [isinstance(v, (str, numbers.Number)) for v in cells]
            if not all(kinds):
                bad = kinds.index(False)
                raise TypeError(f"argument must be a string or a number: X[{bad // X.shape[1]}, "
                                f"{bad % X.shape[1]}] is a {type(cells[bad]).__name__}.")
            floats = np.array([float(v) if isinstance(v, numbers.Real) else 0.0 for v in cells])
        else:
            floats = X.ravel() if X.dtype.kind == "f" else None
        if floats is not None and not np.isfinite(floats).all():
            raise ValueError("X contains NaN or infinite values; code a missing value as its "
                             "own category (e.g. '?').")
        return X

    def fit(self, X, y, sample_weight=None) -> "ID3Classifier":
        """Grow the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Categorical values (strings or numbers; each distinct value is a category).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Row weights used in the class counts.
        """
        check_growth_limits(self.max_depth, self.min_samples_split)
        X = self._as_2d(X)
        if X.shape[0] == 0:
            raise ValueError("X needs at least 1 sample, got 0.")
        y = check_labels(y, X.shape[0])
        weight = check_sample_weight(sample_weight, X.shape[0])
        # A row of weight 0 counts nowhere, not even as a category (as if it were removed).
        kept = weight > 0
        X, y, weight = X[kept], y[kept], weight[kept]
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        self.categories_ = [np.unique(X[:, j]) for j in range(X.shape[1])]
        self.n_features_in_ = X.shape[1]
        codes = self._encode(X)
        self._grow(codes, y_idx, weight)
        return self

    def _grow(self, codes: np.ndarray, y_idx: np.ndarray, weight: np.ndarray) -> None:
        n_features = codes.shape[1]
        n_classes = self.classes_.shape[0]
        n_values = max(c.shape[0] for c in self.categories_)
        max_depth = np.inf if self.max_depth is None else self.max_depth
        feature, children, value, depths = [], [], [], []
        # (rows, depth, features still available, parent, category code in parent)
        stack = [(np.arange(codes.shape[0]), 0, np.ones(n_features, bool), -1, -1)]
        while stack:
            rows, depth, available, parent, code = stack.pop()
            node = len(feature)
            if parent >= 0:
                children[parent][code] = node
            counts = np.bincount(y_idx[rows], weights=weight[rows], minlength=n_classes)
            feature.append(-1)
            children.append(np.full(n_values, -1, dtype=np.intp))
            value.append(counts / counts.sum())
            depths.append(depth)
            if (
                np.count_nonzero(counts) <= 1
                or depth >= max_depth
                or rows.shape[0] < self.min_samples_split
                or not available.any()
            ):
                continue
            # One bincount gives every (feature, value, class) count table of the node.
            flat = (np.arange(n_features) * n_values + codes[rows]) * n_classes + y_idx[rows, None]
            table = np.bincount(
                flat.ravel(),
                weights=np.repeat(weight[rows], n_features),
                minlength=n_features * n_values * n_classes,
            ).reshape(n_features, n_values, n_classes)
            gain = np.where(available, information_gain(table), -np.inf)
            best = int(np.argmax(gain))
            if gain[best] <= _GAIN_TOL:
                continue
            feature[node] = best
            below = available.copy()
            below[best] = False
            col = codes[rows, best]
            for a in np.unique(col)[::-1]:
                stack.append((rows[col == a], depth + 1, below, node, int(a)))
        self.feature_ = np.asarray(feature, dtype=np.intp)
        self.children_ = np.asarray(children, dtype=np.intp).reshape(len(feature), n_values)
        self.value_ = np.asarray(value)
        self.depth_ = np.asarray(depths, dtype=np.intp)

    def apply(self, X) -> np.ndarray:
        """Node where each row stops (a leaf, or the node lacking a child for its value)."""
        check_is_fitted(self, "feature_")
        X = self._as_2d(X)
        check_n_features(self, X)
        codes = self._encode(X)
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        while rows.size:
            f = self.feature_[node[rows]]
            internal = f >= 0
            rows, f = rows[internal], f[internal]
            c = codes[rows, f]
            child = np.where(c >= 0, self.children_[node[rows], np.maximum(c, 0)], -1)
            moves = child >= 0
            node[rows[moves]] = child[moves]
            rows = rows[moves]
        return node

    def predict_proba(self, X) -> np.ndarray:
        """Class proportions of the node where each row stops: shape (n_samples, n_classes)."""
        nodes = self.apply(X)
        return self.value_[nodes]

    def predict(self, X) -> np.ndarray:
        """Majority class of the node where each row stops: shape (n_samples,)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def export_text(self, feature_names: list[str] | None = None) -> str:
        """The tree as indented text, one ``feature = value`` line per branch."""
        check_is_fitted(self, "feature_")
        names = feature_names or [f"x{j}" for j in range(self.n_features_in_)]
        lines: list[str] = []

        def walk(node: int, indent: int) -> None:
            f = self.feature_[node]
            if f < 0:
                label = self.classes_[np.argmax(self.value_[node])]
                lines[-1] += f" -> {label}"
                return
            for a, child in enumerate(self.children_[node]):
                if child >= 0:
                    lines.append("  " * indent + f"{names[f]} = {self.categories_[f][a]}")
                    walk(int(child), indent + 1)

        lines.append("root")
        walk(0, 1)
        return "\n".join(lines)
