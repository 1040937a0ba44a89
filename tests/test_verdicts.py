"""Three-valued verdicts (TOST logic) and the intervals behind them."""

import math

import numpy as np
import pytest
from scipy import stats

from mixlib.core.statistics import median_interval
from mixlib.analysis.verdicts import (
    CONTRADICTED,
    HOLDS,
    INCONCLUSIVE,
    Evidence,
    decide,
    from_one_sided_p,
    from_posterior,
    interval_verdict,
    median_evidence,
    p_verdict,
    row_verdict,
    t_evidence,
    widened,
)


@pytest.mark.parametrize("ci, band, verdict", [
    ((0.04, 0.06), (0.03, 0.07), HOLDS),
    ((0.049, 0.112), (0.022, 0.078), INCONCLUSIVE),   # the iterative_hard_error
    ((0.08, 0.10), (0.022, 0.078), CONTRADICTED),
    ((0.0, 0.0), (0.0022, 0.0578), CONTRADICTED),      # a phenomenon measured as 0
    ((0.0, 0.0), (-0.01, 0.01), HOLDS),
    ((0.5, 2.0), (0.0, math.inf), HOLDS),
    ((-0.1, 2.0), (0.0, math.inf), INCONCLUSIVE),
    ((-2.0, 0.0), (0.0, math.inf), CONTRADICTED),      # the band is open: 0 is outside (0, inf)
    ((0.03, 0.07), (0.03, 0.07), INCONCLUSIVE),        # touching both ends from inside
    ((math.nan, math.nan), (0.0, 1.0), INCONCLUSIVE),
])
def test_interval_verdict(ci, band, verdict):
    assert interval_verdict(*ci, *band) == verdict


def test_p_verdict_and_the_tests_without_interval():
    assert p_verdict(0.01, 0.9, 0.05) == HOLDS
    assert p_verdict(0.9, 0.01, 0.05) == CONTRADICTED
    assert p_verdict(0.2, 0.3, 0.05) == INCONCLUSIVE and p_verdict(math.nan, math.nan, 0.05) == INCONCLUSIVE
    # one level: each one-sided p-value at alpha / 2, as each side of the 1 - alpha interval
    assert p_verdict(0.03, 0.97, 0.05) == INCONCLUSIVE and p_verdict(0.97, 0.03, 0.05) == INCONCLUSIVE
    evidence = from_one_sided_p(2.0, 5, p_greater=0.01, p_less=0.99, band_low=0.0, band_high=math.inf,
                                significance_level=0.05, test="t")
    assert decide(evidence, 0.0, math.inf) == HOLDS
    below = from_one_sided_p(2.0, 5, p_greater=0.01, p_less=0.99, band_low=-math.inf, band_high=0.0,
                             significance_level=0.05, test="t")
    assert decide(below, -math.inf, 0.0) == CONTRADICTED
    with pytest.raises(ValueError, match="one-sided test"):
        from_one_sided_p(1.0, 5, p_greater=0.1, p_less=0.9, band_low=0.0, band_high=1.0, significance_level=0.05, test="t")
    assert decide(from_posterior(0.1, 5, p_in_band=0.99, significance_level=0.05, test="b"), 0.0, 1.0) == HOLDS
    assert decide(from_posterior(0.1, 5, p_in_band=0.96, significance_level=0.05, test="b"), 0.0, 1.0) == INCONCLUSIVE
    assert decide(from_posterior(0.1, 5, p_in_band=0.01, significance_level=0.05, test="b"), 0.0, 1.0) == CONTRADICTED
    assert decide(from_posterior(0.1, 5, p_in_band=0.5, significance_level=0.05, test="b"), 0.0, 1.0) == INCONCLUSIVE


def test_row_verdict_reads_only_the_row():
    row = {"measured": 0.05, "ci_low": 0.04, "ci_high": 0.06, "band_low": 0.03, "band_high": 0.07,
           "p_holds": math.nan, "p_contradicted": math.nan, "alpha": 0.05}
    assert row_verdict(row) == HOLDS
    assert row_verdict({**row, "band_low": 0.045}) == INCONCLUSIVE
    assert row_verdict({**row, "ci_low": math.nan, "ci_high": math.nan, "p_holds": 0.001}) == HOLDS


def test_t_evidence_matches_scipy():
    x = np.array([0.08, 0.05, 0.11, 0.06, 0.09, 0.10, 0.07, 0.04, 0.12, 0.08])
    evidence = t_evidence(np.append(x, np.nan))
    low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert (evidence.measured, evidence.n) == (pytest.approx(x.mean()), 10)
    assert (evidence.ci_low, evidence.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert math.isnan(t_evidence([]).measured)


@pytest.mark.parametrize("n", [6, 10, 20, 51])
def test_median_interval_covers_at_the_stated_level(n):
    rng = np.random.default_rng(n)
    x = rng.integers(5, 30, size=n).astype(float)
    median, low, high = median_interval(x, 0.05)
    assert median == np.median(x) and low <= median <= high
    j = int(stats.binom.ppf(0.025, n, 0.5))  # largest j with P(B <= j - 1) <= 0.025
    while stats.binom.cdf(j, n, 0.5) <= 0.025:
        j += 1
    assert (low, high) == (np.sort(x)[j - 1], np.sort(x)[n - j])
    # coverage of the continuous-median interval, by simulation
    draws = rng.exponential(size=(2000, n))
    covered = [median_interval(d, 0.05)[1] <= math.log(2) <= median_interval(d, 0.05)[2] for d in draws]
    assert np.mean(covered) >= 0.93


def test_median_interval_needs_enough_values_and_a_level():
    median, low, high = median_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert median == 3.0 and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in median_interval([]))
    with pytest.raises(ValueError, match="significance_level"):
        median_interval([1.0, 2.0], significance_level=1.5)
    with pytest.raises(ValueError, match="1-d"):
        median_interval(np.ones((2, 2)))
    evidence = median_evidence([10, 12, 11, 14, 13, 15, 9, np.nan])
    assert evidence.n == 7 and evidence.measured == 12.0 and isinstance(evidence, Evidence)


def test_a_widened_interval_moves_each_end_away_from_the_estimate_by_the_factor():
    ratio = Evidence(1.06, 10, ci_low=0.96, ci_high=1.16, method="Student-t over repeats",
                     pi_low=0.8, pi_high=1.3)
    wide = widened(ratio, 1.25, "fits in different jobs")
    assert (wide.ci_low, wide.ci_high) == pytest.approx((0.96 / 1.25, 1.16 * 1.25))
    assert (wide.pi_low, wide.pi_high) == pytest.approx((0.8 / 1.25, 1.3 * 1.25))
    assert (wide.measured, wide.n) == (1.06, 10)
    assert wide.method == "Student-t over repeats, widened x1.25 (fits in different jobs)"
    # a negative end moves away from the estimate too
    gap = widened(Evidence(0.1, 5, ci_low=-0.2, ci_high=0.4), 2.0, "r")
    assert (gap.ci_low, gap.ci_high) == pytest.approx((-0.4, 0.8))
    # an interval inside the band no longer decides once widened past its edge
    faster = Evidence(0.9, 10, ci_low=0.85, ci_high=0.95)
    assert decide(faster, -math.inf, 1.0) == HOLDS
    assert decide(widened(faster, 1.25, "r"), -math.inf, 1.0) == INCONCLUSIVE
    assert widened(ratio, 1.0, "r") == ratio
    with pytest.raises(ValueError, match="at least 1"):
        widened(ratio, 0.8, "r")
