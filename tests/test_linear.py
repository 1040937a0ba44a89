"""Multinomial logistic regression against scikit-learn, and its gradient against finite differences."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import PolynomialFeatures

from mixlib.core.exceptions import NotFittedError
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.linear_model.logistic import LogisticRegression, polynomial_features, softmax_objective


def _problem(seed, n=150, d=4, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.normal(size=(n, d)) + rng.normal(size=(n_classes, d))[y]
    return X, np.array(["no", "yes", "maybe", "other"])[y]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_multinomial_matches_sklearn(seed, C, fit_intercept):
    """Same objective (sklearn's divided by C): same coefficients and probabilities."""
    X, y = _problem(seed)
    weight = np.random.default_rng(seed + 10).uniform(0.2, 2.0, size=len(y))
    ours = LogisticRegression(C=C, fit_intercept=fit_intercept, tol=1e-10).fit(X, y, sample_weight=weight)
    theirs = SkLogisticRegression(C=C, fit_intercept=fit_intercept, tol=1e-10, max_iter=10_000)
    theirs.fit(X, y, sample_weight=weight)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.converged_
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-6, atol=1e-7)
    # The intercepts are defined up to a common constant: compare them centred.
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_ - theirs.intercept_.mean(), atol=1e-7)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-7)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("C", [0.1, 3.0])
def test_binary_is_sklearn_sigmoid_model_with_twice_C(C):
    """Two classes: w = w_2 - w_1 solves the binary problem with C' = 2 C (w_1 = -w_2)."""
    X, y = _problem(3, n_classes=2)
    ours = LogisticRegression(C=C, tol=1e-10).fit(X, y)
    theirs = SkLogisticRegression(C=2 * C, tol=1e-10, max_iter=10_000).fit(X, y)
    assert ours.coef_.shape == (2, X.shape[1])
    np.testing.assert_allclose(ours.coef_[0], -ours.coef_[1], atol=1e-8)
    np.testing.assert_allclose(ours.coef_[1] - ours.coef_[0], theirs.coef_[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_[1] - ours.intercept_[0], theirs.intercept_[0], atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-7)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_gradient_matches_finite_differences(fit_intercept):
    X, y = _problem(4, n=40, d=3)
    codes = np.unique(y, return_inverse=True)[1]
    T = np.eye(3)[codes]
    weight = np.random.default_rng(4).uniform(0.5, 1.5, size=40)
    params = np.random.default_rng(5).normal(size=3 * (3 + int(fit_intercept)))
    value, gradient = softmax_objective(params, X, T, weight, 0.7, fit_intercept)
    numeric = approx_fprime(params, lambda p: softmax_objective(p, X, T, weight, 0.7, fit_intercept)[0], 1e-7)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-7)
    # The value is the lecture's cross-entropy plus the penalty, per unit of sample weight.
    W = params[:9].reshape(3, 3)
    scores = X @ W.T + (params[9:] if fit_intercept else 0.0)
    proba = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    direct = (-(weight * np.log(proba[np.arange(40), codes])).sum() + 0.5 / 0.7 * (W**2).sum()) / weight.sum()
    assert value == pytest.approx(direct, rel=1e-12)


def test_log_sum_exp_keeps_huge_scores_finite():
    """Scores of order 1e4 would overflow a naive softmax (RuntimeWarnings are errors here)."""
    X, y = _problem(6, n=60)
    model = LogisticRegression(C=1e6, max_iter=50).fit(X, y)
    with np.errstate(over="raise"):
        proba = model.predict_proba(X * 1e4)
        assert np.abs(model.decision_function(X * 1e4)).max() > 1e3
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    T = np.eye(3)[np.unique(y, return_inverse=True)[1]]
    params = np.concatenate([model.coef_.ravel(), model.intercept_]) * 1e4
    with np.errstate(over="raise"):
        value, gradient = softmax_objective(params, X, T, np.ones(len(y)), 1.0, True)
    assert np.isfinite(value) and np.isfinite(gradient).all()


def test_convergence_warning_and_validation():
    X, y = _problem(7)
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 iterations"):
        model = LogisticRegression(max_iter=2).fit(X, y)
    assert not model.converged_ and model.n_iter_ == 2
    with pytest.raises(ValueError, match="C must be a float > 0"):
        LogisticRegression(C=0).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        LogisticRegression().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="X has 2 features, but LogisticRegression is expecting 4 features"):
        LogisticRegression().fit(X, y).predict(X[:, :2])
    with pytest.raises(NotFittedError, match="not fitted"):
        LogisticRegression().predict(X)


@pytest.mark.parametrize("interaction_only", [False, True])
def test_polynomial_features_match_sklearn(interaction_only):
    X = np.random.default_rng(8).normal(size=(7, 3))
    expected = PolynomialFeatures(3, interaction_only=interaction_only, include_bias=False).fit_transform(X)
    np.testing.assert_allclose(polynomial_features(X, 3, interaction_only), expected, rtol=1e-14)


def test_basis_expansion_separates_a_circle():
    """A linear model cannot separate a disc from a ring; with Phi(x) of degree 2 it can."""
    rng = np.random.default_rng(9)
    X = rng.uniform(-1, 1, size=(300, 2))
    y = np.where((X**2).sum(axis=1) < 0.4, "in", "out")
    linear = LogisticRegression(C=100.0).fit(X, y).score(X, y)
    Phi = polynomial_features(X, 2)
    expanded = LogisticRegression(C=100.0).fit(Phi, y).score(Phi, y)
    assert linear < 0.8 and expanded > 0.97


def test_sklearn_meta_estimators_accept_it():
    X, y = _problem(10)
    assert clone(LogisticRegression(C=0.5)).get_params()["C"] == 0.5
    search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=3).fit(X, y)
    assert search.best_params_["C"] in (0.01, 1.0)
