"""AdaBoost: a three-round example worked by hand, SAMME against scikit-learn, splice."""

import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.tree import DecisionTreeClassifier as SkTree

from mixlib.ensemble.boosting import AdaBoostClassifier
from mixlib.tree.decision_tree import DecisionTreeClassifier

# Five points on a line, labels + + - + -.
X_TOY = np.arange(1.0, 6.0)[:, None]
Y_TOY = np.array([1, 1, -1, 1, -1])


def test_binary_adaboost_three_rounds_by_hand():
    """The notes' algorithm on stumps, worked by hand.

    Round 1: D1 = (1/5, ..., 1/5). The best Gini stump cuts at 2.5 ({1,2} -> +, {3,4,5} -> -)
    and misses x=4: e1 = 1/5, alpha1 = 1/2 ln(4) = ln 2. Correct points are multiplied by
    e^{-ln 2} = 1/2, x=4 by 2: (1/10, 1/10, 1/10, 2/5, 1/10), total 4/5, so
    D2 = (1/8, 1/8, 1/8, 1/2, 1/8).
    Round 2: the stump cuts at 4.5 ({1..4} -> + with weight 3/4 against 1/8; {5} -> -) and
    misses x=3: e2 = 1/8, alpha2 = 1/2 ln 7. Multiplying correct points by 1/sqrt(7) and x=3
    by sqrt(7), then by 8 sqrt(7): (1, 1, 7, 4, 1) / 14, so D3 = (1/14, 1/14, 1/2, 2/7, 1/14).
    Round 3: the stump cuts at 3.5 ({1,2,3}: - weighs 7/14 against 2/14 -> -; {4,5}: + weighs
    4/14 against 1/14 -> +) and misses x=1, 2, 5: e3 = 3/14, alpha3 = 1/2 ln(11/3).
    The vote ln2 h1 + 1/2 ln7 h2 + 1/2 ln(11/3) h3 then classifies all five points correctly:
    at x=3 it is -ln 2 + 1/2 ln 7 - 1/2 ln(11/3) = -0.370 < 0.
    """
    model = AdaBoostClassifier(n_estimators=3, algorithm="binary").fit(X_TOY, Y_TOY)
    thresholds = [m.tree_.threshold[0] for m in model.estimators_]
    np.testing.assert_allclose(thresholds, [2.5, 4.5, 3.5])
    np.testing.assert_allclose(model.estimator_errors_, [1 / 5, 1 / 8, 3 / 14])
    np.testing.assert_allclose(
        model.estimator_weights_, [np.log(2), 0.5 * np.log(7), 0.5 * np.log(11 / 3)]
    )
    np.testing.assert_allclose(
        model.sample_weights_,
        [
            [1 / 5, 1 / 5, 1 / 5, 1 / 5, 1 / 5],
            [1 / 8, 1 / 8, 1 / 8, 1 / 2, 1 / 8],
            [1 / 14, 1 / 14, 1 / 2, 2 / 7, 1 / 14],
        ],
    )
    score = model.decision_function(X_TOY)
    a1, a2, a3 = np.log(2), 0.5 * np.log(7), 0.5 * np.log(11 / 3)
    np.testing.assert_allclose(
        score,
        [a1 + a2 - a3, a1 + a2 - a3, -a1 + a2 - a3, -a1 + a2 + a3, -a1 - a2 + a3],
    )
    np.testing.assert_array_equal(model.predict(X_TOY), Y_TOY)
    staged = [np.mean(p != Y_TOY) for p in model.staged_predict(X_TOY)]
    np.testing.assert_allclose(staged, [1 / 5, 1 / 5, 0.0])


def test_samme_with_two_classes_equals_binary():
    binary = AdaBoostClassifier(n_estimators=3, algorithm="binary").fit(X_TOY, Y_TOY)
    samme = AdaBoostClassifier(n_estimators=3, algorithm="SAMME").fit(X_TOY, Y_TOY)
    np.testing.assert_allclose(samme.sample_weights_, binary.sample_weights_)
    np.testing.assert_allclose(samme.estimator_weights_, 2 * binary.estimator_weights_)
    np.testing.assert_array_equal(samme.predict(X_TOY), binary.predict(X_TOY))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("max_depth", [1, 2])
def test_samme_matches_sklearn_on_continuous_data(seed, max_depth):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4)).astype(np.float32).astype(np.float64)
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=300), [-0.7, 0.7])
    ours = AdaBoostClassifier(DecisionTreeClassifier(max_depth=max_depth), n_estimators=20)
    ours.fit(X, y)
    sk = SkAdaBoost(SkTree(max_depth=max_depth), n_estimators=20, random_state=0).fit(X, y)
    n = min(10, len(sk.estimator_weights_))
    np.testing.assert_allclose(ours.estimator_weights_[:n], sk.estimator_weights_[:n], rtol=1e-7)
    np.testing.assert_allclose(ours.estimator_errors_[:n], sk.estimator_errors_[:n], rtol=1e-7)
    X_test = rng.normal(size=(500, 4))
    for b, (p, q) in enumerate(zip(ours.staged_predict(X_test), sk.staged_predict(X_test))):
        if b < n:
            np.testing.assert_array_equal(p, q)


def test_adaboost_close_to_sklearn_on_splice():
    from mixlib.datasets import load_xy

    X, y = load_xy("splice")
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[:2000], perm[2000:]
    ours = AdaBoostClassifier(n_estimators=40).fit(X[train], y[train])
    sk = SkAdaBoost(SkTree(max_depth=1), n_estimators=40, random_state=0).fit(X[train], y[train])
    err_ours = np.mean(ours.predict(X[test]) != y[test])
    err_sk = np.mean(sk.predict(X[test]) != y[test])
    assert abs(err_ours - err_sk) <= 0.02
    np.testing.assert_allclose(ours.estimator_weights_[:5], sk.estimator_weights_[:5], rtol=1e-6)


def test_perfect_member_stops_and_chance_member_raises():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    model = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(model.estimators_) == 1 and model.estimator_weights_[0] == 1.0
    X_bad = np.zeros((4, 1))  # nothing to split on: the stump predicts the weighted majority
    with pytest.raises(ValueError, match="no better than chance"):
        AdaBoostClassifier(n_estimators=5).fit(X_bad, y)


def test_invalid_parameters():
    with pytest.raises(ValueError, match="algorithm='binary' needs exactly 2 classes, got 3"):
        AdaBoostClassifier(algorithm="binary").fit(np.arange(6.0)[:, None], [0, 1, 2] * 2)
    with pytest.raises(ValueError, match="algorithm must be 'SAMME' or 'binary', got 'SAMME.R'"):
        AdaBoostClassifier(algorithm="SAMME.R").fit(X_TOY, Y_TOY)
    with pytest.raises(ValueError, match="n_estimators must be an int >= 1, got 0"):
        AdaBoostClassifier(n_estimators=0).fit(X_TOY, Y_TOY)


def test_member_votes_are_the_members_own_predictions():
    # Tree members' class indices are read from their arrays, without predict's validation.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 6))
    y = np.array(["b", "a", "c"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    model = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), 8, random_state=0).fit(X, y)
    X_new = rng.normal(size=(100, 6))
    votes = model._member_votes(X_new)
    for member, vote in zip(model.estimators_, votes):
        np.testing.assert_array_equal(model.classes_[vote], member.predict(X_new))
