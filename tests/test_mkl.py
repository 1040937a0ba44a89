"""Multiple kernel learning: weights on the simplex, monotone objective, optimality."""

import itertools

import numpy as np
import pytest

from mixlib.svm._smo import smo_solve
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import kernel_matrix
from mixlib.svm.mkl import MKLSVC
from mixlib.svm.svc import SVC

KERNELS = [{"kernel": "gaussian", "sigma": 0.3}, {"kernel": "gaussian", "sigma": 1.0},
           {"kernel": "gaussian", "sigma": 3.0}, {"kernel": "linear"}]


def ring_problem(seed, n=80):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 1.2, "a", "b")
    return X, y


def svm_cost(X, signs, weights, C):
    """J(d) = e'alpha - 1/2 alpha'G(d)alpha at the SVM optimum, by an independent solve."""
    K = sum(w * kernel_matrix(X, **spec) for w, spec in zip(weights, KERNELS))
    result = smo_solve(K.__getitem__, np.diagonal(K).copy(), -np.ones(len(signs)), signs,
                       np.full(len(signs), C), np.zeros(len(signs)), tol=1e-8)
    return -result.objective


@pytest.mark.parametrize("seed", [0, 1])
def test_weights_on_simplex_and_objective_non_increasing(seed):
    X, y = ring_problem(seed)
    model = MKLSVC(C=2.0, kernels=KERNELS).fit(X, y)
    assert np.all(model.weight_history_ >= 0)
    np.testing.assert_allclose(model.weight_history_.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.diff(model.objective_history_) <= 0)
    assert model.objective_history_[-1] < model.objective_history_[0]
    assert -1e-9 <= model.duality_gap_ <= 1e-3 * model.objective_history_[-1]
    # J at the learned weights, recomputed independently, is at most the best J found by
    # brute force over a grid of the simplex (step 1/8)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    J = svm_cost(X, signs, model.kernel_weights_, 2.0)
    assert J == pytest.approx(model.objective_history_[-1], rel=1e-4)
    grid = [np.array(c) / 8 for c in itertools.product(range(9), repeat=4) if sum(c) == 8]
    brute = min(svm_cost(X, signs, w, 2.0) for w in grid)
    assert J <= brute * (1 + 1e-4)


def test_single_kernel_is_the_svm():
    X, y = ring_problem(3)
    mkl = MKLSVC(C=1.0, kernels=[{"kernel": "gaussian", "sigma": 1.0}], tol=1e-8).fit(X, y)
    svc = SVC(C=1.0, sigma=1.0, tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(mkl.kernel_weights_, [1.0])
    np.testing.assert_allclose(mkl.decision_function(X), svc.decision_function(X), atol=1e-8)


def test_multiclass_shares_the_weights():
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 3, size=90)
    X = np.array([[0, 0], [2, 0], [0, 2]])[labels] + rng.normal(scale=0.8, size=(90, 2))
    model = MKLSVC(C=1.0, kernels=KERNELS).fit(X, labels)
    assert model.problems_ == [(0, 1), (0, 2), (1, 2)]
    assert model.decision_function(X).shape == (90, 3)
    assert np.mean(model.predict(X) != labels) < 0.2
    assert np.all(np.diff(model.objective_history_) <= 0)


def test_convergence_warning():
    X, y = ring_problem(6)
    with pytest.warns(ConvergenceWarning, match="mkl_max_iter=1"):
        MKLSVC(C=2.0, kernels=KERNELS, mkl_max_iter=1, gap_tol=1e-9).fit(X, y)


def test_validation():
    X, y = ring_problem(5, n=20)
    with pytest.raises(ValueError, match="kernel must be one of"):
        MKLSVC(kernels=[{"kernel": "rbf"}]).fit(X, y)
    with pytest.raises(ValueError, match="keys among"):
        MKLSVC(kernels=[{"gamma": 1.0}]).fit(X, y)
    with pytest.raises(TypeError, match="sample_weight"):
        MKLSVC().fit(X, y, sample_weight=np.ones(20))


def test_decision_function_has_one_score_per_class_consistent_with_predict():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 4, size=160)
    centres = np.array([[0, 0], [2, 0], [0, 2], [2, 2]])
    X = centres[labels] + rng.normal(scale=0.9, size=(160, 2))
    from mixlib.svm.svc import ovo_votes

    for break_ties in (False, True):
        model = MKLSVC(C=1.0, kernels=KERNELS, break_ties=break_ties).fit(X, labels)
        scores = model.decision_function(X)
        assert scores.shape == (160, 4)
        votes = ovo_votes(model._decision_matrix(X), model.problems_, 4)
        tied = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) > 1
        # libsvm's rule gives a tie in votes to the lowest class index; break_ties=True to
        # the largest score, and then the argmax is the prediction on every row
        agree = np.ones(160, bool) if break_ties else ~tied
        np.testing.assert_array_equal(model.classes_[scores.argmax(axis=1)][agree],
                                      model.predict(X)[agree])
        assert np.mean(model.predict(X) == labels) > 0.6
    assert tied.any() and agree.sum() == 160
    with pytest.raises(ValueError, match="break_ties must be False or True"):
        MKLSVC(break_ties="yes").fit(X, labels)


def test_kernels_take_sigma_scale():
    from mixlib.core.kernels import scale_sigma

    X, y = ring_problem(7)
    model = MKLSVC(kernels=[{"sigma": "scale"}, {"kernel": "linear"}]).fit(X, y)
    assert model._specs[0]["sigma"] == scale_sigma(X)
