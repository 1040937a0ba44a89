"""Bagging: bootstrap replicates of any classifier combined by a (weighted) majority vote.

Each member is fitted on a bootstrap sample of the training rows (ensembles-and-SVM notes, §3); the rows a
member never drew are its out-of-bag (OOB) rows and serve as its test set, which gives the OOB
error of the ensemble without a held-out set. Votes are accumulated member by member, so one
fit yields the error of every ensemble size 1..B (``staged_predict``, ``oob_error_curve_``).
"""

from __future__ import annotations

import logging

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone
from mixlib.core.validation import (
    check_fitted_input,
    check_int,
    check_random_state,
    check_X_y,
    reject_extra_arguments,
)
from mixlib.tree.decision_tree import (
    DecisionTreeClassifier,
    apply_trees,
    bin_features,
    grow_trees,
    resolve_max_features,
)

__all__ = ["BaggingClassifier", "grow_tree_members", "label_indices"]

logger = logging.getLogger(__name__)


def label_indices(classes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Positions of ``labels`` (shape (n,)) in the sorted array ``classes``.

    Raises
    ------
    ValueError
        If a label is not one of ``classes``.
    """
    labels = np.asarray(labels)
    pos = np.clip(np.searchsorted(classes, labels), 0, classes.shape[0] - 1)
    bad = classes[pos] != labels
    if bad.any():
        raise ValueError(f"Predicted label {labels[bad][0]!r} is not one of {classes.tolist()}.")
    return pos


def cumulative_votes(member_pred: np.ndarray, weights: np.ndarray, n_classes: int) -> np.ndarray:
    """Weighted vote counts of the first ``b`` members, for every ``b``.

    Parameters
    ----------
    member_pred : ndarray of shape (n_members, n_samples)
        Class index predicted by each member; -1 means "no vote" (e.g. an in-bag row).
    weights : ndarray of shape (n_members,)
    n_classes : int

    Returns
    -------
    ndarray of shape (n_members, n_samples, n_classes)
        ``V[b, i, k] = sum_{m <= b} weights[m] [member_pred[m, i] = k]``.
    """
    n_members, n_samples = member_pred.shape
    onehot = np.zeros((n_members, n_samples, n_classes))
    m, i = np.nonzero(member_pred >= 0)
    onehot[m, i, member_pred[m, i]] = weights[m]
    return np.cumsum(onehot, axis=0)


def oob_vote_curve(member_pred: np.ndarray, weights: np.ndarray, y_idx: np.ndarray,
                   n_classes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Out-of-bag votes of the whole ensemble and, for every ensemble size, its OOB errors.

    Parameters
    ----------
    member_pred, weights, n_classes :
        As in :func:`cumulative_votes` (-1 where a row is in a member's bag).
    y_idx : ndarray of shape (n_samples,)
        True class index of each row.

    Returns
    -------
    votes : ndarray of shape (n_samples, n_classes)
        The last row of :func:`cumulative_votes`.
    wrong, n_voted : ndarray of shape (n_members,)
        For the first ``b`` members: rows whose vote (:math:`\\arg\\max_k V[b, i, k]`, first
        class on ties) is wrong, and rows with a vote (positive total).

    Notes
    -----
    Votes are added member by member, in member order as the cumulative sum does; only the
    rows a member votes on can change their vote, so each step re-reads only those rows
    instead of the whole (n_members, n_samples, n_classes) array.
    """
    n_members, n_samples = member_pred.shape
    votes = np.zeros((n_samples, n_classes))
    voted = np.zeros(n_samples, dtype=bool)
    wrong_row = np.zeros(n_samples, dtype=bool)
    wrong = np.empty(n_members, dtype=np.intp)
    n_voted = np.empty(n_members, dtype=np.intp)
    for b in range(n_members):
        rows = np.flatnonzero(member_pred[b] >= 0)
        votes[rows, member_pred[b, rows]] += weights[b]
        mine = votes[rows]
        voted[rows] = mine.sum(axis=-1) > 0
        wrong_row[rows] = (np.argmax(mine, axis=1) != y_idx[rows]) & voted[rows]
        wrong[b] = np.count_nonzero(wrong_row)
        n_voted[b] = np.count_nonzero(voted)
    return votes, wrong, n_voted


#: Trees grown together are limited to about this many (row, candidate feature) cells.
MAX_BATCH_CELLS = 1 << 22


def grow_tree_members(trees: list[DecisionTreeClassifier], X, y, samples: list[np.ndarray],
                      rng: np.random.Generator) -> list[DecisionTreeClassifier]:
    """Fit unfitted trees of equal growth settings on bootstrap samples, grown together.

    Parameters
    ----------
    trees : list of DecisionTreeClassifier
        One per sample; their ``random_state`` is not used (the feature draws come from
        ``rng``).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    samples : list of ndarray
        Row indices drawn for each tree (with repeats).
    rng : numpy.random.Generator

    Returns
    -------
    list of DecisionTreeClassifier
        ``trees``, fitted: each on the distinct rows of its sample weighted by their
        counts (as scikit-learn's forests do), all grown level by level together
        (:func:`mixlib.tree.decision_tree.grow_trees`) in batches of about ``MAX_BATCH_CELLS``
        (row, candidate) cells; every tree knows all the classes of ``y``.
    """
    prototype = trees[0]
    prototype._check_params()
    X, y = check_X_y(X, y)
    XT = np.ascontiguousarray(X.T)
    classes, y_idx = np.unique(y, return_inverse=True)
    k_features = resolve_max_features(prototype.max_features, X.shape[1])
    per_batch = max(1, MAX_BATCH_CELLS // (X.shape[0] * max(k_features, 16)))
    binned = bin_features(XT)
    for start in range(0, len(samples), per_batch):
        bags = []
        for rows in samples[start : start + per_batch]:
            counts = np.bincount(rows, minlength=X.shape[0])
            drawn = np.flatnonzero(counts)
            bags.append((drawn, counts[drawn].astype(np.float64)))
        arrays = grow_trees(
            XT, y_idx, classes.shape[0], bags, criterion=prototype.criterion,
            max_depth=prototype.max_depth, min_samples_split=prototype.min_samples_split,
            min_samples_leaf=prototype.min_samples_leaf,
            min_impurity_decrease=prototype.min_impurity_decrease, k_features=k_features,
            rng=rng, binned=binned,
        )
        for tree, tree_arrays in zip(trees[start : start + per_batch], arrays):
            tree.classes_, tree.n_features_in_, tree.tree_ = classes, X.shape[1], tree_arrays
        logger.info("grown %d/%d trees", min(start + per_batch, len(samples)), len(samples))
    return trees


class _VotingEnsemble(ClassifierMixin, BaseEstimator):
    """Shared fitting and voting of bootstrap ensembles (subclasses make the members)."""

    def _make_member(self, rng: np.random.Generator):
        raise NotImplementedError

    def _fit_members(self, X, y, samples: list[np.ndarray], rng: np.random.Generator) -> list:
        """Fit one member per bootstrap sample (row indices with repeats) of ``(X, y)``."""
        members = []
        for b, rows in enumerate(samples):
            members.append(self._make_member(rng).fit(X[rows], y[rows]))
            if (b + 1) % 25 == 0:
                logger.info("%s: fitted %d/%d members", type(self).__name__, b + 1, len(samples))
        return members

    def _member_weights(self, oob_accuracy: np.ndarray) -> np.ndarray:
        return np.ones(oob_accuracy.shape[0])

    def _check_ensemble_params(self) -> None:
        check_int(self.n_estimators, "n_estimators", min_value=1)

    def fit(self, X, y, **unsupported):
        """Fit ``n_estimators`` members on bootstrap samples and compute the OOB estimates.

        There is no ``sample_weight``: the bootstrap draws rows with equal probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features without NaN.
        y : array-like of shape (n_samples,)

        Raises
        ------
        TypeError
            For any other argument (``sample_weight``...), naming the estimator's class.
        """
        reject_extra_arguments(self, "fit", unsupported, "X and y only (its bootstrap draws "
                               "rows with equal probabilities; repeat a row to weight it)")
        self._check_ensemble_params()
        X, y = check_X_y(X, y)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        self.n_features_in_ = X.shape[1]
        self.estimators_samples_ = [
            rng.integers(0, n, size=n) if self.bootstrap else np.arange(n)
            for _ in range(self.n_estimators)
        ]
        self.estimators_ = self._fit_members(X, y, self.estimators_samples_, rng)
        in_bag = np.zeros((self.n_estimators, n), dtype=bool)
        for b, rows in enumerate(self.estimators_samples_):
            in_bag[b, rows] = True
        self.oob_mask_ = ~in_bag
        self._compute_oob(X, y_idx)
        return self

    def _compute_oob(self, X, y_idx: np.ndarray) -> None:
        """OOB member accuracies, vote weights, OOB decision function, score and curve."""
        n_members, n = self.oob_mask_.shape
        oob_pred = self._member_class_indices(X, self.oob_mask_)
        n_oob = self.oob_mask_.sum(axis=1)
        hits = np.count_nonzero((oob_pred == y_idx) & self.oob_mask_, axis=1)
        accuracy = np.where(n_oob > 0, hits / np.maximum(n_oob, 1), 1.0)
        self.oob_member_accuracy_ = accuracy
        self.member_weights_ = self._member_weights(accuracy)
        votes, wrong, n_voted = oob_vote_curve(oob_pred, self.member_weights_, y_idx,
                                               self.classes_.shape[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            curve = np.where(n_voted > 0, wrong / n_voted, np.nan)
        self.oob_error_curve_ = curve
        self.oob_decision_function_ = np.full((n, self.classes_.shape[0]), np.nan)
        totals = votes.sum(axis=-1)
        last = totals > 0
        self.oob_decision_function_[last] = votes[last] / totals[last, None]
        self.oob_error_ = float(curve[-1])
        self.oob_score_ = 1.0 - self.oob_error_

    def member_predictions(self, X) -> np.ndarray:
        """Class index predicted by every member: ndarray of shape (n_members, n_samples)."""
        return self._member_class_indices(check_fitted_input(self, X, attribute="estimators_"))

    def _member_class_indices(self, X: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Class index predicted by every member for the rows of ``mask`` (all by default),
        -1 elsewhere: shape (n_members, n_samples).

        Trees that know every class (those of a forest) are walked together
        (:func:`mixlib.tree.decision_tree.apply_trees`); other members predict one by one.
        """
        n = X.shape[0]
        if mask is None:
            mask = np.ones((len(self.estimators_), n), dtype=bool)
        pred = np.full(mask.shape, -1, dtype=np.intp)
        together = all(
            isinstance(m, DecisionTreeClassifier) and np.array_equal(m.classes_, self.classes_)
            for m in self.estimators_
        )
        if together and mask.any():
            X = self.estimators_[0]._check_X(X)
            trees = [m.tree_ for m in self.estimators_]
            tree, row, leaf = apply_trees(trees, X, mask)
            # The class of every node once (fewer nodes than walked pairs), then per pair.
            node_class = np.argmax(np.concatenate([t.value for t in trees]), axis=1)
            first = np.concatenate(([0], np.cumsum([t.n_nodes for t in trees])[:-1]))
            pred[tree, row] = node_class[first[tree] + leaf]
            return pred
        for b, member in enumerate(self.estimators_):
            rows = np.flatnonzero(mask[b])
            if rows.size:
                pred[b, rows] = label_indices(self.classes_, member.predict(X[rows]))
        return pred

    def staged_predict_proba(self, X):
        """Yield the weighted vote fractions of the first 1, 2, ..., B members.

        Each item is an ndarray of shape (n_samples, n_classes).
        """
        votes = cumulative_votes(
            self.member_predictions(X), self.member_weights_, self.classes_.shape[0]
        )
        for v in votes:
            yield v / v.sum(axis=1, keepdims=True)

    def staged_predict(self, X):
        """Yield the majority-vote labels (shape (n_samples,)) of the first 1, ..., B members."""
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]

    def predict_proba(self, X) -> np.ndarray:
        """Weighted vote fractions of all members: shape (n_samples, n_classes)."""
        pred = self.member_predictions(X)
        rows = np.arange(pred.shape[1])
        counts = np.zeros((pred.shape[1], self.classes_.shape[0]))
        for b in range(pred.shape[0]):
            counts[rows, pred[b]] += self.member_weights_[b]
        return counts / counts.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """Weighted majority vote (ties to the first class in ``classes_``): shape (n_samples,)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class BaggingClassifier(_VotingEnsemble):
    """Bagging of any classifier with ``fit(X, y)`` and ``predict(X)`` (ensembles-and-SVM notes, §3).

    Parameters
    ----------
    base_estimator : estimator or None, default=None
        Cloned (``mixlib.core.base.clone``) for each member; ``None`` means a full
        :class:`~mixlib.tree.decision_tree.DecisionTreeClassifier`. If it has a ``random_state`` parameter,
        each clone gets its own seed drawn from this ensemble's generator.
    n_estimators : int, default=10
        Number of members B.
    bootstrap : bool, default=True
        Draw n rows with replacement per member; if False every member sees all rows (and no
        row is ever out of bag).
    random_state : None, int or numpy.random.Generator

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of fitted members
    estimators_samples_ : list of ndarray of shape (n_samples,)
        Row indices drawn for each member (with repeats).
    oob_mask_ : ndarray of shape (n_estimators, n_samples)
        True where a row was not drawn for a member.
    oob_member_accuracy_ : ndarray of shape (n_estimators,)
        Accuracy of each member on its own OOB rows (1 if it has none).
    member_weights_ : ndarray of shape (n_estimators,)
        Vote weight of each member (all ones for bagging).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Vote fractions of the members for which the row is OOB; NaN for rows that are in the
        bag of every member.
    oob_error_curve_ : ndarray of shape (n_estimators,)
        OOB error of the vote of the first b members, over the rows OOB for at least one of
        them (NaN if none).
    oob_error_, oob_score_ : float
        ``oob_error_curve_[-1]`` and one minus it.

    Notes
    -----
    With members :math:`h_1, \\dots, h_B` and weights :math:`c_b` (here 1), the prediction is
    :math:`\\hat y(x) = \\arg\\max_k \\sum_b c_b [h_b(x) = k]`, and the OOB prediction of a
    training row :math:`x_i` uses only the members with :math:`x_i \\notin \\tilde X_b`.
    """

    def __init__(
        self,
        base_estimator=None,
        n_estimators: int = 10,
        bootstrap: bool = True,
        random_state: None | int | np.random.Generator = None,
    ):
        self.base_estimator = base_estimator
        self.n_estimators = n_estimators
        self.bootstrap = bootstrap
        self.random_state = random_state

    def _make_member(self, rng: np.random.Generator):
        base = DecisionTreeClassifier() if self.base_estimator is None else self.base_estimator
        member = clone(base)
        if "random_state" in member.get_params(deep=False):
            member.set_params(random_state=int(rng.integers(2**31 - 1)))
        return member

    def _fit_members(self, X, y, samples: list[np.ndarray], rng: np.random.Generator) -> list:
        """Fit the members; trees whose growth does not depend on duplicated rows are grown
        together (:func:`grow_tree_members`).

        That holds for a :class:`~mixlib.tree.decision_tree.DecisionTreeClassifier` with every feature a
        candidate, ``min_samples_split <= 2`` and ``min_samples_leaf == 1``: a row drawn
        ``c`` times weighs ``c`` in every class count, so the splits, leaves and
        predictions are those of the tree fitted on the rows with their repeats (only
        ``n_node_samples`` then counts distinct rows).
        """
        base = DecisionTreeClassifier() if self.base_estimator is None else self.base_estimator
        if (
            isinstance(base, DecisionTreeClassifier)
            and base.max_features is None
            and base.min_samples_split <= 2
            and base.min_samples_leaf == 1
        ):
            members = [self._make_member(rng) for _ in samples]  # seeds drawn as one by one
            return grow_tree_members(members, X, y, samples, rng)
        return super()._fit_members(X, y, samples, rng)
