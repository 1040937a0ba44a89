"""Row-wise log-sum-exp: exact values, IEEE edge cases, and scipy's result to the last bit."""

import numpy as np
import pytest
import scipy
from scipy.special import logsumexp

from mixlib.core.log_space import exp_flushed, logsumexp_rows

# scipy >= 1.15 computes log1p(sum of the non-maximal terms / c) + log c + max, as we do.
SCIPY_SAME_ALGORITHM = tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 15)


def test_hand_worked_rows():
    a = np.array([[0.0, 0.0], [1000.0, 1000.0], [-1000.0, -1001.0], [np.log(2.0), np.log(3.0)]])
    expected = [np.log(2.0), 1000.0 + np.log(2.0), -1000.0 + np.log1p(np.exp(-1.0)), np.log(5.0)]
    np.testing.assert_allclose(logsumexp_rows(a), expected, rtol=1e-15)


def test_ieee_edge_cases_and_shapes():
    a = np.array([[-np.inf, -np.inf], [np.inf, 0.0], [np.nan, 0.0], [-np.inf, 2.0]])
    out = logsumexp_rows(a)
    assert out[0] == -np.inf and out[1] == np.inf and np.isnan(out[2]) and out[3] == 2.0
    assert logsumexp_rows(a, keepdims=True).shape == (4, 1)
    np.testing.assert_array_equal(logsumexp_rows(np.empty((3, 0))), [-np.inf] * 3)
    with pytest.raises(ValueError, match="2-D"):
        logsumexp_rows(np.zeros(3))


def test_rows_are_independent_and_columns_commute():
    rng = np.random.default_rng(3)
    a = rng.normal(scale=20.0, size=(40, 5))
    out = logsumexp_rows(a)
    perm = rng.permutation(40)
    np.testing.assert_array_equal(logsumexp_rows(a[perm]), out[perm])
    np.testing.assert_allclose(logsumexp_rows(a[:, ::-1]), out, rtol=1e-15)


def test_matches_scipy_to_the_last_bit():
    rng = np.random.default_rng(20061)
    specials = np.array([-np.inf, np.inf, np.nan, -1e308, 1e308, 0.0, -0.0, 5e-324])
    for trial in range(2000):
        n, c = rng.integers(1, 40), rng.integers(1, 7)
        a = rng.normal(scale=rng.choice([1e-300, 1e-3, 1.0, 30.0, 800.0]), size=(n, c))
        if trial % 3 == 0:
            a = np.round(a)  # ties at the maximum
        if trial % 5 == 0:
            cells = rng.integers(0, n * c, size=rng.integers(1, n * c + 1))
            a.flat[cells] = rng.choice(specials, size=cells.size)
        with np.errstate(all="ignore"):
            expected = logsumexp(a, axis=1)
        got = logsumexp_rows(a)
        if SCIPY_SAME_ALGORITHM:
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.skipif(not SCIPY_SAME_ALGORITHM, reason="scipy < 1.15 sums differently")
def test_terms_beyond_exp_underflow_match_scipy_to_the_last_bit():
    # Terms left out without calling exp (a_nj - m_n < -745.2) are those exp rounds to +0:
    # rows whose terms straddle that edge (and the smallest subnormal's) give scipy's bits.
    # With a maximum of 0 (even rows) the result is the sum of the subnormal terms itself,
    # so a term wrongly left out would show.
    rng = np.random.default_rng(7)
    a = -rng.uniform(735.0, 755.0, size=(300, 12))
    a[:, 0] = rng.normal(size=300)
    a[::2, 0] = 0.0
    a[:, 1:] += a[:, :1]
    a[::7, 1:4] = a[::7, :1] + np.array([-745.13, -745.14, -745.2])
    np.testing.assert_array_equal(logsumexp_rows(a), logsumexp(a, axis=1))
    np.testing.assert_array_equal(logsumexp_rows(a - 1e-3), logsumexp(a - 1e-3, axis=1))


def test_exp_flushed_is_numpys_exp_bit_for_bit():
    # Around the subnormal range's end (exp(-745.13) is the smallest subnormal, below it +0),
    # the specials, and ordinary values.
    rng = np.random.default_rng(11)
    edge = -745.2 + np.linspace(-0.5, 2.0, 2001)
    x = np.concatenate([edge, [-np.inf, np.inf, np.nan, -0.0, 0.0, 709.0, 710.0, -1e308],
                        rng.normal(scale=400.0, size=503)]).reshape(-1, 8)
    with np.errstate(over="ignore"):
        expected = np.exp(x)
        got = exp_flushed(x)
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))
    assert (got[x < -745.2] == 0.0).all() and (got[(x > -745.13) & (x < 0)] > 0.0).all()
