"""Scoring a fitted MixtureClassifier from one distance computation, bit for bit.

The posteriors, the underflow mask and the error shares are computed from per-class squared
distances shared between them and from per-kernel constants cached on the fitted mixtures.
These tests compare them, to the last bit, with the arithmetic the classifier used before
(every quantity computed afresh from the parameters, each method on its own), on models with
collapsed kernels, different kernel counts per class and rows far from every kernel, and
check that the cached constants follow every change of the parameters.
"""

import copy
import warnings

import numpy as np
import pytest

from mixlib.core.distances import squared_euclidean
from mixlib.core.log_space import exp_flushed, logsumexp_rows
from mixlib.mixture import IsotropicGaussianMixture, MixtureClassifier
from mixlib.semi_supervised import ScoredExamples, label_errors
from mixlib.semi_supervised.iterative import _fitted_copy

_LOG_2PI = float(np.log(2.0 * np.pi))


def fresh_log_prob(mixture, X):
    """``ln p_j + ln N(mu_j, sigma_j, x_n)`` as computed before the constants were cached."""
    distances = squared_euclidean(X, mixture.means_, X_sq=np.einsum("ij,ij->i", X, X))
    log_prob = distances * (-0.5 / mixture.variances_)
    log_prob += np.log(mixture.weights_) - 0.5 * X.shape[1] * (_LOG_2PI + np.log(mixture.variances_))
    return log_prob


def fresh_joint(clf, X):
    terms = [fresh_log_prob(m, X) for m in clf.mixtures_]
    if len({t.shape[1] for t in terms}) > 1:
        density = np.column_stack([logsumexp_rows(t) for t in terms])
    else:
        density = np.ascontiguousarray(logsumexp_rows(np.vstack(terms)).reshape(len(terms), -1).T)
    return density + np.log(clf.class_prior_)


def fresh_proba(clf, X):
    joint = fresh_joint(clf, X)
    return np.exp(joint - logsumexp_rows(joint, keepdims=True))


def fresh_underflow(clf, X):
    """The underflow mask as computed before it shared the distances (its own distances)."""
    X_sq = np.einsum("ij,ij->i", X, X)
    zero = np.ones(len(X), dtype=bool)
    for prior, mixture in zip(clf.class_prior_, clf.mixtures_):
        variances = mixture.variances_
        distances = squared_euclidean(X, mixture.means_, X_sq=X_sq)
        with np.errstate(under="ignore", over="ignore", invalid="ignore"):
            normaliser = np.power(2.0 * np.pi * variances, -0.5 * X.shape[1])
            terms = mixture.weights_ * normaliser * exp_flushed(-distances / (2.0 * variances))
            density = prior * terms.sum(axis=1)
        zero &= density == 0.0
    return zero


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def models_and_rows():
    """Classifiers with collapsed kernels and unequal kernel counts, and rows near and far."""
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(0, 1, (30, 13)), rng.normal(2, 1.5, (25, 13)),
                   np.repeat(rng.normal(-3, 1, (3, 13)), 4, axis=0)])
    y = np.repeat([0, 1, 2], [30, 25, 12])
    Z = np.vstack([X[::3], rng.normal(0, 3, (40, 13)), X[:10] + 1e3, X[-5:] + 30.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # K = 8: class 2 has 3 distinct rows (3 kernels, collapsed), the others 8 (some
        # collapsed onto single rows); K = 2: as many in every class (the stacked path)
        models = [MixtureClassifier(k, min_variance=1e-6, random_state=1).fit(X, y) for k in (8, 2, 1)]
    return models, Z


def test_the_models_cover_the_cases():
    (unequal, equal, _), Z = models_and_rows()
    assert len(set(unequal.n_components_per_class_)) > 1 and len(set(equal.n_components_per_class_)) == 1
    assert any(m.at_floor_.any() for m in unequal.mixtures_)
    mask = fresh_underflow(unequal, Z)
    assert mask.any() and not mask.all()


def test_scored_examples_are_the_separate_computations_bit_for_bit():
    models, Z = models_and_rows()
    for clf in models:
        y = clf.classes_[np.arange(len(Z)) % len(clf.classes_)]
        scored = ScoredExamples(clf, Z, y)
        assert same_bits(scored.proba, clf.predict_proba(Z))
        assert same_bits(scored.proba, fresh_proba(clf, Z))
        assert same_bits(scored.unclassifiable("underflow"), clf.underflow_mask(Z))
        assert same_bits(scored.unclassifiable("underflow"), fresh_underflow(clf, Z))
        assert same_bits(clf.predict_log_proba(Z), fresh_joint(clf, Z) - logsumexp_rows(fresh_joint(clf, Z), keepdims=True))
        for rule, threshold in (("confidence", 0.9), ("underflow", None)):
            undecided = (fresh_proba(clf, Z).max(axis=1) <= threshold if rule == "confidence"
                         else fresh_underflow(clf, Z))
            assert scored.errors(rule, threshold) == clf.error_shares(Z, y, undecided)
            assert label_errors(clf, Z, y, rule, threshold) == clf.error_shares(Z, y, undecided)


@pytest.mark.parametrize("margin, min_log_density", [(0.0, None), (0.3, None), (0.0, -40.0)])
def test_error_shares_is_predict_proba_and_unclassifiable(margin, min_log_density):
    models, Z = models_and_rows()
    for clf in models:
        clf.set_params(margin=margin, min_log_density=min_log_density)
        y = clf.classes_[np.arange(len(Z)) % len(clf.classes_)]
        predicted = clf.classes_[fresh_proba(clf, Z).argmax(axis=1)]
        undecided = clf.unclassifiable(Z)
        expected = (float(np.mean(~undecided & (predicted != y))), float(np.mean(undecided)))
        assert clf.error_shares(Z, y) == expected
    assert undecided.any() or min_log_density is None


def test_cached_constants_follow_a_refit_a_warm_start_and_new_parameters():
    rng = np.random.default_rng(3)
    X, Z = rng.normal(size=(60, 4)), rng.normal(size=(30, 4))
    mixture = IsotropicGaussianMixture(3, random_state=0).fit(X)
    first = mixture.score_samples(Z)
    assert same_bits(first, logsumexp_rows(fresh_log_prob(mixture, Z)))
    mixture.fit(X[:30] * 2.0)  # the same object, new parameters
    again = mixture.score_samples(Z)
    assert same_bits(again, logsumexp_rows(fresh_log_prob(mixture, Z))) and not np.array_equal(first, again)
    mixture.weights_ = mixture.weights_[::-1].copy()  # parameters set by hand
    assert same_bits(mixture.score_samples(Z), logsumexp_rows(fresh_log_prob(mixture, Z)))

    y = np.repeat([0, 1], 30)
    clf = MixtureClassifier(3, warm_start=True, max_iter=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
        before = clf.predict_proba(Z)
        kept = _fitted_copy(clf)  # shares the fitted arrays (and their cached constants)
        clf.fit(X, y)  # continues EM from the fitted parameters
    assert same_bits(clf.predict_proba(Z), fresh_proba(clf, Z))
    assert not np.array_equal(clf.predict_proba(Z), before)
    assert same_bits(kept.predict_proba(Z), before)
    assert same_bits(copy.deepcopy(kept).predict_proba(Z), before)
