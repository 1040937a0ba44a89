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


def four_blobs(n=160, seed=5, scale=0.9, centres=((0, 0), (2, 0), (0, 2), (2, 2))):
    """Four overlapping classes: rows with a tie in one-vs-one votes."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, size=n)
    return np.array(centres)[labels] + rng.normal(scale=scale, size=(n, 2)), labels


def wine_standardised():
    from mixlib.datasets import load_xy

    X, y = load_xy("wine")
    return (X - X.mean(axis=0)) / X.std(axis=0), y


@pytest.mark.parametrize("data", [four_blobs, lambda: four_blobs(90, 11), wine_standardised,
                                  lambda: ring_problem(3)], ids=["blobs", "blobs2", "wine", "ring"])
def test_argmax_of_decision_function_is_the_prediction(data):
    from mixlib.svm.svc import ovo_votes

    X, labels = data()
    model = MKLSVC(C=1.0, kernels=KERNELS).fit(X, labels)
    scores, predicted = model.decision_function(X), model.predict(X)
    n_classes = len(model.classes_)
    if n_classes == 2:
        assert scores.shape == (len(X),)
        np.testing.assert_array_equal(predicted, model.classes_[(scores > 0).astype(int)])
        return
    assert scores.shape == (len(X), n_classes)
    np.testing.assert_array_equal(model.classes_[scores.argmax(axis=1)], predicted)
    # the prediction is a class with the most votes: libsvm's where the votes do not tie
    votes = ovo_votes(model._decision_matrix(X), model.problems_, n_classes)
    winners = votes == votes.max(axis=1, keepdims=True)
    assert winners[np.arange(len(X)), np.searchsorted(model.classes_, predicted)].all()
    tied = winners.sum(axis=1) > 1
    np.testing.assert_array_equal(predicted[~tied], model.classes_[votes.argmax(axis=1)][~tied])
    assert np.mean(predicted == labels) > 0.6


def test_ties_in_votes_go_to_the_largest_summed_confidence():
    from mixlib.svm.svc import ovo_votes

    model = MKLSVC(C=1.0, kernels=KERNELS).fit(
        *four_blobs(120, 0, 1.5, centres=((0, 0), (2, 0), (1, 1.7), (2, 2))))
    X = np.stack(np.meshgrid(np.linspace(-3, 5, 81), np.linspace(-3, 5, 81)), -1).reshape(-1, 2)
    values = model._decision_matrix(X)
    votes = ovo_votes(values, model.problems_, 4)
    tied = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) > 1
    assert tied.sum() >= 20
    np.testing.assert_array_equal(model.predict(X), model.decision_function(X).argmax(axis=1))
    # by hand: the summed decision value of each class, taken positive for it
    confidence = np.zeros((len(X), 4))
    for k, (pos, neg) in enumerate(model.problems_):
        confidence[:, pos] += values[:, k]
        confidence[:, neg] -= values[:, k]
    confidence[votes < votes.max(axis=1, keepdims=True)] = -np.inf
    np.testing.assert_array_equal(model.predict(X)[tied], confidence.argmax(axis=1)[tied])
    assert "break_ties" not in model.get_params()


def test_kernels_take_sigma_scale():
    from mixlib.core.kernels import scale_sigma

    X, y = ring_problem(7)
    model = MKLSVC(kernels=[{"sigma": "scale"}, {"kernel": "linear"}]).fit(X, y)
    assert model._specs[0]["sigma"] == scale_sigma(X)
