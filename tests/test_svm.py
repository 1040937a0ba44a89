"""C-SVM by SMO against scikit-learn's SVC (libsvm): same solution, objective and decisions."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC as SkSVC

from mixlib.core.exceptions import NotFittedError
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import kernel_matrix
from mixlib.svm.svc import SVC, gram_block

KERNEL_ARGS = {
    "gaussian": ({"sigma": 1.3}, {"kernel": "rbf", "gamma": 1 / (2 * 1.3**2)}),
    "poly": ({"degree": 2}, {"kernel": "poly", "degree": 2, "gamma": 1.0, "coef0": 1.0}),
    "linear": ({}, {"kernel": "linear"}),
}


def binary_problem(seed, n=90, p=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = np.where(X[:, 0] + X[:, 1] ** 2 - 1 + 0.7 * rng.normal(size=n) > 0, "b", "a")
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kernel", ["gaussian", "poly", "linear"])
@pytest.mark.parametrize("C", [0.3, 5.0])
def test_binary_matches_libsvm(seed, kernel, C):
    X, y = binary_problem(seed)
    ours_args, sk_args = KERNEL_ARGS[kernel]
    ours = SVC(C=C, kernel=kernel, tol=1e-9, **ours_args).fit(X, y)
    sk = SkSVC(C=C, tol=1e-9, **sk_args).fit(X, y)
    # same support vectors (scikit-learn lists them grouped by class) and coefficients
    order = np.argsort(sk.support_)
    np.testing.assert_array_equal(ours.support_, sk.support_[order])
    # Both stop at a 1e-9 KKT violation. The degree-2 polynomial Gram matrix has rank 15 < n,
    # so its dual is flat in some directions: objectives agree to 1e-12 but decisions only to
    # about the square root of that gap times the kernel scale (~50), hence a looser atol.
    atol = 1e-4 if kernel == "poly" else 1e-5
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=atol)
    X_test = np.random.default_rng(seed + 100).normal(size=(50, X.shape[1]))
    np.testing.assert_allclose(ours.decision_function(X_test), sk.decision_function(X_test),
                               atol=atol)
    np.testing.assert_allclose(ours.dual_coef_[0], sk.dual_coef_[0, order], atol=atol * C)
    np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))
    # dual objective 1/2 a'Ga - e'a computed from libsvm's own coefficients
    K_sv = kernel_matrix(X[sk.support_], kernel=kernel, **ours_args)
    beta = sk.dual_coef_[0]
    libsvm_objective = 0.5 * beta @ K_sv @ beta - np.abs(beta).sum()
    np.testing.assert_allclose(ours.dual_objective_[0], libsvm_objective, rtol=1e-8)


@pytest.mark.parametrize("seed", [3, 4])
def test_kkt_conditions_at_default_tolerance(seed):
    X, y = binary_problem(seed, n=120)
    C, tol = 2.0, 1e-3
    model = SVC(C=C, sigma=0.8, tol=tol).fit(X, y)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[model.support_] = model.dual_coef_[0] * signs[model.support_]
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    assert abs(alpha @ signs) < 1e-10
    margin = signs * model.decision_function(X) - 1.0
    assert np.all(margin[alpha == 0] >= -tol)
    assert np.all(margin[alpha == C] <= tol)
    free = (alpha > 0) & (alpha < C)
    assert free.any() and np.all(np.abs(margin[free]) <= tol)
    # the objective reported is the one of the returned alpha
    G = np.outer(signs, signs) * kernel_matrix(X, sigma=0.8)
    np.testing.assert_allclose(model.dual_objective_[0], 0.5 * alpha @ G @ alpha - alpha.sum(),
                               rtol=1e-10)


def multiclass_problem(seed, n=120):
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [2, 0], [0, 2], [2, 2]])
    labels = rng.integers(0, 4, size=n)
    X = centres[labels] + rng.normal(scale=0.9, size=(n, 2))
    return X, np.array(["w", "x", "y", "z"])[labels]


@pytest.mark.parametrize("seed", [0, 1])
def test_one_vs_one_matches_libsvm(seed):
    X, y = multiclass_problem(seed)
    ours = SVC(C=3.0, sigma=0.7, tol=1e-9).fit(X, y)
    sk = SkSVC(C=3.0, gamma=1 / (2 * 0.7**2), tol=1e-9).fit(X, y)
    X_test = np.random.default_rng(seed).uniform(-1, 3, size=(80, 2))
    assert ours.problems_ == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    np.testing.assert_array_equal(ours.support_, np.sort(sk.support_))
    np.testing.assert_allclose(ours.decision_function(X_test), sk.decision_function(X_test),
                               atol=1e-6)
    pairwise = ours.set_params(decision_function_shape="ovo").decision_function(X_test)
    np.testing.assert_allclose(pairwise, sk.set_params(decision_function_shape="ovo")
                               .decision_function(X_test), atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))
    ours.set_params(break_ties=True, decision_function_shape="ovr")
    sk.set_params(break_ties=True, decision_function_shape="ovr")
    np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))
    np.testing.assert_array_equal(ours.predict(X_test),
                                  ours.classes_[ours.decision_function(X_test).argmax(axis=1)])


def test_one_vs_all_matches_binary_libsvm():
    X, y = multiclass_problem(5)
    ours = SVC(C=1.0, sigma=0.7, tol=1e-9, multiclass="ova").fit(X, y)
    sk = OneVsRestClassifier(SkSVC(C=1.0, gamma=1 / (2 * 0.7**2), tol=1e-9)).fit(X, y)
    X_test = np.random.default_rng(0).uniform(-1, 3, size=(80, 2))
    assert ours.problems_ == [(0, -1), (1, -1), (2, -1), (3, -1)]
    np.testing.assert_allclose(ours.decision_function(X_test), sk.decision_function(X_test),
                               atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X_test), sk.predict(X_test))


@pytest.mark.parametrize("multiclass", ["ovo", "ova"])
@pytest.mark.parametrize("kernel", ["gaussian", "poly", "linear"])
def test_shared_gram_gives_each_problem_its_own_binary_fit(multiclass, kernel):
    # Several problems share one Gram matrix of all rows; each must get exactly the solution
    # of a binary SVC fit on its own rows (which computes its own Gram matrix), bit for bit.
    X, y = multiclass_problem(3)
    y = np.where(y == y[0], "first", y.astype(str))  # string labels, one class renamed
    ours_args, _ = KERNEL_ARGS[kernel]
    shared = SVC(C=2.0, multiclass=multiclass, **ours_args).fit(X, y)
    for k, (pos, neg) in enumerate(shared.problems_):
        rows = np.flatnonzero(np.isin(y, shared.classes_[[pos, neg]])) if neg >= 0 else \
            np.arange(len(y))
        # a binary SVC's positive class is its classes_[1]: "pos" here
        labels = np.where(y[rows] == shared.classes_[pos], "pos", "other")
        alone = SVC(C=2.0, **ours_args).fit(X[rows], labels)
        assert alone.classes_[1] == "pos"
        assert shared.n_iter_[k] == alone.n_iter_[0]
        assert shared.dual_objective_[k] == alone.dual_objective_[0]
        assert shared.intercept_[k] == alone.intercept_[0]
        in_problem = shared.dual_coef_[k][np.isin(shared.support_, rows[alone.support_])]
        np.testing.assert_array_equal(np.sort(in_problem), np.sort(alone.dual_coef_[0]))


def test_bias_without_free_support_vectors_is_libsvm_midpoint():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.repeat([0, 1], 20)  # balanced and overlapping: every alpha_i = C for tiny C
    ours = SVC(C=1e-3, sigma=1.0, tol=1e-9).fit(X, y)
    sk = SkSVC(C=1e-3, gamma=0.5, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(np.abs(ours.dual_coef_[0]), 1e-3)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, rtol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-9)


def test_sample_weight_scales_c_as_libsvm():
    X, y = binary_problem(7)
    weight = np.random.default_rng(7).uniform(0.2, 3.0, size=len(y))
    ours = SVC(C=1.5, sigma=1.0, tol=1e-9).fit(X, y, sample_weight=weight)
    sk = SkSVC(C=1.5, gamma=0.5, tol=1e-9).fit(X, y, sample_weight=weight)
    np.testing.assert_allclose(ours.decision_function(X), sk.decision_function(X), atol=1e-6)


def test_row_cache_gives_the_full_gram_solution():
    X, y = binary_problem(8, n=150)
    full = SVC(C=2.0, sigma=1.0, tol=1e-6).fit(X, y)
    cached = SVC(C=2.0, sigma=1.0, tol=1e-6, cache_size=20 * 8 * 150 / 2**20).fit(X, y)
    np.testing.assert_array_equal(cached.support_, full.support_)
    np.testing.assert_allclose(cached.decision_function(X), full.decision_function(X),
                               atol=1e-8)


def test_convergence_warning_and_validation():
    X, y = binary_problem(9)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        SVC(max_iter=2).fit(X, y)
    with pytest.raises(ValueError, match="C must be a finite float > 0, got -1"):
        SVC(C=-1).fit(X, y)
    with pytest.raises(ValueError, match="multiclass must be 'ovo' or 'ova', got 'all'"):
        SVC(multiclass="all").fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        SVC().fit(X, np.zeros(len(y)))
    with pytest.raises(NotFittedError, match="not fitted"):
        SVC().predict(X)
    with pytest.raises(ValueError, match="X has 3 features, but SVC is expecting 4 features"):
        SVC().fit(X, y).predict(X[:, :3])


def test_scikit_learn_clone_and_score():
    X, y = binary_problem(10)
    model = SVC(C=2.0, sigma=0.9)
    copy = clone(model)
    assert copy.get_params()["C"] == 2.0 and copy.get_params()["sigma"] == 0.9
    sk = SkSVC(C=2.0, gamma=1 / (2 * 0.81)).fit(X, y)
    assert copy.fit(X, y).score(X, y) == pytest.approx(sk.score(X, y))


def test_sigma_scale_is_resolved_in_fit_as_scikit_learns_gamma_scale():
    """sigma="scale" is sqrt(d var(X) / 2): libsvm with gamma="scale" gives the same model."""
    from sklearn.svm import SVC as SkSVC

    from mixlib.core.kernels import scale_sigma
    from mixlib.catalogue.registry import resolve_data_dependent
    from mixlib.svm import SVDD, AllTogetherSVC

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5)) * [1.0, 2.0, 0.5, 3.0, 1.0]
    y = (X[:, 0] + X[:, 1] * X[:, 3] > 0).astype(int)
    ours = SVC(C=3.0, sigma="scale", tol=1e-8).fit(X, y)
    theirs = SkSVC(C=3.0, gamma="scale", tol=1e-8).fit(X, y)
    assert 1.0 / (2.0 * ours.sigma_**2) == pytest.approx(theirs._gamma, rel=1e-12)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               atol=1e-5)
    assert ours.sigma == "scale"  # the parameter is left as given
    # one formula for the estimators and the pipeline's resolution of sigma: scale
    assert resolve_data_dependent({"sigma": "scale"}, X)["sigma"] == ours.sigma_ \
        == scale_sigma(X) == AllTogetherSVC(sigma="scale").fit(X, y).sigma_ \
        == SVDD(sigma="scale").fit(X).sigma_
    assert scale_sigma(np.ones((4, 2))) == 1.0
    with pytest.raises(ValueError, match="sigma must be a finite float > 0 or 'scale', got 'auto'"):
        SVC(sigma="auto").fit(X, y)


def test_gram_block_is_the_two_axis_selection_c_contiguous():
    """A one-vs-one problem's block of the shared Gram matrix: the very entries of
    ``gram[np.ix_(rows, rows)]``, C-contiguous (the compiled SMO loop reads its rows), and the
    matrix itself when the problem takes every row."""
    rng = np.random.default_rng(3)
    gram = rng.random((40, 40))
    for rows in (np.sort(rng.choice(40, 23, replace=False)), np.array([5]), np.arange(1, 40)):
        block = gram_block(gram, rows)
        assert block.flags.c_contiguous and block.shape == (len(rows), len(rows))
        np.testing.assert_array_equal(block, gram[np.ix_(rows, rows)])
    assert gram_block(gram, np.arange(40)) is gram
