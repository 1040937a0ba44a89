"""AdaBoost: the binary algorithm of the course notes and its multi-class form SAMME."""

from __future__ import annotations

import logging
from collections import deque

import numpy as np

from mixlib.core.base import BaseEstimator, ClassifierMixin, clone
from mixlib.core.validation import (
    check_choice, check_fitted_input, check_float, check_int, check_random_state,
    check_sample_weight, check_X_y, encode_labels,
)
from mixlib.ensemble.bagging import label_indices
from mixlib.tree.decision_tree import DecisionTreeClassifier, bin_features

__all__ = ["AdaBoostClassifier"]

logger = logging.getLogger(__name__)


class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    """AdaBoost with weighted members (ensembles-and-SVM notes, §4).

    Parameters
    ----------
    base_estimator : estimator or None, default=None
        A classifier whose ``fit`` takes ``sample_weight``; cloned for each round. ``None``
        means a stump, ``DecisionTreeClassifier(max_depth=1)``.
    n_estimators : int, default=50
        Maximum number of rounds T.
    algorithm : {"SAMME", "binary"}, default="SAMME"
        ``"binary"``: the notes' algorithm (two classes only, ``classes_[1]`` is +1);
        ``"SAMME"``: its multi-class form (Zhu et al., 2009), as scikit-learn's
        ``AdaBoostClassifier(algorithm="SAMME")``.
    learning_rate : float, default=1.0
        Shrinks every member weight :math:`\\alpha_t`.
    random_state : None, int or numpy.random.Generator
        Seeds the members that have a ``random_state`` parameter.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of fitted members
    estimator_weights_ : ndarray of shape (n_rounds,)
        :math:`\\alpha_t` of each kept member.
    estimator_errors_ : ndarray of shape (n_rounds,)
        Weighted training error :math:`\\hat e_t` of each kept member.
    sample_weights_ : ndarray of shape (n_rounds, n_samples)
        :math:`D_t`, the normalised data weights each member was trained with.

    Notes
    -----
    Binary (the notes): :math:`D_1 = 1/m`; at round t, :math:`h_t` is fitted with weights
    :math:`D_t`, :math:`\\hat e_t = \\sum_{i: h_t(x_i) \\ne y_i} D_t(x_i)`,
    :math:`\\alpha_t = \\frac{1}{2} \\ln \\frac{1 - \\hat e_t}{\\hat e_t}`, and
    :math:`D_{t+1}(x_i) \\propto D_t(x_i) \\exp(-\\alpha_t y_i h_t(x_i))` with
    :math:`y, h \\in \\{-1, +1\\}`; :math:`\\hat y = \\mathrm{sign} \\sum_t \\alpha_t h_t(x)`.

    SAMME (K classes): :math:`\\alpha_t = \\ln \\frac{1 - \\hat e_t}{\\hat e_t} + \\ln(K - 1)`,
    :math:`D_{t+1}(x_i) \\propto D_t(x_i) \\exp(\\alpha_t [h_t(x_i) \\ne y_i])`,
    :math:`\\hat y = \\arg\\max_k \\sum_t \\alpha_t [h_t(x) = k]`. For K = 2 both give the
    same weights :math:`D_t` and the same predictions (SAMME's :math:`\\alpha_t` is twice
    the binary one).

    Both :math:`\\alpha_t` are multiplied by ``learning_rate``. A member with
    :math:`\\hat e_t = 0` is kept with :math:`\\alpha_t = 1` and boosting stops; a member no
    better than chance (:math:`\\hat e_t \\ge 1 - 1/K`) is dropped and boosting stops (an
    error if it is the first), as in scikit-learn.

    sklearn check not passed: check_sample_weight_equivalence_on_dense_data — every round
    keeps the stump of least weighted impurity; on the check's 15 rows, later rounds meet
    splits of exactly equal impurity, decided by the last bits of the weights (w / sum(w)
    against repeated 1 / N), so an equally good but different stump is kept. With a base
    classifier without such ties the weighted and the repeated fits agree.
    """

    def __init__(
        self,
        base_estimator=None,
        n_estimators: int = 50,
        algorithm: str = "SAMME",
        learning_rate: float = 1.0,
        random_state: None | int | np.random.Generator = None,
    ):
        self.base_estimator = base_estimator
        self.n_estimators = n_estimators
        self.algorithm = algorithm
        self.learning_rate = learning_rate
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None) -> "AdaBoostClassifier":
        """Boost for up to ``n_estimators`` rounds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Initial data weights (uniform :math:`1/m` by default).
        """
        check_int(self.n_estimators, "n_estimators", min_value=1)
        check_choice(self.algorithm, "algorithm", ("SAMME", "binary"))
        check_float(self.learning_rate, "learning_rate", low=0, closed="neither", finite=False)
        X, y = check_X_y(X, y)
        self.classes_, y_idx = encode_labels(y, min_classes=2)
        self.n_features_in_ = X.shape[1]
        n_classes = self.classes_.shape[0]
        if self.algorithm == "binary" and n_classes != 2:
            raise ValueError(
                f"algorithm='binary' needs exactly 2 classes, got {n_classes}; use 'SAMME'."
            )
        rng = check_random_state(self.random_state)
        D = check_sample_weight(sample_weight, X.shape[0])
        D = D / D.sum()
        base = self.base_estimator
        if base is None:
            base = DecisionTreeClassifier(max_depth=1)
        if isinstance(base, DecisionTreeClassifier):
            # Trees are grown on the data ranked once, not once per round.
            XT = np.ascontiguousarray(X.T)
            binned = bin_features(XT)
        self.estimators_, weights, errors, history = [], [], [], []
        for t in range(self.n_estimators):
            member = clone(base)
            if "random_state" in member.get_params(deep=False):
                member.set_params(random_state=int(rng.integers(2**31 - 1)))
            if isinstance(member, DecisionTreeClassifier):
                member._fit_transposed(XT, y_idx, self.classes_, D, binned)
            else:
                member.fit(X, y, sample_weight=D)
            miss = self._class_indices(member, X) != y_idx
            err = float(D[miss].sum())
            if err <= 0.0:
                self.estimators_.append(member)
                weights.append(1.0)
                errors.append(0.0)
                history.append(D)
                break
            if err >= 1.0 - 1.0 / n_classes:
                if t == 0:
                    raise ValueError(
                        f"The first member has weighted error {err:.3f} >= {1 - 1 / n_classes:.3f} "
                        "(no better than chance); use a stronger base estimator."
                    )
                break
            if self.algorithm == "binary":
                alpha = self.learning_rate * 0.5 * np.log((1.0 - err) / err)
                sign = np.where(miss, -1.0, 1.0)  # y_i h_t(x_i)
                new_D = D * np.exp(-alpha * sign)
            else:
                alpha = self.learning_rate * (np.log((1.0 - err) / err) + np.log(n_classes - 1.0))
                new_D = D * np.exp(alpha * miss)
            self.estimators_.append(member)
            weights.append(alpha)
            errors.append(err)
            history.append(D)
            logger.debug("AdaBoost round %d: weighted error %.4f, alpha %.4f", t + 1, err, alpha)
            D = new_D / new_D.sum()
        self.estimator_weights_ = np.asarray(weights)
        self.estimator_errors_ = np.asarray(errors)
        self.sample_weights_ = np.asarray(history)
        logger.info(
            "AdaBoost: %d members, last weighted error %.4f", len(self.estimators_), errors[-1]
        )
        return self

    def _member_votes(self, X) -> np.ndarray:
        """Class index predicted by every member: shape (n_rounds, n_samples)."""
        X = check_fitted_input(self, X, attribute="estimators_")
        return np.stack([self._class_indices(m, X) for m in self.estimators_])

    def _class_indices(self, member, X: np.ndarray) -> np.ndarray:
        """Class index (into ``classes_``) ``member`` predicts for the validated rows ``X``
        (shape (n_samples,)): a tree grown by :meth:`fit` on ``classes_`` reads it from its
        arrays without validating ``X`` again; other members go through ``predict``."""
        if isinstance(member, DecisionTreeClassifier):
            return member._class_index(X)
        return label_indices(self.classes_, member.predict(X))

    def _staged_scores(self, X):
        """Yield :math:`\\sum_{s \\le t} \\alpha_s [h_s(x) = k]`, shape (n_samples, n_classes),
        after 1, 2, ..., T members."""
        votes = self._member_votes(X)
        n = votes.shape[1]
        score = np.zeros((n, self.classes_.shape[0]))
        rows = np.arange(n)
        for alpha, v in zip(self.estimator_weights_, votes):
            score[rows, v] += alpha
            yield score.copy()

    def staged_decision_function(self, X):
        """Yield the decision values after 1, 2, ..., T members.

        Items have shape (n_samples, n_classes), :math:`\\sum_t \\alpha_t [h_t(x) = k]`, or
        (n_samples,) for two classes: the score of ``classes_[1]`` minus that of
        ``classes_[0]`` (for ``"binary"``, :math:`\\sum_t \\alpha_t h_t(x)`).
        """
        for score in self._staged_scores(X):
            yield self._binary_decision(score)

    def decision_function(self, X) -> np.ndarray:
        """Decision values of the full ensemble (see :meth:`staged_decision_function`)."""
        return deque(self.staged_decision_function(X), maxlen=1)[0]

    def staged_predict(self, X):
        """Yield the predicted labels (shape (n_samples,)) after 1, 2, ..., T members: the
        class of the largest score, ties to the first (binary: a score of 0 goes to
        ``classes_[0]``)."""
        for score in self._staged_scores(X):
            yield self.classes_[np.argmax(score, axis=1)]

    def predict(self, X) -> np.ndarray:
        """Weighted vote of all members: shape (n_samples,), ties to the first class."""
        return deque(self.staged_predict(X), maxlen=1)[0]

    def predict_proba(self, X) -> np.ndarray:
        """Members' weighted vote fractions :math:`\\sum_t \\alpha_t [h_t(x)=k] / \\sum_t
        \\alpha_t`: shape (n_samples, n_classes)."""
        score = deque(self._staged_scores(X), maxlen=1)[0]
        return score / score.sum(axis=1, keepdims=True)
