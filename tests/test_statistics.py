"""The study's one interval: mean +/- t_{1-alpha/2, n-1} s / sqrt(n)."""

import numpy as np
import pytest
from scipy import stats

from mixlib.core.statistics import mean_t_interval, t_half_width
from mixlib.model_selection.evaluation import t_interval


def test_half_width_matches_scipy_interval():
    values = np.array([0.1, 0.25, 0.2, 0.4, 0.15])
    low, high = stats.t.interval(0.9, len(values) - 1, loc=values.mean(), scale=stats.sem(values))
    half = t_half_width(values.std(ddof=1), len(values), significance_level=0.1)
    assert half == pytest.approx((high - low) / 2)


def test_one_value_has_no_interval():
    assert np.isnan(t_half_width(0.0, 1))
    np.testing.assert_array_equal(np.isnan(t_half_width([1.0, 1.0, 1.0], [0, 1, 2])), [True, True, False])


def test_bad_alpha_is_named():
    with pytest.raises(ValueError, match="significance_level must be in \\(0, 1\\), got 1.5"):
        t_half_width(1.0, 3, significance_level=1.5)


def test_columns_ignore_nan_and_leave_single_values_without_interval():
    values = np.array([[1.0, 2.0, np.nan, 4.0],
                       [3.0, np.nan, np.nan, 6.0],
                       [5.0, np.nan, np.nan, 8.0]])
    mean, low, high = mean_t_interval(values, significance_level=0.05)
    np.testing.assert_allclose(mean[[0, 1, 3]], [3.0, 2.0, 6.0])
    assert np.isnan(mean[2])
    half = stats.t.ppf(0.975, 2) * 2.0 / np.sqrt(3)
    np.testing.assert_allclose([low[0], high[0], low[3], high[3]], [3 - half, 3 + half, 6 - half, 6 + half])
    assert np.isnan(low[1]) and np.isnan(high[1]) and np.isnan(low[2])


def test_columns_need_a_matrix():
    with pytest.raises(ValueError, match="must be 2-d"):
        mean_t_interval(np.ones(3))


def test_cross_validation_interval_is_the_same_function():
    errors = np.array([0.1, 0.3, 0.2, 0.25])
    cv = t_interval(errors, significance_level=0.1)
    assert cv.half_width == float(t_half_width(errors.std(ddof=1), 4, 0.1))
    mean, low, high = mean_t_interval(errors[:, None], significance_level=0.1)
    assert (low[0], high[0]) == pytest.approx((cv.low, cv.high))
