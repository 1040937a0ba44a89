"""Bootstrap, bagging with OOB estimates, random forests and the heterogeneous vote."""

import numpy as np
import pytest
import scipy.stats
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.ensemble import VotingClassifier as SkVoting
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier as SkTree

from mixlib.ensemble.voting import (
    BaggingClassifier,
    RandomForestClassifier,
    VotingClassifier,
    bootstrap_estimate,
)
from mixlib.ensemble.bagging import cumulative_votes, oob_vote_curve
from mixlib.tree.id3 import ID3Classifier
from mixlib.tree.decision_tree import DecisionTreeClassifier


def problem(seed, n=240, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.digitize(X[:, 0] + X[:, 1] * X[:, 2] + 0.6 * rng.normal(size=n), [-0.6, 0.6])
    return X, np.array(["a", "b", "c"])[y], rng


@pytest.fixture(scope="module")
def splice_split():
    from mixlib.datasets import load_xy

    X, y = load_xy("splice")
    perm = np.random.default_rng(0).permutation(len(y))
    return X[perm[:2000]], y[perm[:2000]], X[perm[2000:]], y[perm[2000:]]


# --- bootstrap ------------------------------------------------------------------------


def test_bootstrap_replicates_are_the_statistic_of_resamples():
    x = np.random.default_rng(0).exponential(size=50)
    result = bootstrap_estimate(x, np.median, n_resamples=200, random_state=3)
    draws = np.random.default_rng(3).integers(0, 50, size=(200, 50))
    expected = np.array([np.median(x[rows]) for rows in draws])
    np.testing.assert_allclose(result.replicates, expected)
    assert result.estimate == pytest.approx(expected.mean())
    assert result.standard_error == pytest.approx(
        np.sqrt(np.sum((expected - expected.mean()) ** 2) / 199)
    )


def test_bootstrap_standard_error_of_the_mean():
    x = np.random.default_rng(1).normal(loc=2.0, scale=3.0, size=400)
    result = bootstrap_estimate(x, np.mean, n_resamples=4000, random_state=0)
    analytic = x.std(ddof=0) / np.sqrt(len(x))  # the bootstrap targets the plug-in value
    assert result.standard_error == pytest.approx(analytic, rel=0.05)
    assert result.estimate == pytest.approx(x.mean(), abs=0.1 * analytic)
    scipy_se = scipy.stats.bootstrap(
        (x,), np.mean, n_resamples=4000, rng=np.random.default_rng(1)
    ).standard_error
    assert result.standard_error == pytest.approx(scipy_se, rel=0.05)


def test_bootstrap_invalid():
    with pytest.raises(ValueError, match="n_resamples must be an int >= 2, got 1"):
        bootstrap_estimate(np.ones(5), np.mean, n_resamples=1)


# --- bagging --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "base, categorical",
    [(DecisionTreeClassifier(max_depth=3), False), (ID3Classifier(max_depth=2), True)],
)
def test_single_member_without_resampling_is_the_base_model(base, categorical):
    X, y, rng = problem(0)
    if categorical:
        X = np.digitize(X, [-0.5, 0.5])
    bag = BaggingClassifier(base, n_estimators=1, bootstrap=False, random_state=0).fit(X, y)
    alone = base.fit(X, y)
    X_test = rng.normal(size=(300, X.shape[1]))
    if categorical:
        X_test = np.digitize(X_test, [-0.5, 0.5])
    np.testing.assert_array_equal(bag.predict(X_test), alone.predict(X_test))
    assert not bag.oob_mask_.any() and np.isnan(bag.oob_error_)


def test_oob_rows_are_exactly_the_rows_not_drawn():
    X, y, _ = problem(1)
    bag = BaggingClassifier(DecisionTreeClassifier(max_depth=4), n_estimators=15, random_state=2)
    bag.fit(X, y)
    n = len(y)
    for b, rows in enumerate(bag.estimators_samples_):
        assert rows.shape == (n,)
        drawn = np.zeros(n, bool)
        drawn[rows] = True
        np.testing.assert_array_equal(bag.oob_mask_[b], ~drawn)
    assert 0.3 < bag.oob_mask_.mean() < 0.44  # about (1 - 1/n)^n = 37 %
    # OOB decision function from the members that did not see each row.
    votes = np.zeros((n, 3))
    for b, member in enumerate(bag.estimators_):
        oob = bag.oob_mask_[b]
        votes[np.flatnonzero(oob), np.searchsorted(bag.classes_, member.predict(X[oob]))] += 1
    seen = votes.sum(1) > 0
    np.testing.assert_allclose(
        bag.oob_decision_function_[seen], votes[seen] / votes[seen].sum(1, keepdims=True)
    )
    assert np.isnan(bag.oob_decision_function_[~seen]).all()
    expected = np.mean(bag.classes_[np.argmax(votes[seen], 1)] != y[seen])
    assert bag.oob_error_ == pytest.approx(expected)
    assert bag.oob_score_ == pytest.approx(1 - expected)


def test_staged_predictions_and_oob_curve():
    X, y, rng = problem(2)
    bag = BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=12, random_state=0)
    bag.fit(X, y)
    X_test = rng.normal(size=(200, 5))
    staged = list(bag.staged_predict(X_test))
    assert len(staged) == 12
    np.testing.assert_array_equal(staged[-1], bag.predict(X_test))
    for b in (0, 4, 11):  # the vote of the first b + 1 members, refitted from scratch
        sub = BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=b + 1)
        sub.classes_, sub.estimators_ = bag.classes_, bag.estimators_[: b + 1]
        sub.n_features_in_ = bag.n_features_in_
        sub.member_weights_ = np.ones(b + 1)
        np.testing.assert_array_equal(staged[b], sub.predict(X_test))
    assert bag.oob_error_curve_.shape == (12,)
    assert bag.oob_error_curve_[-1] == bag.oob_error_


def test_bagging_seeds_members_and_reduces_variance():
    X, y, rng = problem(3, n=400)
    X_test, y_test, _ = problem(30, n=2000)
    tree_err = np.mean(DecisionTreeClassifier().fit(X, y).predict(X_test) != y_test)
    bag = BaggingClassifier(n_estimators=40, random_state=0).fit(X, y)
    bag_err = np.mean(bag.predict(X_test) != y_test)
    assert bag_err < tree_err - 0.03
    assert abs(bag.oob_error_ - bag_err) < 0.05
    again = BaggingClassifier(n_estimators=40, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.predict(X_test), bag.predict(X_test))


def test_bagging_invalid():
    X, y, _ = problem(0, n=20)
    with pytest.raises(ValueError, match="n_estimators must be an int >= 1, got 0"):
        BaggingClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(TypeError, match="sample_weight"):
        BaggingClassifier().fit(X, y, sample_weight=np.ones(20))


# --- random forests -------------------------------------------------------------------


def test_forest_trees_see_their_bootstrap_sample():
    X, y, _ = problem(4)
    forest = RandomForestClassifier(n_estimators=5, max_depth=2, random_state=0).fit(X, y)
    for tree, rows in zip(forest.estimators_, forest.estimators_samples_):
        assert tree.tree_.n_node_samples[0] == np.unique(rows).size
        assert tree.tree_.weighted_n_node_samples[0] == len(y)
        assert tree.max_features == "sqrt"


def test_oob_weighted_vote_weights_trees_by_oob_accuracy():
    X, y, rng = problem(5)
    forest = RandomForestClassifier(n_estimators=20, vote="oob_weighted", random_state=1)
    forest.fit(X, y)
    for b, tree in enumerate(forest.estimators_):
        oob = forest.oob_mask_[b]
        acc = np.mean(tree.predict(X[oob]) == y[oob])
        assert forest.member_weights_[b] == pytest.approx(acc)
    X_test = rng.normal(size=(300, 5))
    votes = np.zeros((300, 3))
    for w, tree in zip(forest.member_weights_, forest.estimators_):
        votes[np.arange(300), np.searchsorted(forest.classes_, tree.predict(X_test))] += w
    np.testing.assert_array_equal(forest.predict(X_test), forest.classes_[votes.argmax(1)])
    simple = RandomForestClassifier(n_estimators=20, random_state=1).fit(X, y)
    np.testing.assert_array_equal(simple.member_weights_, np.ones(20))


@pytest.mark.parametrize("vote", ["simple", "oob_weighted"])
def test_forest_close_to_sklearn_on_splice(splice_split, vote):
    X_train, y_train, X_test, y_test = splice_split
    ours = RandomForestClassifier(n_estimators=50, vote=vote, random_state=0)
    ours.fit(X_train, y_train)
    sk = SkForest(n_estimators=50, random_state=0, n_jobs=1).fit(X_train, y_train)
    err_ours = np.mean(ours.predict(X_test) != y_test)
    err_sk = np.mean(sk.predict(X_test) != y_test)
    assert abs(err_ours - err_sk) <= 0.02
    assert abs(ours.oob_error_ - err_ours) <= 0.03  # OOB tracks the test error


def test_forest_invalid():
    X, y, _ = problem(0, n=20)
    with pytest.raises(ValueError, match="vote must be 'simple' or 'oob_weighted', got 'soft'"):
        RandomForestClassifier(vote="soft").fit(X, y)


# --- heterogeneous vote ---------------------------------------------------------------


@pytest.mark.parametrize("voting", ["hard", "soft"])
@pytest.mark.parametrize("weights", [None, [1.0, 2.0, 0.5]])
def test_voting_matches_sklearn(voting, weights):
    X, y, rng = problem(6)
    members = [
        ("lr", LogisticRegression(max_iter=500)),
        ("nb", GaussianNB()),
        ("tree", SkTree(max_depth=3, random_state=0)),
    ]
    ours = VotingClassifier(members, voting=voting, weights=weights).fit(X, y)
    sk = SkVoting(members, voting=voting, weights=weights).fit(X, y)
    X_test = rng.normal(size=(500, 5))
    np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))
    if voting == "soft":
        np.testing.assert_allclose(ours.predict_proba(X_test), sk.predict_proba(X_test))


def test_voting_over_prefitted_mixlib_classifiers():
    X, y, rng = problem(7)
    tree = DecisionTreeClassifier(max_depth=3).fit(X, y)
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    stump = DecisionTreeClassifier(max_depth=1).fit(X, y)
    vote = VotingClassifier([("t", tree), ("f", forest), ("s", stump)], prefit=True).fit(X, y)
    assert vote.named_estimators_["f"] is forest
    X_test = rng.normal(size=(200, 5))
    preds = np.stack([m.predict(X_test) for m in (tree, forest, stump)], axis=1)
    agree = (preds[:, 0] == preds[:, 1]) | (preds[:, 0] == preds[:, 2])
    out = vote.predict(X_test)
    np.testing.assert_array_equal(out[agree], preds[agree, 0])  # two of three win
    with pytest.raises(ValueError, match="prefit=True but estimator 'u' is not fitted"):
        VotingClassifier([("u", DecisionTreeClassifier())], prefit=True).fit(X, y)


def test_bagged_trees_grown_together_equal_trees_fitted_one_by_one():
    """Bagging of CART trees grows them together with bootstrap counts as weights; the
    predictions are those of each tree fitted on its sample with the repeated rows."""
    from mixlib.tree.decision_tree import apply_trees

    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(150, 6)), 1)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=150) > 0).astype(int)
    bag = BaggingClassifier(DecisionTreeClassifier(criterion="entropy"), 8, random_state=1)
    bag.fit(X, y)
    for rows, member in zip(bag.estimators_samples_, bag.estimators_):
        alone = DecisionTreeClassifier(criterion="entropy").fit(X[rows], y[rows])
        np.testing.assert_array_equal(member.predict(X), alone.predict(X))
    # The stacked walk of all trees reaches the leaves each tree reaches on its own.
    trees = [m.tree_ for m in bag.estimators_]
    tree, row, leaf = apply_trees(trees, X, bag.oob_mask_)
    for t, member in enumerate(bag.estimators_):
        np.testing.assert_array_equal(leaf[tree == t], member.apply(X[row[tree == t]]))


@pytest.mark.parametrize("n_classes", [3, 11])
def test_oob_vote_curve_equals_the_cumulative_votes(n_classes):
    # Member by member, only the voted rows re-read: the same votes, errors and counts,
    # bit for bit, as from the whole (members, rows, classes) cumulative sum.
    rng = np.random.default_rng(n_classes)
    pred = rng.integers(0, n_classes, size=(40, 300))
    pred[rng.random(pred.shape) < 0.6] = -1
    pred[:, :5] = -1  # rows never out of bag
    weights = rng.uniform(0.1, 1.0, size=40)
    y = rng.integers(0, n_classes, size=300)
    votes, wrong, n_voted = oob_vote_curve(pred, weights, y, n_classes)
    every = cumulative_votes(pred, weights, n_classes)
    has_vote = every.sum(axis=-1) > 0
    assert votes.tobytes() == every[-1].tobytes()
    np.testing.assert_array_equal(n_voted, has_vote.sum(axis=1))
    np.testing.assert_array_equal(
        wrong, np.count_nonzero((np.argmax(every, axis=2) != y) & has_vote, axis=1))


@pytest.mark.parametrize("ensemble", [RandomForestClassifier, BaggingClassifier])
def test_sample_weight_is_refused_naming_the_public_class(ensemble):
    X, y, _ = problem(0, n=20)
    with pytest.raises(TypeError, match=rf"^{ensemble.__name__}\.fit\(\) got unexpected keyword "
                                        r"argument\(s\) 'sample_weight': it takes X and y only"):
        ensemble().fit(X, y, sample_weight=np.ones(len(y)))


def test_hard_voting_has_no_predict_proba_and_checks_its_input():
    X, y, _ = problem(8)
    members = [("a", DecisionTreeClassifier(max_depth=2)), ("b", DecisionTreeClassifier())]
    hard = VotingClassifier(members).fit(X, y)
    assert not hasattr(hard, "predict_proba") and hard.n_features_in_ == X.shape[1]
    with pytest.raises(AttributeError, match="not available when voting='hard'"):
        hard.predict_proba(X)
    assert hasattr(VotingClassifier(members, voting="soft"), "predict_proba")
    np.testing.assert_array_equal(hard.fit_transform(X, y), hard.transform(X))
    with pytest.raises(ValueError, match="X has 2 features, but VotingClassifier is expecting"):
        hard.predict(X[:, :2])
    with pytest.raises(ValueError, match="fit requires y to be passed"):
        VotingClassifier(members).fit(X, None)
