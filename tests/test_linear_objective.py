"""The objective of logistic regression as the fit evaluates it: bit for bit the sample-major
formula it replaced (so L-BFGS takes the same path), on sparse and dense designs, two to nine
classes, with sample weights; and its gradient against finite differences."""

import numpy as np
import pytest
import scipy.sparse
from scipy.optimize import approx_fprime
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from mixlib.linear_model._softmax import (
    COMPILED_MAX_CLASSES,
    DenseProducts,
    SoftmaxLoss,
    SparseProducts,
    _csr_from_dense,
    fit_products,
    softmax_objective,
)
from mixlib.linear_model._sparse_loop import compressed_product
from mixlib.linear_model.logistic import LogisticRegression


def _one_hot(seed, n=120, positions=12, n_classes=3):
    """DNA-like rows: one of four indicators per position, a few rows of ambiguous quarters."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(n, positions))
    X = np.zeros((n, 4 * positions))
    X[np.arange(n)[:, None], 4 * np.arange(positions) + codes] = 1.0
    X[rng.random(n) < 0.1, :4] = 0.25
    y = (codes[:, :3].sum(axis=1) + rng.integers(0, 2, n)) % n_classes
    return X, y


def _problem(layout, n_classes, fit_intercept, seed=0):
    """``X``, one-hot ``T``, weights and a point ``params`` of a random problem."""
    rng = np.random.default_rng(seed)
    if layout == "dense":
        y = rng.integers(0, n_classes, 90)
        X = rng.normal(size=(90, 5)) + y[:, None]
    else:
        X, y = _one_hot(seed, n_classes=n_classes)
    T = np.eye(n_classes)[y]
    params = rng.normal(size=n_classes * (X.shape[1] + int(fit_intercept)))
    return X, T, rng.uniform(0.2, 2.0, len(y)), params


def _former_objective(params, X, T, weight, C, fit_intercept):
    """The objective as computed before (commit 1fbf240): sample-major scores, row maxima and
    sums by columns (numpy's row sums from 8 classes), intercepts added and summed apart."""
    n_classes, n_features = T.shape[1], X.shape[1]
    W = params[: n_classes * n_features].reshape(n_classes, n_features)
    scores = X @ W.T
    if fit_intercept:
        scores += params[n_classes * n_features:]
    shift, norm = scores[:, 0].copy(), None
    for k in range(1, n_classes):
        np.maximum(shift, scores[:, k], out=shift)
    exp_scores = np.exp(scores - shift[:, None])
    if n_classes < 8:
        norm = exp_scores[:, 0].copy()
        for k in range(1, n_classes):
            norm += exp_scores[:, k]
    else:
        norm = exp_scores.sum(axis=1)
    value = weight @ (shift + np.log(norm) - np.einsum("nk,nk->n", T, scores))
    value = (value + 0.5 / C * np.einsum("kj,kj->", W, W)) / weight.sum()
    residual = (exp_scores / norm[:, None] - T) * weight[:, None]
    data_term = (X.T @ residual).T if scipy.sparse.issparse(X) else residual.T @ X
    gradient = ((data_term + W / C) / weight.sum()).ravel()
    if fit_intercept:
        gradient = np.concatenate([gradient, residual.sum(axis=0) / weight.sum()])
    return value, gradient


@pytest.mark.parametrize("n_classes", [2, 3, 9])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_objective_is_the_former_formula_bit_for_bit(layout, n_classes, fit_intercept):
    """Class-major scores, the intercept as a column of ones: the same value and gradient, to
    the last bit, as the sample-major formula (scipy's CSC products for sparse rows)."""
    X, T, weight, params = _problem(layout, n_classes, fit_intercept)
    products = fit_products(X, fit_intercept, n_classes)
    assert isinstance(products, SparseProducts if layout == "sparse" else DenseProducts)
    if layout == "sparse":
        assert (products.compiled is not None) == (n_classes <= COMPILED_MAX_CLASSES)
    value, gradient = SoftmaxLoss(products, T, weight, 0.7, fit_intercept)(params)
    design = scipy.sparse.csc_array(X) if layout == "sparse" else X
    former_value, former_gradient = _former_objective(params, design, T, weight, 0.7, fit_intercept)
    assert value == former_value
    np.testing.assert_array_equal(gradient, former_gradient)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_sparse_input_and_designs_agree(fit_intercept):
    """A scipy sparse ``X`` gives the former formula's bits; dense BLAS (sums in another order)
    agrees to rounding."""
    X, T, weight, params = _problem("sparse", 4, fit_intercept, seed=1)
    sparse = scipy.sparse.csr_matrix(X)
    value, gradient = softmax_objective(params, sparse, T, weight, 2.0, fit_intercept)
    former = _former_objective(params, scipy.sparse.csr_array(X), T, weight, 2.0, fit_intercept)
    assert value == former[0]
    np.testing.assert_array_equal(gradient, former[1])
    dense_value, dense_gradient = softmax_objective(params, X, T, weight, 2.0, fit_intercept)
    assert dense_value == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(dense_gradient, gradient, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_sparse_gradient_matches_finite_differences(fit_intercept):
    X, T, weight, params = _problem("sparse", 3, fit_intercept, seed=2)
    loss = SoftmaxLoss(SparseProducts(X, fit_intercept, 3), T, weight, 0.3, fit_intercept)
    numeric = approx_fprime(params, lambda p: loss(p)[0], 1e-7)
    np.testing.assert_allclose(loss(params)[1], numeric, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("width", [1, 2, 3])
def test_compiled_product_is_scipys_bit_for_bit(width):
    """The compiled loop adds the same terms in the same order as scipy's sparse product."""
    rng = np.random.default_rng(width)
    dense = rng.normal(size=(50, 30)) * (rng.random((50, 30)) < 0.3)
    dense[[3, 17]] = 0.0
    A = scipy.sparse.csr_array(dense)
    block = rng.normal(size=(30, width))
    out = np.full((width, 50), np.nan)
    compressed_product(A.indptr, A.indices, A.data, block, out)
    np.testing.assert_array_equal(out, (A.tocsc() @ block).T)


def test_csr_from_dense_is_scipys():
    """Same arrays as scipy's conversion, empty rows and columns included."""
    X, _ = _one_hot(3, n=30)
    X[4] = 0.0
    X[:, 7] = 0.0
    for A in (X, X[:1], np.zeros((3, 5))):
        ours, theirs = _csr_from_dense(A), scipy.sparse.csr_array(A)
        for name in ("indptr", "indices", "data"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))
            assert getattr(ours, name).dtype == getattr(theirs, name).dtype
        assert ours.has_sorted_indices


def test_one_hot_fit_matches_sklearn():
    """The sparse design in a whole fit: scikit-learn's optimum (same objective times C)."""
    X, y = _one_hot(4, n=200)
    ours = LogisticRegression(C=0.5, tol=1e-10).fit(X, y)
    theirs = SkLogisticRegression(C=0.5, tol=1e-10, max_iter=10_000).fit(X, y)
    assert ours.converged_ and isinstance(fit_products(X, True, 3), SparseProducts)
    # Indicator groups that sum to one make the optimum flat along a few directions.
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-7)
