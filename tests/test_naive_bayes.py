"""Naive Bayes (Gaussian, categorical, Bernoulli) against scikit-learn and the lecture's estimates."""

import numpy as np
import pytest
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB

from mixlib.core.exceptions import DataConversionWarning, NotFittedError
from mixlib.generative.naive_bayes import BernoulliNaiveBayes, CategoricalNaiveBayes, GaussianNaiveBayes


def _labels_and_weights(seed, n):
    rng = np.random.default_rng(seed)
    y = np.array(["x", "y", "z"])[rng.integers(0, 3, n)]
    return rng, y, rng.uniform(0.3, 2.0, size=n)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-2])
def test_gaussian_matches_gaussiannb(seed, var_smoothing):
    rng, y, weight = _labels_and_weights(seed, 150)
    X = rng.normal(size=(150, 5)) * rng.uniform(0.2, 3.0, size=5) + (y == "x")[:, None]
    Q = rng.normal(size=(50, 5)) * 2
    ours = GaussianNaiveBayes(var_smoothing=var_smoothing).fit(X, y, sample_weight=weight)
    theirs = GaussianNB(var_smoothing=var_smoothing).fit(X, y, sample_weight=weight)
    assert ours.epsilon_ == pytest.approx(theirs.epsilon_, rel=1e-12)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-10)
    np.testing.assert_allclose(ours.predict_joint_log_proba(Q), theirs.predict_joint_log_proba(Q), rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-9, atol=1e-14)
    np.testing.assert_array_equal(ours.predict(Q), theirs.predict(Q))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1.0, 0.3, 1e-10])
def test_categorical_matches_categoricalnb(seed, alpha):
    rng, y, weight = _labels_and_weights(seed, 200)
    X = rng.integers(0, 4, size=(200, 6))
    X[y == "x", 0] = rng.integers(0, 2, size=(y == "x").sum())  # class-dependent feature
    Q = rng.integers(0, 4, size=(50, 6))
    ours = CategoricalNaiveBayes(alpha=alpha).fit(X, y, sample_weight=weight)
    theirs = CategoricalNB(alpha=alpha).fit(X, y, sample_weight=weight)
    for mine, reference in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(mine, reference, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_joint_log_proba(Q), theirs.predict_joint_log_proba(Q), rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-9, atol=1e-14)
    np.testing.assert_array_equal(ours.predict(Q), theirs.predict(Q))


def test_categorical_min_categories_matches_sklearn():
    rng, y, _ = _labels_and_weights(3, 80)
    X = rng.integers(0, 3, size=(80, 2))
    ours = CategoricalNaiveBayes(min_categories=[3, 5]).fit(X, y)
    theirs = CategoricalNB(min_categories=[3, 5]).fit(X, y)
    np.testing.assert_array_equal(ours.n_categories_, [3, 5])
    Q = np.array([[0, 4], [2, 3]])
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1.0, 0.25])
def test_bernoulli_matches_bernoullinb(seed, alpha):
    rng, y, weight = _labels_and_weights(seed, 200)
    X = (rng.random((200, 8)) < 0.4).astype(float)
    X[y == "y", :2] = 1.0
    Q = (rng.random((50, 8)) < 0.5).astype(float)
    ours = BernoulliNaiveBayes(alpha=alpha).fit(X, y, sample_weight=weight)
    theirs = BernoulliNB(alpha=alpha, binarize=None).fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_joint_log_proba(Q), theirs.predict_joint_log_proba(Q), rtol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(Q), theirs.predict_proba(Q), rtol=1e-9, atol=1e-14)
    # Thresholding real data as scikit-learn's binarize does.
    Xr = rng.normal(size=(200, 8)) + (y == "z")[:, None]
    ours = BernoulliNaiveBayes(alpha=alpha, binarize=0.3).fit(Xr, y)
    theirs = BernoulliNB(alpha=alpha, binarize=0.3).fit(Xr, y)
    Qr = Q - 0.5
    np.testing.assert_allclose(ours.predict_proba(Qr), theirs.predict_proba(Qr), rtol=1e-9, atol=1e-14)


def test_maximum_likelihood_estimates_of_the_lecture():
    """alpha=0: mu_kij = N_kij / N_k and mu_ki = N_ki / N_k, priors N_k / N."""
    rng, y, _ = _labels_and_weights(4, 120)
    codes = rng.integers(0, 3, size=(120, 4))
    categorical = CategoricalNaiveBayes(alpha=0.0).fit(codes, y)
    binary = (codes == 1).astype(float)
    bernoulli = BernoulliNaiveBayes(alpha=0.0).fit(binary, y)
    for k, label in enumerate(categorical.classes_):
        members = y == label
        assert np.exp(categorical.class_log_prior_[k]) == pytest.approx(members.mean())
        for i in range(4):
            frequency = np.bincount(codes[members, i], minlength=3) / members.sum()
            np.testing.assert_allclose(np.exp(categorical.feature_log_prob_[i][k]), frequency, rtol=1e-12)
        frequency = binary[members].mean(axis=0)
        np.testing.assert_allclose(np.exp(bernoulli.feature_log_prob_[k]), frequency, rtol=1e-12)


def test_unsmoothed_zero_counts_stay_finite():
    """A value never seen in any class (alpha=0) gets a floored, finite log-probability."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array(["a", "a", "b", "b"])
    model = CategoricalNaiveBayes(alpha=0.0, min_categories=3).fit(X, y)
    proba = model.predict_proba(np.array([[2, 0], [0, 2], [1, 1]]))
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(proba[0], [0.5, 0.5])  # feature 0 = 2 impossible in both classes
    np.testing.assert_allclose(proba[2], [0.0, 1.0], atol=1e-300)
    bernoulli = BernoulliNaiveBayes(alpha=0.0).fit(np.array([[1.0], [1.0], [0.0], [0.0]]), y)
    assert np.isfinite(bernoulli.predict_log_proba(np.array([[1.0], [0.0]]))).all()


def test_validation_messages():
    X = np.array([[0, 1], [1, 2], [2, 0]])
    y = np.array(["a", "b", "a"])
    with pytest.raises(ValueError, match="Negative values in data: X must hold non-negative "
                                         "integer category codes; got -1.0 at row 0"):
        CategoricalNaiveBayes().fit(np.array([[-1, 1], [1, 2], [2, 0]]), y)
    with pytest.warns(DataConversionWarning, match=r"1 value\(s\) that are not integer category "
                                                  "codes \\(first 0.5 at row 0, feature 0\\)"):
        truncated = CategoricalNaiveBayes().fit(np.array([[0.5, 1], [1, 2], [2, 0]]), y)
    np.testing.assert_array_equal(truncated.category_count_[0], [[1, 0, 1], [0, 1, 0]])
    with pytest.raises(ValueError, match="Feature 1 has category 3 at row 0, not seen in fit"):
        CategoricalNaiveBayes().fit(X, y).predict(np.array([[0, 3]]))
    with pytest.raises(ValueError, match=r"X must be binary \(0/1\) when binarize=None; got 2.0"):
        BernoulliNaiveBayes(binarize=None).fit(X, y)
    with pytest.raises(ValueError, match="alpha must be a float >= 0"):
        BernoulliNaiveBayes(alpha=-1).fit(X > 0, y)
    with pytest.raises(ValueError, match="priors must be 2 positive numbers summing to 1"):
        GaussianNaiveBayes(priors=[0.9, 0.9]).fit(X, y)
    with pytest.raises(ValueError, match="var_smoothing must be a float > 0"):
        GaussianNaiveBayes(var_smoothing=0.0).fit(X, y)
    with pytest.raises(NotFittedError, match="not fitted"):
        GaussianNaiveBayes().predict(X)
    constant = GaussianNaiveBayes().fit(np.ones((3, 2)), y)  # all features constant
    assert constant.epsilon_ == 1e-9 and np.isfinite(constant.predict_proba(np.zeros((1, 2)))).all()
    model = GaussianNaiveBayes(var_smoothing=1e-3).fit(X, y)
    assert model.get_params() == {"priors": None, "var_smoothing": 1e-3}
