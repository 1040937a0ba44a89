"""Intervals that respect a quantity's range, and the prediction interval of one run."""

import numpy as np
import pytest
from scipy import stats

from mixlib.analysis.intervals import (
    EXACT, LOGIT, NON_NEGATIVE, NONE, SHARE, SHARE_GAP, T, empirical_prediction_interval, mean_interval,
    prediction_interval,
)


def test_a_share_near_zero_keeps_its_interval_inside_0_1_and_matches_the_delta_method():
    x = np.array([0.0, 0.0, 0.0, 0.03, 0.0, 0.0, 0.028, 0.0, 0.0, 0.0])
    m, s, n = x.mean(), x.std(ddof=1), len(x)
    (low,), (high,), (method,) = mean_interval(m, s, n, 0.05, SHARE)
    assert method == LOGIT and 0 < low < m < high < 1
    t = stats.t.ppf(0.975, n - 1)
    z, se = np.log(m / (1 - m)), s / np.sqrt(n) / (m * (1 - m))
    assert (low, high) == (pytest.approx(1 / (1 + np.exp(-(z - t * se)))),
                           pytest.approx(1 / (1 + np.exp(-(z + t * se)))))
    (t_low,), _, _ = mean_interval(m, s, n, 0.05)  # the plain Student-t interval leaves [0, 1]
    assert t_low < 0


def test_near_one_half_the_logit_interval_is_close_to_student_t():
    rng = np.random.default_rng(0)
    x = 0.5 + 0.01 * rng.standard_normal(30)
    logit = mean_interval(x.mean(), x.std(ddof=1), 30, 0.05, SHARE)
    plain = mean_interval(x.mean(), x.std(ddof=1), 30, 0.05)
    assert logit[2][0] == LOGIT and plain[2][0] == T
    assert np.allclose(logit[:2], plain[:2], atol=1e-5)
    low, high = stats.t.interval(0.95, 29, loc=x.mean(), scale=stats.sem(x))
    assert (plain[0][0], plain[1][0]) == (pytest.approx(low), pytest.approx(high))


def test_zero_variance_gets_the_exact_bound_or_no_interval():
    q = 1 - 0.025 ** (1 / 30)   # Clopper-Pearson upper bound on P(X != v) after 0 of 30
    (low,), (high,), (method,) = mean_interval(0.0, 0.0, 30, 0.05, SHARE)
    assert method == EXACT and (low, high) == (0.0, pytest.approx(q))
    assert stats.binom.cdf(0, 30, q) == pytest.approx(0.025)
    (low,), (high,), _ = mean_interval(0.0, 0.0, 30, 0.05, SHARE_GAP)
    assert (low, high) == (pytest.approx(-q), pytest.approx(q))
    (low,), (high,), (method,) = mean_interval(3.0, 0.0, 30, 0.05)   # a count: range unknown
    assert method == NONE and np.isnan(low) and np.isnan(high)
    assert np.isnan(mean_interval(0.1, np.nan, 1, 0.05, SHARE)[0][0])
    # equal values whose differences round to a tiny spread are still equal
    x = np.array([0.1, 0.3, 0.7]) - np.array([0.1 + 1 / 18, 0.3 + 1 / 18, 0.7 + 1 / 18])
    assert 0 < x.std(ddof=1) < 1e-15
    assert mean_interval(x.mean(), x.std(ddof=1), 3, 0.05, SHARE_GAP)[2][0] == EXACT
    assert mean_interval(x.mean(), x.std(ddof=1), 3, 0.05)[2][0] == NONE


def test_prediction_interval_for_one_run_covers_and_stays_in_range():
    rng = np.random.default_rng(1)
    n, inside = 30, 0
    for _ in range(2000):
        x = rng.normal(0.3, 0.05, n + 1)
        (low,), (high,) = prediction_interval(x[:n].mean(), x[:n].std(ddof=1), n, 0.05, SHARE)
        inside += low <= x[n] <= high
    assert 0.93 < inside / 2000 < 0.97
    x = np.array([0.01, 0.0, 0.02, 0.0, 0.05])
    (low,), (high,) = prediction_interval(x.mean(), x.std(ddof=1), 5, 0.05, SHARE)
    half = stats.t.ppf(0.975, 4) * x.std(ddof=1) * np.sqrt(1 + 1 / 5)
    assert low == 0.0 and high == pytest.approx(x.mean() + half)
    assert np.isnan(prediction_interval(0.0, 0.0, 10, 0.05, SHARE)[0][0])
    assert empirical_prediction_interval(np.arange(1, 41), 0.05) == (1.0, 39.0)


def test_a_sum_of_shares_keeps_student_t_cut_at_zero_and_no_exact_bound_without_an_upper_end():
    x = np.array([0.0, 0.0, 0.02, 0.0, 0.01, 0.0, 0.0, 0.03, 0.0, 0.0])
    m, s, n = x.mean(), x.std(ddof=1), len(x)
    (low,), (high,), (method,) = mean_interval(m, s, n, 0.05, NON_NEGATIVE)
    (t_low,), (t_high,), _ = mean_interval(m, s, n, 0.05)
    assert method == T and t_low < 0 and (low, high) == (0.0, pytest.approx(t_high))
    (pi_low,), (pi_high,) = prediction_interval(m, s, n, 0.05, NON_NEGATIVE)
    assert pi_low == 0.0 and pi_high == pytest.approx(m + stats.t.ppf(0.975, n - 1) * s * np.sqrt(1 + 1 / n))
    (low,), (high,), (method,) = mean_interval(0.0, 0.0, 30, 0.05, NON_NEGATIVE)
    assert method == NONE and np.isnan(low) and np.isnan(high)
