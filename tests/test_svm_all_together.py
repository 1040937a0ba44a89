"""All-together (Weston-Watkins) multi-class SVM: the dual against scipy, KKT, invariances."""

import warnings

import numpy as np
import pytest
from scipy.optimize import Bounds, minimize
from sklearn.svm import SVC as SkSVC

from mixlib.core.exceptions import NotFittedError
from mixlib.core.base import clone
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.core.kernels import kernel_matrix
from mixlib.core.preprocessing import standardise
from mixlib.datasets import load_xy
from mixlib.svm._all_together_solver import solve_block
from mixlib.svm.all_together import AllTogetherSVC

KERNELS = {"linear": {"kernel": "linear"}, "gaussian": {"kernel": "gaussian", "sigma": 1.2}}


def blobs(seed, n=30, c=3, spread=1.0, p=2):
    """``c`` overlapping Gaussian clouds of ``n`` rows in total, labels "k0", "k1", ..."""
    rng = np.random.default_rng(seed)
    y_index = np.arange(n) % c
    centres = 2.0 * rng.normal(size=(c, p))
    X = centres[y_index] + spread * rng.normal(size=(n, p))
    return X, np.array([f"k{k}" for k in y_index])


def dual_matrices(K, y_index, c, upper):
    """The dual as ``1/2 a'Qa - 1'a`` over the variables ``alpha_{il}, l != y_i``.

    Returns ``Q``, the map ``M`` from those variables to ``beta`` (i-major, n x c), the
    bounds and the ``c x n_var`` matrix of the class sums ``sum_i beta_{im}``.
    """
    n = len(y_index)
    pairs = [(i, l) for i in range(n) for l in range(c) if l != y_index[i]]
    M = np.zeros((n * c, len(pairs)))
    for v, (i, l) in enumerate(pairs):
        M[i * c + y_index[i], v] = 1.0
        M[i * c + l, v] = -1.0
    Q = M.T @ np.kron(K, np.eye(c)) @ M
    sums = np.kron(np.ones((1, n)), np.eye(c)) @ M
    return Q, M, np.array([upper[i] for i, _ in pairs]), sums


def scipy_dual(K, y_index, c, C, exact_biases=False):
    """Direct solve with scipy: the bounded dual (``K + 1``) or the exact one
    (``K``, equality constraints ``sum_i beta_{im} = 0``), both by SLSQP. Returns the optimal
    objective and ``beta`` of shape (n, c)."""
    n = len(y_index)
    Q, M, upper, sums = dual_matrices(K if exact_biases else K + 1.0, y_index, c, np.full(n, C))

    def fun(a):
        return 0.5 * a @ Q @ a - a.sum(), Q @ a - 1.0

    # c - 1 of the c class sums: they add up to 0 identically
    equalities = [{"type": "eq", "fun": lambda a: sums[:-1] @ a, "jac": lambda a: sums[:-1]}]
    result = minimize(fun, np.zeros(len(upper)), jac=True, method="SLSQP",
                      bounds=Bounds(0, upper), constraints=equalities if exact_biases else (),
                      options={"ftol": 1e-15, "maxiter": 2000})
    # SLSQP's exit 8 ("positive directional derivative for linesearch") at ftol 1e-15: no
    # descent direction is left at rounding level, i.e. converged; whether it says 0 or 8
    # depends on the BLAS's rounding. Accept it only at a feasible point.
    assert result.success or result.status == 8, result.message
    assert np.all((result.x >= -1e-12) & (result.x <= upper + 1e-12))
    if exact_biases:
        np.testing.assert_allclose(sums @ result.x, 0.0, atol=1e-8)
    x = result.x if exact_biases else polish(Q, result.x, upper)
    return 0.5 * x @ Q @ x - x.sum(), (M @ x).reshape(n, c)


def polish(Q, a, upper):
    """Exact minimiser of ``1/2 a'Qa - 1'a`` on ``[0, upper]`` near an approximate one ``a``.

    Fixes the variables within 1e-6 of a bound, solves ``Q_FF a_F = 1 - Q_FB a_B`` for the
    others (least squares: ``Q_FF`` may be singular) and certifies the result: inside the box
    and a projected gradient below 1e-9.
    """
    low, high = a <= 1e-6 * upper, a >= (1 - 1e-6) * upper
    free = ~(low | high)
    x = np.where(high, upper, 0.0)
    x[free] = np.linalg.lstsq(Q[np.ix_(free, free)], 1.0 - Q[free] @ x, rcond=None)[0]
    grad = Q @ x - 1.0
    assert np.all((x[free] > 0) & (x[free] < upper[free]))
    assert np.all(grad[low] >= -1e-9) and np.all(grad[high] <= 1e-9)
    assert np.abs(grad[free]).max(initial=0.0) < 1e-9
    return x


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_dual_objective_matches_scipy(seed, kernel):
    X, y = blobs(seed)
    C = 1.5
    model = AllTogetherSVC(C=C, tol=1e-9, **KERNELS[kernel]).fit(X, y)
    K = kernel_matrix(X, **KERNELS[kernel])
    y_index = np.unique(y, return_inverse=True)[1]
    reference, beta = scipy_dual(K, y_index, 3, C)
    assert model.dual_objective_ == pytest.approx(reference, rel=1e-6)
    # the objective from the coefficients, independently of the solver's bookkeeping
    full_beta = np.zeros((len(y), 3))
    full_beta[model.support_] = model.dual_coef_.T
    ours = 0.5 * np.sum(full_beta * ((K + 1.0) @ full_beta)) - model.alpha_.sum()
    assert ours == pytest.approx(reference, rel=1e-6)
    np.testing.assert_allclose(full_beta, beta, atol=1e-4 * C)


@pytest.mark.parametrize("seed", [3, 4])
def test_kkt_conditions_and_predictions(seed):
    X, y = blobs(seed, n=60, spread=1.5)
    C, tol = 2.0, 1e-3
    model = AllTogetherSVC(C=C, sigma=0.9, tol=tol).fit(X, y)
    F = model.decision_function(X)
    y_index = np.unique(y, return_inverse=True)[1]
    rows = np.arange(len(y))
    grad = F[rows, y_index][:, None] - F - 1.0  # dD / d alpha_il, from the decisions
    alpha, other = model.alpha_, np.arange(3)[None, :] != y_index[:, None]
    assert np.all(alpha[~other] == 0.0) and np.all((alpha >= 0) & (alpha <= C))
    free = other & (alpha > 0) & (alpha < C)
    assert free.any()
    assert np.all(np.abs(grad[free]) <= 1.01 * tol)
    assert np.all(grad[other & (alpha == 0)] >= -1.01 * tol)
    assert np.all(grad[other & (alpha == C)] <= 1.01 * tol)
    np.testing.assert_allclose(model.intercept_, model.dual_coef_.sum(axis=1))
    X_new = blobs(seed + 10, n=40, spread=1.5)[0]
    np.testing.assert_array_equal(
        model.predict(X_new), model.classes_[model.decision_function(X_new).argmax(axis=1)])


def test_two_classes_separable():
    X, y = blobs(5, n=40, c=2, spread=0.2)
    model = AllTogetherSVC(C=100.0, kernel="linear").fit(X, y)
    F = model._class_values(X)
    assert F.shape == (40, 2)
    np.testing.assert_array_equal(model.decision_function(X), F[:, 1] - F[:, 0])
    np.testing.assert_array_equal(model.predict(X), y)
    # separable and C large: every margin constraint holds, no slack
    y_index = np.unique(y, return_inverse=True)[1]
    margins = F[np.arange(40), y_index] - F[np.arange(40), 1 - y_index]
    assert margins.min() >= 1.0 - 1e-2


def test_row_permutation_changes_nothing():
    X, y = blobs(6, n=45, spread=1.5)
    order = np.random.default_rng(0).permutation(len(y))
    first = AllTogetherSVC(C=3.0, sigma=1.1, tol=1e-10).fit(X, y)
    second = AllTogetherSVC(C=3.0, sigma=1.1, tol=1e-10).fit(X[order], y[order])
    X_new = blobs(16, n=30)[0]
    np.testing.assert_allclose(first.decision_function(X_new), second.decision_function(X_new),
                               atol=1e-6)
    assert first.dual_objective_ == pytest.approx(second.dual_objective_, rel=1e-10)


def test_sample_weight_two_equals_duplicated_row():
    X, y = blobs(7, n=36, spread=1.5)
    weight = np.ones(len(y))
    weight[[2, 5, 11]] = 2.0
    rows = np.concatenate([np.arange(len(y)), [2, 5, 11]])
    weighted = AllTogetherSVC(C=1.0, tol=1e-10).fit(X, y, sample_weight=weight)
    duplicated = AllTogetherSVC(C=1.0, tol=1e-10).fit(X[rows], y[rows])
    X_new = blobs(17, n=30)[0]
    np.testing.assert_allclose(weighted.decision_function(X_new),
                               duplicated.decision_function(X_new), atol=1e-6)
    zero = weight.copy()
    zero[4] = 0.0
    dropped = AllTogetherSVC(C=1.0, tol=1e-10).fit(X, y, sample_weight=zero)
    assert np.all(dropped.alpha_[4] == 0.0)


def test_row_cache_gives_the_full_gram_solution():
    X, y = blobs(8, n=300, spread=1.5)
    full = AllTogetherSVC(C=1.0, tol=1e-6).fit(X, y)
    cached = AllTogetherSVC(C=1.0, tol=1e-6, cache_size=0.2).fit(X, y)  # < 300^2 doubles
    np.testing.assert_allclose(full.alpha_, cached.alpha_, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_block_subproblem_is_solved_exactly(seed):
    rng = np.random.default_rng(seed)
    c = 4
    g, k = rng.normal(size=c), 0.5 + rng.random()
    lo, hi = -rng.random(c), rng.random(c)
    lo[1] = hi[1] = 0.0  # the fixed variable alpha_{i y_i}
    step = solve_block(g, k, lo, hi)

    def q(d):
        return g @ d + 0.5 * k * (d.sum() ** 2 + d @ d)

    H = k * (np.eye(c) + 1.0)
    reference = minimize(lambda d: (q(d), g + H @ d), np.zeros(c), jac=True, method="L-BFGS-B",
                         bounds=list(zip(lo, hi)), options={"ftol": 1e-15, "gtol": 1e-12})
    assert np.all((step >= lo) & (step <= hi))
    assert q(step) <= reference.fun + 1e-12
    np.testing.assert_allclose(step, reference.x, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_close_to_the_exact_biases_of_the_notes(seed):
    """Hsu & Lin's regularised biases against the notes' exact ones (dual with equalities).

    Our (w, b) is feasible for the exact primal with slacks ``max(0, 1 - margin)``; its primal
    value exceeds the exact optimum (minus the exact dual optimum) by under 0.5 % here (0.00 to
    0.03 % over five seeds and C = 1, 3), and the training and test predictions of both
    classifiers agree on at least 95 % of the rows.
    """
    X, y = blobs(seed, n=30, spread=1.5)
    C = 1.0
    model = AllTogetherSVC(C=C, sigma=1.2, tol=1e-9).fit(X, y)
    K = kernel_matrix(X, sigma=1.2)
    y_index = np.unique(y, return_inverse=True)[1]
    exact_dual, beta = scipy_dual(K, y_index, 3, C, exact_biases=True)
    np.testing.assert_allclose(beta.sum(axis=0), 0.0, atol=1e-8)
    rows = np.arange(len(y))

    def primal(beta_, b):
        F = K @ beta_ + b
        slack = np.maximum(0.0, 1.0 - (F[rows, y_index][:, None] - F))
        slack[rows, y_index] = 0.0
        return 0.5 * np.sum(beta_ * (K @ beta_)) + C * slack.sum(), F

    ours_beta = np.zeros((len(y), 3))
    ours_beta[model.support_] = model.dual_coef_.T
    ours_primal, ours_F = primal(ours_beta, model.intercept_)
    # exact biases from the free constraints: b_{y_i} - b_l = 1 - (F_{iy_i} - F_il), b_0 = 0
    F0 = K @ beta
    alpha = np.where(np.arange(3)[None, :] == y_index[:, None], 0.0, -beta)
    free = np.argwhere((alpha > 1e-5 * C) & (alpha < C * (1 - 1e-5)))
    A = np.zeros((len(free) + 1, 3))
    A[np.arange(len(free)), y_index[free[:, 0]]] += 1.0
    A[np.arange(len(free)), free[:, 1]] -= 1.0
    A[-1, 0] = 1.0
    rhs = np.append(1.0 - (F0[free[:, 0], y_index[free[:, 0]]] - F0[free[:, 0], free[:, 1]]), 0)
    b_exact = np.linalg.lstsq(A, rhs, rcond=None)[0]
    exact_primal, exact_F = primal(beta, b_exact)
    assert exact_primal == pytest.approx(-exact_dual, rel=1e-4)  # strong duality
    gap = (ours_primal - exact_primal) / exact_primal
    assert -1e-6 <= gap < 0.005
    assert np.mean(ours_F.argmax(axis=1) == exact_F.argmax(axis=1)) >= 0.95
    X_new = blobs(seed + 20, n=200, spread=1.5)[0]
    K_new = kernel_matrix(X_new, X, sigma=1.2)
    agree = np.mean((K_new @ ours_beta + model.intercept_).argmax(axis=1)
                    == (K_new @ beta + b_exact).argmax(axis=1))
    assert agree >= 0.95


def test_wine_accuracy_close_to_sklearn_one_vs_rest():
    X, y = load_xy("wine")
    train = np.zeros(len(y), dtype=bool)
    train[np.random.default_rng(0).permutation(len(y))[: 2 * len(y) // 3]] = True
    X = standardise(X, train)[0]
    C, sigma = 1.0, 3.0
    ours = AllTogetherSVC(C=C, sigma=sigma).fit(X[train], y[train])
    sk = SkSVC(C=C, gamma=1 / (2 * sigma**2), decision_function_shape="ovr").fit(X[train],
                                                                                 y[train])
    ours_error = np.mean(ours.predict(X[~train]) != y[~train])
    sk_error = np.mean(sk.predict(X[~train]) != y[~train])
    assert ours_error <= sk_error + 0.04
    assert ours_error < 0.1


def test_bad_parameters_name_the_parameter():
    X, y = blobs(0)
    for params, name in [({"C": 0.0}, "C"), ({"C": -1.0}, "C"), ({"kernel": "rbf"}, "kernel"),
                         ({"sigma": 0.0}, "sigma"), ({"tol": 0.0}, "tol"),
                         ({"max_iter": 0}, "max_iter")]:
        with pytest.raises(ValueError, match=name):
            AllTogetherSVC(**params).fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        AllTogetherSVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="sample_weight"):
        AllTogetherSVC().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(NotFittedError, match="not fitted"):
        AllTogetherSVC().predict(X)
    model = AllTogetherSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


def test_max_iter_warns_and_params_round_trip():
    X, y = blobs(1, n=60, spread=1.5)
    with pytest.warns(ConvergenceWarning, match="max_iter=5"):
        model = AllTogetherSVC(max_iter=5).fit(X, y)
    assert model.n_iter_ == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        AllTogetherSVC().fit(X, y)
    model = AllTogetherSVC(C=2.0, kernel="poly", degree=2)
    assert clone(model).get_params() == model.get_params()
    assert model.set_params(C=4.0).C == 4.0


@pytest.mark.parametrize("repeated", [False, True])
def test_bordered_free_set_solve_equals_a_new_factorisation(repeated):
    """Solving a free set through the factorisation of a nearby one gives the solution of
    ``H_FF x = r``: through the bordering on a well-conditioned Hessian, and through a new
    factorisation, backward stable, when repeated rows leave the factorised one singular."""
    from mixlib.svm._all_together_newton import FreeSetSystem
    from mixlib.svm._all_together_state import DualState

    X, y = blobs(9, n=150, spread=1.5)
    if repeated:
        X = np.vstack([X, X[:20]])
        y = np.concatenate([y, y[:20]])
    y_index = np.unique(y, return_inverse=True)[1]
    order = np.argsort(y_index, kind="stable")
    gram = kernel_matrix(X[order], sigma=0.3)
    state = DualState.start(gram.__getitem__, np.diagonal(gram).copy(), y_index[order],
                            np.ones(len(y)), 3)
    system = FreeSetSystem(state)
    rng = np.random.default_rng(0)
    variables = np.flatnonzero(state.other)
    base = np.sort(rng.choice(variables, 240, replace=False))
    system.solve(base, rng.normal(size=len(base)))
    outside = np.setdiff1d(variables, base)
    free = np.sort(np.concatenate([np.delete(base, [3, 50, 100]),
                                   rng.choice(outside, 5, replace=False)]))
    rhs = rng.normal(size=len(free))
    x = system.solve(free, rhs)
    hessian = state.hessian(free, free)
    hessian.flat[::len(free) + 1] += system.ridge
    if repeated:  # refactorised: residual at rounding level of |H| |x|
        assert system.free is free
        scale = np.abs(hessian).max() * np.abs(x).max()
        np.testing.assert_allclose(hessian @ x, rhs, atol=1e-12 * scale)
    else:
        assert system.free is base
        np.testing.assert_allclose(x, np.linalg.solve(hessian, rhs), rtol=1e-9,
                                   atol=1e-9 * np.abs(x).max())


def small_problem_state(seed, n=40, c=3):
    """A dual state of ``blobs`` rows sorted by class, at a point reached by 20 descent updates."""
    from mixlib.svm._all_together_solver import coordinate_descent
    from mixlib.svm._all_together_state import DualState

    X, y = blobs(seed, n=n, c=c, spread=1.5)
    y_index = np.unique(y, return_inverse=True)[1]
    order = np.argsort(y_index, kind="stable")
    gram = kernel_matrix(X[order], sigma=0.9)
    state = DualState.start(gram.__getitem__, np.diagonal(gram).copy(), y_index[order],
                            np.full(n, 2.0), c)
    coordinate_descent(state, 1e-3, 20)
    return state


@pytest.mark.parametrize("c", [2, 3, 4])
def test_small_problem_hessian_gives_the_products_of_the_kernel_rows(c, monkeypatch):
    """The Hessian kept on small problems gives the gradient changes and Hessian blocks that
    the per-class products with the Gram matrix give."""
    from mixlib.svm import _all_together_state

    small = small_problem_state(5, c=c)
    monkeypatch.setattr(_all_together_state, "SMALL_PROBLEM_FLOPS", 0.0)
    large = small_problem_state(5, c=c)
    assert small.hessian_all is not None and large.hessian_all is None
    rng = np.random.default_rng(c)
    for rows in (np.arange(40), np.array([3, 17])):  # dense and sparse gradient changes
        delta = np.zeros_like(small.alpha)
        delta[rows] = rng.normal(size=(len(rows), c))
        delta[~small.other] = 0.0
        np.testing.assert_allclose(small.gradient_change(delta), large.gradient_change(delta),
                                   rtol=1e-12, atol=1e-12)
    variables = np.flatnonzero(small.other)
    left, right = rng.choice(variables, 15), rng.choice(variables, 9)
    np.testing.assert_array_equal(small.hessian(left, right), large.hessian(left, right))


@pytest.mark.parametrize("seed", [6, 7])
def test_small_problem_hessian_gives_the_same_solution(seed, monkeypatch):
    from mixlib.svm import _all_together_state

    X, y = blobs(seed, n=90, spread=1.5)
    small = AllTogetherSVC(C=3.0, sigma=0.8).fit(X, y)
    monkeypatch.setattr(_all_together_state, "SMALL_PROBLEM_FLOPS", 0.0)
    large = AllTogetherSVC(C=3.0, sigma=0.8).fit(X, y)
    assert small.dual_objective_ == pytest.approx(large.dual_objective_, rel=1e-9)
    np.testing.assert_allclose(small.alpha_, large.alpha_, atol=1e-7)
    X_new = blobs(seed + 30, n=200, spread=1.5)[0]
    np.testing.assert_array_equal(small.predict(X_new), large.predict(X_new))


def test_indefinite_free_set_hessian_raises_linalg_error():
    """The free-set factorisation (LAPACK potrf, called directly) reports a Hessian that is not
    positive definite as scipy's ``LinAlgError``, which the Newton step leaves to the descent."""
    from scipy.linalg import LinAlgError

    from mixlib.svm._all_together_newton import FreeSetSystem
    from mixlib.svm._all_together_state import DualState

    rng = np.random.default_rng(0)
    basis = rng.normal(size=(12, 12))
    indefinite = basis @ np.diag(np.linspace(-3.0, 1.0, 12)) @ basis.T
    y = np.repeat([0, 1, 2], 4)
    state = DualState.start(indefinite.__getitem__, np.diagonal(indefinite).copy(), y,
                            np.ones(12), 3)
    with pytest.raises(LinAlgError, match="not positive definite"):
        FreeSetSystem(state).solve(np.flatnonzero(state.other), np.ones(24))
