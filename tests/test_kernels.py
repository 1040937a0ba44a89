"""Kernel matrices against scikit-learn's pairwise kernels, and the kernel-row cache."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from mixlib.svm._smo import KernelRowCache, kernel_rows
from mixlib.core.kernels import kernel_diagonal, kernel_matrix


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(37, 5)), rng.normal(size=(23, 5))


def test_gaussian_equals_rbf_with_gamma(data):
    X, Y = data
    sigma = 1.7
    np.testing.assert_allclose(kernel_matrix(X, Y, kernel="gaussian", sigma=sigma),
                               rbf_kernel(X, Y, gamma=1 / (2 * sigma**2)), rtol=1e-12, atol=1e-14)


def test_polynomial_and_linear(data):
    X, Y = data
    np.testing.assert_allclose(kernel_matrix(X, Y, kernel="poly", degree=3),
                               polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=1.0), rtol=1e-12)
    np.testing.assert_allclose(kernel_matrix(X, Y, kernel="linear"), linear_kernel(X, Y),
                               rtol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "poly", "gaussian"])
def test_blocks_and_diagonal(data, kernel):
    X, _ = data
    full = kernel_matrix(X, kernel=kernel, degree=2, sigma=0.9)
    blocked = kernel_matrix(X, kernel=kernel, degree=2, sigma=0.9, block_size=5)
    np.testing.assert_allclose(blocked, full, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel_diagonal(X, kernel=kernel, degree=2, sigma=0.9),
                               np.diagonal(full), rtol=1e-12)


def test_row_cache_is_lru_and_exact(data):
    X, _ = data
    gram = kernel_matrix(X, kernel="gaussian", sigma=1.2)
    cache = KernelRowCache(X, kernel="gaussian", degree=3, sigma=1.2,
                           cache_size=3 * 8 * X.shape[0] / 2**20)
    assert cache.capacity == 3
    for i in [0, 1, 2, 0, 3]:  # 1 is the least recently used when 3 arrives
        np.testing.assert_allclose(cache(i), gram[i], rtol=1e-12, atol=1e-14)
    assert cache.rows_by_recency() == [2, 0, 3]
    assert cache.n_computed == 4
    get_row, diag = kernel_rows(X, kernel="gaussian", degree=3, sigma=1.2, cache_size=1e-3)
    assert isinstance(get_row, KernelRowCache)
    np.testing.assert_allclose(diag, 1.0)


@pytest.mark.parametrize("kwargs, match", [
    ({"kernel": "rbf"}, "kernel must be one of"),
    ({"kernel": "poly", "degree": 0}, "degree must be an integer"),
    ({"kernel": "gaussian", "sigma": -1.0}, "sigma must be a finite float > 0"),
])
def test_bad_kernel_parameters(data, kwargs, match):
    with pytest.raises(ValueError, match=match):
        kernel_matrix(data[0], **kwargs)
