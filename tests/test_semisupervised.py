"""Tests of mixlib.semi_supervised: iterative classification and prior probabilities (report ch. 5)."""

import warnings

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.semi_supervised import SelfTrainingClassifier

from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture.gaussian_mixture import MixtureClassifier
from mixlib.semi_supervised import (
    IterativeClassifier,
    PriorProbabilityClassifier,
    RoundState,
    ScoredExamples,
    iterative_classification,
    label_errors,
    prior_probability_classification,
    unlabelled_mask,
)


def xor_blobs(rng, n_per_blob):
    """Two classes, each two unit-variance blobs at opposite corners of a 6 x 6 square."""
    centres = np.array([[0.0, 0.0], [6.0, 6.0], [0.0, 6.0], [6.0, 0.0]])
    blob = np.repeat(np.arange(4), n_per_blob)
    return centres[blob] + rng.normal(size=(len(blob), 2)), np.array([0, 0, 1, 1])[blob]


def three_blobs(seed, n=240, labelled_share=0.1):
    """Three overlapping 2-d blobs; y with -1 for about 90 % of the rows; also the true y."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])[y] + rng.normal(size=(n, 2))
    y_semi = y.copy()
    y_semi[rng.random(n) > labelled_share] = -1
    y_semi[:3] = [0, 1, 2]
    y[:3] = [0, 1, 2]
    return X, y_semi, y


class Recorder:
    """A callback keeping each round's number and ``label_errors`` on fixed rows under a rule."""

    def __init__(self, X, y, rule="underflow", threshold=0.75):
        self.X, self.y, self.rule, self.threshold = X, y, rule, threshold
        self.rounds, self.errors, self.estimators = [], [], []

    def __call__(self, state):
        assert isinstance(state, RoundState)
        self.rounds.append(state.round)
        self.errors.append(label_errors(state.estimator, self.X, self.y, self.rule, self.threshold))
        self.estimators.append(state.estimator)


@pytest.fixture(autouse=True)
def _quiet_em():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


# ---------------------------------------------------------------------------- reference: sklearn
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("threshold, max_iter", [(0.9, 10), (0.6, 10), (0.99, 2), (0.5, None)])
def test_iterative_matches_sklearn_self_training(seed, threshold, max_iter):
    X, y_semi, _ = three_blobs(seed)
    estimator = MixtureClassifier(2, random_state=seed)
    ours = IterativeClassifier(estimator, threshold=threshold, max_iter=max_iter, finish="stop").fit(X, y_semi)
    theirs = SelfTrainingClassifier(
        MixtureClassifier(2, random_state=seed),
        threshold=threshold, criterion="threshold", max_iter=max_iter,
    ).fit(X, y_semi)
    np.testing.assert_array_equal(ours.transduction_, theirs.transduction_)
    np.testing.assert_array_equal(ours.labeled_iter_, theirs.labeled_iter_)
    # scikit-learn's count leaves out its final fit, which repeats the last model when that
    # model tried the unknowns and assigned none; ours counts every model fit.
    last = ours.n_iter_ - 1
    tried_in_vain = ours.history_["n_unknown"][last] > 0 and last != max_iter
    assert ours.n_iter_ == len(ours.history_["n_labelled"]) == theirs.n_iter_ + 1 - tried_in_vain
    assert ours.termination_condition_ == theirs.termination_condition_
    # scikit-learn refits once more on the final labelled set; with an int seed that is the
    # same fit as our final model.
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-12, atol=1e-300)


def test_iterative_threshold_is_strict_like_sklearn():
    # Posteriors are exactly 1.0 for far points; threshold just below 1 still takes them only
    # if the posterior is strictly greater.
    X, y_semi, _ = three_blobs(3)
    est = MixtureClassifier(1, random_state=0).fit(X[y_semi != -1], y_semi[y_semi != -1])
    top = est.predict_proba(X[y_semi == -1]).max(axis=1)
    threshold = float(np.sort(top)[len(top) // 2])  # exactly equal to one posterior
    ours = IterativeClassifier(MixtureClassifier(1, random_state=0), threshold=threshold, max_iter=1).fit(X, y_semi)
    assert ours.history_["n_assigned"][0] == int((top > threshold).sum())
    assert (top == threshold).sum() >= 1


# ---------------------------------------------------------------------------- unlabelled data help
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_both_methods_beat_labelled_only_on_separated_clusters(seed):
    rng = np.random.default_rng(seed)
    X_l, y_l = xor_blobs(rng, 2)
    X_u, _ = xor_blobs(rng, 100)
    X_t, y_t = xor_blobs(rng, 100)
    estimator = MixtureClassifier(2, random_state=seed)
    labelled_only = 1 - MixtureClassifier(2, random_state=seed).fit(X_l, y_l).score(X_t, y_t)
    on_test_it, on_test_pr = Recorder(X_t, y_t), Recorder(X_t, y_t)
    it = iterative_classification(X_l, y_l, X_u, estimator=estimator, threshold=0.9,
                                  callback=on_test_it)
    pr = prior_probability_classification(X_l, y_l, X_u, estimator=estimator, callback=on_test_pr)
    assert labelled_only > 0.02
    assert 1 - it.score(X_t, y_t) < labelled_only
    assert 1 - pr.score(X_t, y_t) < labelled_only
    # Round 0 of both runs is the labelled-only model.
    for recorder in (on_test_it, on_test_pr):
        # Nothing underflows here, so under that rule hard + unknown = share misclassified.
        assert sum(recorder.errors[0]) == pytest.approx(labelled_only)


# ---------------------------------------------------------------------------- prior method
def test_prior_with_every_example_labelled_equals_supervised_fit():
    X, _, y = three_blobs(4)
    ours = PriorProbabilityClassifier(MixtureClassifier(3, random_state=7)).fit(X, y)
    reference = MixtureClassifier(3, random_state=7).fit(X, y)
    np.testing.assert_array_equal(ours.predict_proba(X), reference.predict_proba(X))
    np.testing.assert_array_equal(ours.soft_labels_, (y[:, None] == np.arange(3)).astype(float))
    assert ours.n_iter_ == 1 and ours.converged_ and len(ours.history_["n_flips"]) == 1


def test_prior_first_round_is_the_weighted_em_on_posteriors():
    X, y_semi, _ = three_blobs(5)
    known = y_semi != -1
    step0 = MixtureClassifier(2, random_state=3).fit(X[known], y_semi[known])
    Q = np.zeros((len(X), 3))
    Q[known, y_semi[known]] = 1.0
    Q[~known] = step0.predict_proba(X[~known])
    step1 = MixtureClassifier(2, random_state=3).fit(X, soft_labels=Q, classes=np.arange(3))
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        ours = PriorProbabilityClassifier(MixtureClassifier(2, random_state=3), max_iter=1,
                                          restart="fresh").fit(X, y_semi)
    np.testing.assert_array_equal(ours.predict_proba(X), step1.predict_proba(X))
    flips = int(np.sum(step1.predict_proba(X[~known]).argmax(1) != Q[~known].argmax(1)))
    assert ours.history_["n_flips"][1] == flips
    np.testing.assert_array_equal(ours.soft_labels_[~known], step1.predict_proba(X[~known]))


def test_prior_flips_count_label_changes_between_rounds():
    X, y_semi, _ = three_blobs(0, labelled_share=0.08)
    est = MixtureClassifier(2, random_state=11)
    full = PriorProbabilityClassifier(est, max_iter=30).fit(X, y_semi)
    hist = full.history_["n_flips"]
    assert full.converged_ and hist[-1] == 0
    assert np.isnan(hist[0])
    unknown = y_semi == -1
    previous = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for r in range(len(hist)):
            labels = PriorProbabilityClassifier(est, max_iter=r).fit(X, y_semi).soft_labels_[unknown].argmax(1)
            if previous is not None:
                assert hist[r] == int((labels != previous).sum())
            previous = labels
    assert len(hist) > 2  # the case does have flips


def test_prior_warns_when_labels_still_flip():
    X, y_semi, _ = three_blobs(0, labelled_share=0.08)
    hist = PriorProbabilityClassifier(MixtureClassifier(2, random_state=11), max_iter=30).fit(X, y_semi).history_
    assert hist["n_flips"][1] > 0
    with pytest.warns(ConvergenceWarning, match="still changed class"):
        clf = PriorProbabilityClassifier(MixtureClassifier(2, random_state=11), max_iter=1).fit(X, y_semi)
    assert not clf.converged_


# ---------------------------------------------------------------------------- counters by hand
def test_label_errors_hand_worked_one_dimensional_case():
    # Class a: -3, -2, -1 and a mislabelled 2.5; class b: 1, 2, 3. One kernel per class is the
    # ML Gaussian: a ~ N(-0.875, 4.296875), b ~ N(2, 2/3); priors 4/7 and 3/7.
    X = np.array([-3.0, -2.0, -1.0, 2.5, 1.0, 2.0, 3.0])[:, None]
    y = np.array(["a", "a", "a", "a", "b", "b", "b"])
    clf = MixtureClassifier(1, margin=0.5, random_state=0).fit(X, y)
    joint = np.column_stack([norm.logpdf(X[:, 0], -0.875, np.sqrt(4.296875)) + np.log(4 / 7),
                             norm.logpdf(X[:, 0], 2.0, np.sqrt(2 / 3)) + np.log(3 / 7)])
    posterior = np.exp(joint - np.logaddexp(joint[:, 0], joint[:, 1])[:, None])
    np.testing.assert_allclose(clf.predict_proba(X), posterior, rtol=1e-9)
    # 2.5 goes to b with p = 0.86 (margin 0.71 > 0.5): a hard error; 1.0 goes to b with
    # p = 0.575 (margin 0.15 <= 0.5): unclassifiable; the five others are right and clear.
    assert posterior[3, 1] == pytest.approx(0.856, abs=1e-3)
    assert posterior[4, 1] == pytest.approx(0.575, abs=1e-3)
    hard, unknown = clf.error_shares(X, y)
    assert hard == pytest.approx(1 / 7) and unknown == pytest.approx(1 / 7)


def test_iterative_counters_hand_built_case():
    # Labelled: a at -2, -1.8; b at 1.8, 2. Unlabelled: -1.9 and 1.9 (clear) and 0 (a tie).
    X = np.array([-2.0, -1.8, 1.8, 2.0, -1.9, 0.0, 1.9])[:, None]
    y = np.array(["a", "a", "b", "b", None, None, None], dtype=object)
    recorders = [Recorder(X[:4], y[:4], rule, 0.9) for rule in ("confidence", "underflow")]
    clf = IterativeClassifier(MixtureClassifier(1, random_state=0), threshold=0.9, finish="stop").fit(
        X, y, callback=lambda state: [recorder(state) for recorder in recorders])
    hist = clf.history_
    assert hist["n_labelled"].tolist() == [4, 6]
    assert hist["n_unknown"].tolist() == [3, 1]
    assert hist["n_assigned"].tolist() == [2, 0]
    for recorder in recorders:
        assert recorder.rounds == [0, 1]
        assert recorder.errors == [(0.0, 0.0), (0.0, 0.0)]
    assert clf.termination_condition_ == "no_change" and clf.n_iter_ == 2
    assert clf.transduction_.tolist() == ["a", "a", "b", "b", "a", None, "b"]
    assert clf.labeled_iter_.tolist() == [0, 0, 0, 0, 1, -1, 1]


def test_iterative_history_invariants():
    X, y_semi, y = three_blobs(7)
    X_test, _, y_test = three_blobs(8)
    on_test = Recorder(X_test, y_test, "confidence", 0.7)
    clf = IterativeClassifier(MixtureClassifier(2, random_state=1), threshold=0.7, max_iter=None,
                              finish="stop").fit(X, y_semi, callback=on_test)
    hist = clf.history_
    assert np.all(np.diff(hist["n_unknown"]) <= 0)
    n_unknown = (y_semi == -1).sum()
    assert hist["n_unknown"][0] == n_unknown
    np.testing.assert_array_equal(hist["n_unknown"][1:], n_unknown - np.cumsum(hist["n_assigned"][:-1]))
    assert hist["n_labelled"][-1] == (clf.labeled_iter_ >= 0).sum()
    assert np.all(np.array(on_test.errors) >= 0) and np.all(np.array(on_test.errors) <= 1)
    assert on_test.errors[-1] == label_errors(clf.estimator_, X_test, y_test, "confidence", 0.7)


def test_unknown_error_counts_unclassifiable_labelled_examples():
    X, y_semi, _ = three_blobs(9)
    clf = IterativeClassifier(MixtureClassifier(2, margin=0.6, random_state=2), threshold=0.5,
                              finish="stop").fit(X, y_semi)
    known = y_semi != -1
    top = clf.predict_proba(X[known]).max(axis=1)
    assert label_errors(clf.estimator_, X[known], y_semi[known], "confidence", 0.5)[1] == np.mean(top <= 0.5)
    hard, unknown = clf.estimator_.error_shares(X[known], y_semi[known])
    assert unknown == np.mean(clf.unclassifiable(X[known])) > 0
    # An unclassifiable unknown is never assigned, whatever its top posterior.
    pending = clf.labeled_iter_ == -1
    assert clf.unclassifiable(X[pending]).all() and pending.any()


def test_scored_examples_reads_the_posteriors_once_for_every_rule_and_threshold(monkeypatch):
    X, y_semi, y = three_blobs(10)
    model = MixtureClassifier(2, random_state=3).fit(X[y_semi != -1], y_semi[y_semi != -1])
    expected = {}
    for rule in ("confidence", "underflow"):
        for threshold in (0.5, 0.75, 0.95):
            undecided = (model.predict_proba(X).max(axis=1) <= threshold if rule == "confidence"
                         else model.underflow_mask(X))
            expected[rule, threshold] = model.error_shares(X, y, undecided)
    calls = {"class_distances": 0, "proba_from_distances": 0, "underflow_from_distances": 0}
    for name in calls:
        method = getattr(MixtureClassifier, name)

        def counted(self, *args, _method=method, _name=name):
            calls[_name] += 1
            return _method(self, *args)
        monkeypatch.setattr(MixtureClassifier, name, counted)
    scored = ScoredExamples(model, X, y)
    for (rule, threshold), errors in expected.items():
        assert scored.errors(rule, threshold) == errors
        assert scored.errors(rule, threshold) == label_errors(model, X, y, rule, threshold)
    # one distance computation per scored set (1, and 6 by label_errors), read by both rules
    assert calls == {"class_distances": 1 + 6, "proba_from_distances": 1 + 6,
                     "underflow_from_distances": 1 + 3}
    assert any(hard > 0 for hard, _ in expected.values())
    assert any(unknown > 0 for _, unknown in expected.values())
    with pytest.raises(ValueError, match="give y"):
        ScoredExamples(model, X).errors("confidence", 0.5)
    with pytest.raises(ValueError, match="needs a threshold"):
        scored.errors("confidence")
    with pytest.raises(ValueError, match="unclassifiable rule must be one of"):
        scored.errors("margin", 0.5)


# ---------------------------------------------------------------------------- determinism, API
@pytest.mark.parametrize("cls", [IterativeClassifier, PriorProbabilityClassifier])
def test_determinism_from_a_seed(cls):
    X, y_semi, _ = three_blobs(10)
    first = cls(MixtureClassifier(2), random_state=42).fit(X, y_semi)
    second = cls(MixtureClassifier(2), random_state=np.random.default_rng(42)).fit(X, y_semi)
    assert first.history_.keys() == second.history_.keys()
    for key in first.history_:
        np.testing.assert_array_equal(first.history_[key], second.history_[key])
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))


def test_string_labels_none_marker_and_params():
    X, y_semi, _ = three_blobs(11)
    y = np.array([None if v == -1 else "abc"[v] for v in y_semi], dtype=object)
    clf = IterativeClassifier(MixtureClassifier(2, random_state=0), threshold=0.9).fit(X, y)
    assert clf.classes_.tolist() == ["a", "b", "c"]
    assert set(clf.predict(X)) <= {"a", "b", "c"}
    assert clf.get_params()["estimator__n_components"] == 2
    assert unlabelled_mask(np.array([1.0, np.nan, -1.0])).tolist() == [False, True, True]


@pytest.mark.parametrize("kwargs, match", [
    ({"threshold": 1.0}, "threshold must be a real number in \\[0, 1\\)"),
    ({"threshold": -0.1}, "threshold"),
    ({"max_iter": -1}, "max_iter must be None or a non-negative int"),
])
def test_iterative_rejects_bad_parameters(kwargs, match):
    X, y_semi, _ = three_blobs(0)
    with pytest.raises(ValueError, match=match):
        IterativeClassifier(**kwargs).fit(X, y_semi)


def test_rejects_no_labelled_rows():
    X, _, _ = three_blobs(0)
    with pytest.raises(ValueError, match="no labelled example"):
        PriorProbabilityClassifier().fit(X, np.full(len(X), -1))


# ---------------------------------------------------------------------------- the round callback
@pytest.mark.parametrize("cls, kwargs", [(IterativeClassifier, {"threshold": 0.7, "max_iter": None}),
                                         (PriorProbabilityClassifier, {"max_iter": 30})])
def test_callback_sees_every_round_and_the_final_model(cls, kwargs):
    X, y_semi, y = three_blobs(7)
    recorder = Recorder(X, y)
    clf = cls(MixtureClassifier(2, random_state=1), **kwargs).fit(X, y_semi, callback=recorder)
    n_rounds = len(next(iter(clf.history_.values())))
    assert n_rounds > 2 and recorder.rounds == list(range(n_rounds))
    # The last round's model is the final one; the callback saw it as it was then.
    assert recorder.estimators[-1] is clf.estimator_
    assert recorder.errors[-1] == label_errors(clf.estimator_, X, y, "underflow")
    assert n_rounds == clf.n_iter_


@pytest.mark.parametrize("cls", [IterativeClassifier, PriorProbabilityClassifier])
def test_fit_without_a_callback_gives_the_same_model(cls):
    X, y_semi, y = three_blobs(12)
    plain = cls(MixtureClassifier(2), random_state=5).fit(X, y_semi)
    watched = cls(MixtureClassifier(2), random_state=5).fit(X, y_semi, callback=Recorder(X, y))
    np.testing.assert_array_equal(plain.predict_proba(X), watched.predict_proba(X))
    np.testing.assert_array_equal(plain.transduction_, watched.transduction_)
    for key in plain.history_:
        np.testing.assert_array_equal(plain.history_[key], watched.history_[key])


# ---------------------------------------------------------------------------- report's readings (issue: ch. 5 as the report ran it)
def test_warm_prior_round_continues_the_previous_em():
    # Round 1 of the warm-started prior method is the weighted EM on [Q_0; q_0] started from
    # the parameters of round 0, i.e. a warm-started MixtureClassifier refit.
    X, y_semi, _ = three_blobs(5)
    known = y_semi != -1
    reference = MixtureClassifier(2, random_state=3).fit(X[known], y_semi[known])
    Q = np.zeros((len(X), 3))
    Q[known, y_semi[known]] = 1.0
    Q[~known] = reference.predict_proba(X[~known])
    reference.set_params(warm_start=True).fit(X, soft_labels=Q, classes=np.arange(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = PriorProbabilityClassifier(MixtureClassifier(2, random_state=3), max_iter=1).fit(X, y_semi)
    for mine, theirs in zip(ours.estimator_.mixtures_, reference.mixtures_):
        np.testing.assert_array_equal(mine.means_, theirs.means_)
        np.testing.assert_array_equal(mine.variances_, theirs.variances_)


def test_warm_prior_with_unchanging_soft_labels_is_one_uninterrupted_em():
    # Far-apart clusters: the posteriors of the unlabelled rows are exactly one-hot, so the
    # soft labels never change after round 0. The warm-started refit then equals one weighted
    # EM on those soft labels started from the round-0 parameters and run for as many
    # iterations in a row.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(60, 1, (30, 2))])
    y = np.repeat([0, 1], 30)
    y_semi = y.copy()
    y_semi[rng.permutation(60)[:40]] = -1
    y_semi[[0, 30]] = [0, 1]
    est = MixtureClassifier(2, tol=0.0, max_iter=15, random_state=4)
    ours = PriorProbabilityClassifier(est, max_iter=3).fit(X, y_semi)
    assert ours.converged_ and ours.n_iter_ == 2
    np.testing.assert_array_equal(ours.soft_labels_, np.eye(2)[y])
    known = y_semi != -1
    start = MixtureClassifier(2, tol=0.0, max_iter=15, random_state=4).fit(X[known], y_semi[known])
    for c, (mine, first) in enumerate(zip(ours.estimator_.mixtures_, start.mixtures_)):
        from mixlib.mixture.gaussian_mixture import IsotropicGaussianMixture
        uninterrupted = IsotropicGaussianMixture(
            first.n_components, means_init=first.means_, sigmas_init=first.sigmas_,
            weights_init=first.weights_, tol=0.0, max_iter=15).fit(X[y == c])
        np.testing.assert_allclose(mine.means_, uninterrupted.means_, rtol=1e-12)
        np.testing.assert_allclose(mine.variances_, uninterrupted.variances_, rtol=1e-12)
        np.testing.assert_allclose(mine.weights_, uninterrupted.weights_, rtol=1e-12)


def test_fresh_and_warm_restarts_differ_and_warm_keeps_round_zero_kernels():
    X, y_semi, _ = three_blobs(0, labelled_share=0.08)
    warm = PriorProbabilityClassifier(MixtureClassifier(3, random_state=11), max_iter=30).fit(X, y_semi)
    fresh = PriorProbabilityClassifier(MixtureClassifier(3, random_state=11), max_iter=30,
                                       restart="fresh").fit(X, y_semi)
    assert not np.array_equal(warm.soft_labels_, fresh.soft_labels_)
    known = y_semi != -1
    round0 = MixtureClassifier(3, random_state=11).fit(X[known], y_semi[known])
    np.testing.assert_array_equal(warm.estimator_.n_components_per_class_, round0.n_components_per_class_)
    with pytest.raises(ValueError, match="restart must be one of"):
        PriorProbabilityClassifier(restart="cold").fit(X, y_semi)


def test_finish_argmax_leaves_no_unknown_and_counts_them():
    # The hand-built case above: 0.0 is a tie that never clears the threshold.
    X = np.array([-2.0, -1.8, 1.8, 2.0, -1.9, 0.0, 1.9])[:, None]
    y = np.array(["a", "a", "b", "b", None, None, None], dtype=object)
    clf = IterativeClassifier(MixtureClassifier(1, random_state=0), threshold=0.9).fit(X, y)
    hist = clf.history_
    assert hist["n_assigned"].tolist() == [2, 1, 0]
    assert hist["n_argmax"].tolist() == [0, 1, 0]
    assert hist["n_unknown"].tolist() == [3, 1, 0]
    assert clf.termination_condition_ == "argmax" and clf.n_assigned_by_argmax_ == 1
    assert (clf.labeled_iter_ >= 0).all() and None not in clf.transduction_.tolist()
    with pytest.raises(ValueError, match="finish must be one of"):
        IterativeClassifier(finish="never").fit(X, y)


@pytest.mark.parametrize("max_iter", [0, 1, 3])
def test_finish_argmax_also_after_the_round_limit(max_iter):
    X, y_semi, _ = three_blobs(2)
    clf = IterativeClassifier(MixtureClassifier(2, random_state=0), threshold=0.99,
                              max_iter=max_iter).fit(X, y_semi)
    assert clf.history_["n_unknown"][-1] == 0
    assert (clf.labeled_iter_ >= 0).all()
    assert clf.n_assigned_by_argmax_ == clf.history_["n_argmax"].sum() > 0


def test_confidence_rule_is_the_assignment_threshold():
    X, y_semi, y = three_blobs(3)
    clf = IterativeClassifier(MixtureClassifier(2, random_state=0), threshold=0.8).fit(X, y_semi)
    known = y_semi != -1
    top = clf.predict_proba(X[known]).max(axis=1)
    hard, unknown = label_errors(clf.estimator_, X[known], y[known], "confidence", 0.8)
    assert unknown == np.mean(top <= 0.8) > 0
    assert hard == np.mean((top > 0.8) & (clf.predict(X[known]) != y[known]))


def test_the_study_rules_are_the_only_unclassifiable_rules():
    """``margin`` is no rule of the study: the classifier's own decision is
    ``MixtureClassifier.error_shares``, which the rules' scores reuse with their own mask."""
    X, y_semi, _ = three_blobs(9)
    known = y_semi != -1
    clf = MixtureClassifier(2, random_state=2).fit(X[known], y_semi[known])
    with pytest.raises(ValueError, match="one of \\('confidence', 'underflow'\\)"):
        label_errors(clf, X[known], y_semi[known], "margin")
    with pytest.raises(ValueError, match="needs a threshold"):
        label_errors(clf, X[known], y_semi[known], "confidence")
    mask = clf.predict_proba(X[known]).max(axis=1) <= 0.9
    assert label_errors(clf, X[known], y_semi[known], "confidence", 0.9) == clf.error_shares(
        X[known], y_semi[known], mask)


def _rounds_seen(fit):
    """``fit(callback)``; the fitted object and, per round its callback saw, the round and the
    posteriors of every row under that round's model."""
    seen = []
    fitted = fit(lambda state: seen.append((state.round, state.estimator.predict_proba(X_FINISH))))
    return fitted, seen


X_FINISH, Y_FINISH, _ = three_blobs(11, n=150)


def _iterative(threshold, max_iter, margin, finish="argmax"):
    """An unfitted iterative classifier whose estimator has its own seeded generator."""
    estimator = MixtureClassifier(2, margin=margin, random_state=np.random.default_rng(5))
    return IterativeClassifier(estimator, threshold=threshold, max_iter=max_iter, finish=finish)


# threshold, max_iter, margin: a round that assigns nothing (no_change); the round limit at
# round 0 and after a labelling round (max_iter); a round that assigns nothing when the
# rounds reach max_iter (max_iter, counted); every row labelled by the threshold.
FINISH_CASES = [(0.999, 10, 0.0), (0.9, 0, 0.0), (0.97, 1, 0.0), (0.999, 3, 0.0), (0.0, None, 0.0)]


@pytest.mark.parametrize("threshold, max_iter, margin", FINISH_CASES)
def test_fit_finishes_gives_each_finish_fit_bit_for_bit(threshold, max_iter, margin):
    template = _iterative(threshold, max_iter, margin)
    shared, seen = _rounds_seen(lambda callback: template.fit_finishes(X_FINISH, Y_FINISH, callback=callback))
    assert template.finish == "argmax" and not hasattr(template, "estimator_")
    for finish in ("argmax", "stop"):
        alone, alone_seen = _rounds_seen(lambda callback: _iterative(threshold, max_iter, margin, finish).fit(
            X_FINISH, Y_FINISH, callback=callback))
        mine = shared[finish]
        assert mine.finish == finish
        for name in ("n_iter_", "n_assigned_by_argmax_", "termination_condition_"):
            assert getattr(mine, name) == getattr(alone, name), name
        np.testing.assert_array_equal(mine.transduction_, alone.transduction_)
        np.testing.assert_array_equal(mine.labeled_iter_, alone.labeled_iter_)
        assert mine.history_.keys() == alone.history_.keys()
        for key in alone.history_:
            np.testing.assert_array_equal(mine.history_[key], alone.history_[key])
        for ours, theirs in zip(mine.estimator_.mixtures_, alone.estimator_.mixtures_):
            for name in ("means_", "variances_", "weights_"):
                np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))
        np.testing.assert_array_equal(mine.predict_proba(X_FINISH), alone.predict_proba(X_FINISH))
        # Its generator stands where the lone fit left its own, and no longer moves with the other fit's.
        rng = mine.estimator_.random_state
        assert rng.bit_generator.state == alone.estimator_.random_state.bit_generator.state
        assert all(mixture.random_state is rng for mixture in mine.estimator_.mixtures_)
        # The callback saw the argmax fit's rounds; the stop fit's are the first ones.
        assert len(alone_seen) <= len(seen)
        for (round_, proba), (alone_round, alone_proba) in zip(seen, alone_seen):
            assert round_ == alone_round
            np.testing.assert_array_equal(proba, alone_proba)
        assert len(alone_seen) == len(mine.history_["n_labelled"])
    # The stop fit's model is not the argmax fit's, which went on fitting after the copy.
    assert shared["stop"].estimator_ is not shared["argmax"].estimator_


def test_fit_finishes_cases_reach_every_ending():
    endings = set()
    for threshold, max_iter, margin in FINISH_CASES:
        fits = _iterative(threshold, max_iter, margin).fit_finishes(X_FINISH, Y_FINISH)
        endings.add((fits["stop"].termination_condition_, fits["argmax"].termination_condition_))
    assert endings == {("no_change", "argmax"), ("max_iter", "argmax"), ("all_labeled", "all_labeled")}
    limits = [_iterative(0.9, 0, 0.0).fit_finishes(X_FINISH, Y_FINISH)["stop"].n_iter_,
              _iterative(0.999, 3, 0.0).fit_finishes(X_FINISH, Y_FINISH)["stop"].n_iter_]
    assert limits == [1, 3]  # round 0 only; rounds 0-2, the third assigning none


@pytest.mark.parametrize("cls", [IterativeClassifier, PriorProbabilityClassifier])
def test_scikit_learn_attributes_and_the_shape_of_y(cls):
    from mixlib.core.exceptions import DataConversionWarning

    X, y_semi, _ = three_blobs(0)
    model = cls(random_state=0).fit(X, y_semi)
    assert model.n_features_in_ == 2 and model.n_iter_ >= 1
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        column = cls(random_state=0).fit(X, y_semi[:, None])
    np.testing.assert_array_equal(column.predict(X), model.predict(X))
    with pytest.raises(ValueError, match=r"y must have shape \(240,\), one class label per row "
                                         r"\(several outputs per row are not supported\), got "
                                         r"\(240, 2\)"):
        cls().fit(X, np.column_stack([y_semi, y_semi]))
    with pytest.raises(ValueError, match=f"{cls.__name__} requires y to be passed"):
        cls().fit(X, None)
    with pytest.raises(ValueError, match=f"X has 3 features, but {cls.__name__} is expecting 2"):
        model.predict(np.ones((2, 3)))
