"""SVDD against scikit-learn's OneClassSVM (equivalent for Gaussian kernels) and ball geometry."""

import numpy as np
import pytest
from sklearn.svm import OneClassSVM

from mixlib.core.exceptions import NotFittedError
from mixlib.svm.svdd import SVDD


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("C", [0.02, 0.05, 0.5])
def test_gaussian_svdd_is_one_class_svm(seed, C):
    rng = np.random.default_rng(seed)
    n, sigma = 100, 1.2
    X = rng.normal(size=(n, 3))
    X_test = rng.normal(scale=1.5, size=(200, 3))
    ours = SVDD(C=C, sigma=sigma, tol=1e-9).fit(X)
    # k(x, x) = 1 makes alpha'diag(G) = 1 constant: the duals coincide with nu = 1/(nC)
    sk = OneClassSVM(nu=1 / (n * C), gamma=1 / (2 * sigma**2), tol=1e-9).fit(X)
    np.testing.assert_array_equal(ours.support_, sk.support_)
    # libsvm's alpha sum to nu n = 1/C, ours to 1
    np.testing.assert_allclose(ours.dual_coef_, C * sk.dual_coef_[0], atol=1e-7)
    np.testing.assert_allclose(ours.decision_function(X_test) / (2 * C),
                               sk.decision_function(X_test), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))
    assert ours.dual_coef_.sum() == pytest.approx(1.0)


def test_ball_geometry_and_kkt():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 2))
    C, tol = 0.05, 1e-6
    model = SVDD(C=C, kernel="linear", tol=tol).fit(X)
    alpha = np.zeros(len(X))
    alpha[model.support_] = model.dual_coef_
    centre = alpha @ X
    dist2 = ((X - centre) ** 2).sum(axis=1)
    R2 = model.radius_**2
    assert model.center_sq_norm_ == pytest.approx(centre @ centre)
    np.testing.assert_allclose(model.decision_function(X), R2 - dist2, atol=1e-10)
    free = (alpha > 0) & (alpha < C)
    assert free.any()
    np.testing.assert_allclose(dist2[free], R2, atol=10 * tol)
    assert np.all(dist2[alpha == 0] <= R2 + 10 * tol)
    assert np.all(dist2[alpha == C] >= R2 - 10 * tol)
    assert np.mean(dist2 > R2 + 10 * tol) <= 1 / (len(X) * C)


def test_hard_ball_encloses_everything():
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, size=(60, 2))
    model = SVDD(C=1.0, kernel="linear", tol=1e-8).fit(X)
    centre = model.dual_coef_ @ model.support_vectors_
    dist = np.sqrt(((X - centre) ** 2).sum(axis=1))
    assert dist.max() == pytest.approx(model.radius_, rel=1e-6)
    # smaller than the ball around the mean, which is feasible but not minimal
    assert model.radius_ < np.sqrt(((X - X.mean(axis=0)) ** 2).sum(axis=1)).max()


def test_validation():
    X = np.zeros((10, 2))
    with pytest.raises(ValueError, match="C=0.05 is too small"):
        SVDD(C=0.05).fit(X)
    with pytest.raises(NotFittedError, match="not fitted"):
        SVDD().predict(X)
