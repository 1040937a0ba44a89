"""Three-valued verdicts: a claim's band against the interval (or test) of its measurement.

A claim of the report is a hypothesis ``theta in band``, the band an **open** interval
``(band_low, band_high)`` fixed from the report's words before anything is measured (the band
rule is stated once, in :mod:`mixlib.analysis.claims`). Its measurement comes with the
``1 - alpha`` two-sided interval ``[ci_low, ci_high]`` of ``theta``; the verdict is the two
one-sided tests (TOST) logic:

- ``holds`` when the interval lies inside the band, ``band_low < ci_low`` and
  ``ci_high < band_high``: both one-sided tests reject "theta outside the band";
- ``contradicted`` when it lies entirely outside, ``ci_high <= band_low`` or
  ``ci_low >= band_high``: the data reject "theta in the band";
- ``inconclusive`` otherwise, and whenever there is no interval (NaN ends).

**One level.** Each one-sided test is at level ``alpha / 2``, whichever path decides: the
interval path through the two-sided ``1 - alpha`` interval, and a test that gives no interval
through two one-sided p-values (:func:`p_verdict`): ``p_holds``, of the test whose rejection
puts theta in the band, and ``p_contradicted``, of the test whose rejection puts it out; a
Bayesian test gives them as ``1 - P(theta in band)`` and ``P(theta in band)``. The rule then
reads "holds iff ``p_holds < alpha / 2``; contradicted iff ``p_contradicted < alpha / 2``",
the same decision an interval at ``1 - alpha`` would give.
:func:`decide` applies whichever applies to an :class:`Evidence`, and :func:`row_verdict`
recomputes a claims-table row's verdict from its own columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from mixlib.core.statistics import STUDY_SIGNIFICANCE_LEVEL, median_interval
from mixlib.analysis.intervals import empirical_prediction_interval, mean_interval, prediction_interval

HOLDS, CONTRADICTED, INCONCLUSIVE = "holds", "contradicted", "inconclusive"
VERDICTS = (HOLDS, CONTRADICTED, INCONCLUSIVE)


def _finite(*values: float) -> bool:
    return all(value is not None and math.isfinite(value) for value in values)


def interval_verdict(ci_low: float, ci_high: float, band_low: float, band_high: float) -> str:
    """``holds`` / ``contradicted`` / ``inconclusive`` for an interval against an open band.

    Parameters
    ----------
    ci_low, ci_high : float
        The measurement's interval (NaN: none, hence ``inconclusive``).
    band_low, band_high : float
        The open band ``(band_low, band_high)``; either end may be infinite.
    """
    if not (_finite(ci_low, ci_high) and ci_low <= ci_high):
        return INCONCLUSIVE
    if band_low < ci_low and ci_high < band_high:
        return HOLDS
    if ci_high <= band_low or ci_low >= band_high:
        return CONTRADICTED
    return INCONCLUSIVE


def p_verdict(p_holds: float, p_contradicted: float, significance_level: float) -> str:
    """The verdict of a test that gives one-sided p-values (or posterior probabilities).

    ``holds`` iff ``p_holds < alpha / 2``, ``contradicted`` iff ``p_contradicted < alpha / 2``
    (NaN: that side cannot be established), otherwise ``inconclusive``: each one-sided test
    at the level of one side of a ``1 - alpha`` interval.
    """
    if _finite(p_holds) and p_holds < significance_level / 2:
        return HOLDS
    if _finite(p_contradicted) and p_contradicted < significance_level / 2:
        return CONTRADICTED
    return INCONCLUSIVE


@dataclass(frozen=True)
class Evidence:
    """What a claim's measure found: the estimate and the interval or test that judge it.

    Attributes
    ----------
    measured : float
        The point estimate of ``theta``.
    n : int
        Repeats, folds, fits or data sets behind the interval or test.
    ci_low, ci_high : float
        The ``1 - alpha`` interval of ``theta`` (NaN when the test gives none).
    significance_level : float
        The interval's (or test's) ``significance_level``.
    method : str
        How the interval was made, e.g. ``"Student-t over repeats"``.
    p_holds, p_contradicted : float
        One-sided p-values of a test without interval (see the module docstring).
    detail : str
        Where the estimate was taken, e.g. ``"at 32 kernels per class"``.
    pi_low, pi_high : float
        The ``1 - alpha`` prediction interval of one run's value (NaN: none), see
        :mod:`mixlib.analysis.intervals`.
    sd : float
        The standard deviation of the values over repeats behind a mean (NaN otherwise): with
        ``n`` and the range it gives the interval and the prediction interval again.
    range_low, range_high : float
        The quantity's range (``0, 1`` for a share or rate; NaN: unbounded).
    """

    measured: float
    n: int
    ci_low: float = math.nan
    ci_high: float = math.nan
    significance_level: float = STUDY_SIGNIFICANCE_LEVEL
    method: str = ""
    p_holds: float = math.nan
    p_contradicted: float = math.nan
    detail: str = ""
    pi_low: float = math.nan
    pi_high: float = math.nan
    sd: float = math.nan
    range_low: float = math.nan
    range_high: float = math.nan

    def with_detail(self, detail: str) -> "Evidence":
        return replace(self, detail=detail)


def widened(evidence: Evidence, factor: float, reason: str) -> Evidence:
    """``evidence`` with its interval and prediction interval widened by a factor, for a
    systematic error its values do not show (the same for every value, so no spread of them
    reveals it).

    Each end moves away from the estimate by the factor ``f``: a positive end ``e`` (a ratio's)
    becomes ``e / f`` below and ``e f`` above, a negative one the other way round::

        low' = min(low / f, low f),    high' = max(high f, high / f)

    The method text names the factor and the reason, so the row says how its interval was made;
    a factor of 1 returns ``evidence`` as it is.
    """
    if not factor >= 1.0:
        raise ValueError(f"a widening factor is at least 1, got {factor!r}.")
    if factor == 1.0:
        return evidence

    def lower(end: float) -> float:
        return min(end / factor, end * factor)

    def upper(end: float) -> float:
        return max(end * factor, end / factor)

    return replace(evidence, ci_low=lower(evidence.ci_low), ci_high=upper(evidence.ci_high),
                   pi_low=lower(evidence.pi_low), pi_high=upper(evidence.pi_high),
                   method=f"{evidence.method}, widened x{factor:g} ({reason})")


def decide(evidence: Evidence, band_low: float, band_high: float) -> str:
    """The verdict of ``evidence`` on the open band ``(band_low, band_high)``.

    By the interval when it has one (:func:`interval_verdict`), else by its one-sided
    p-values (:func:`p_verdict`).
    """
    if _finite(evidence.ci_low, evidence.ci_high):
        return interval_verdict(evidence.ci_low, evidence.ci_high, band_low, band_high)
    return p_verdict(evidence.p_holds, evidence.p_contradicted, evidence.significance_level)


def row_verdict(row) -> str:
    """The verdict a claims-table row's own columns give (``ci_low``, ``ci_high``,
    ``band_low``, ``band_high``, ``p_holds``, ``p_contradicted``, ``significance_level``)."""
    evidence = Evidence(float(row["measured"]), 0, ci_low=float(row["ci_low"]),
                        ci_high=float(row["ci_high"]), significance_level=float(row["alpha"]),
                        p_holds=float(row["p_holds"]), p_contradicted=float(row["p_contradicted"]))
    return decide(evidence, float(row["band_low"]), float(row["band_high"]))


def from_one_sided_p(estimate: float, n: int, *, p_greater: float, p_less: float, band_low: float,
                     band_high: float, significance_level: float, test: str) -> Evidence:
    """Evidence of a test of ``theta = 0`` giving both one-sided p-values, on a directional band.

    ``p_greater`` tests ``H0: theta <= 0`` against ``theta > 0``, ``p_less`` the reverse. The
    band must be ``(0, inf)`` (then ``p_holds = p_greater``, ``p_contradicted = p_less``) or
    ``(-inf, 0)`` (the other way round).
    """
    if band_low == 0 and band_high == math.inf:
        p_holds, p_contradicted = p_greater, p_less
    elif band_low == -math.inf and band_high == 0:
        p_holds, p_contradicted = p_less, p_greater
    else:
        raise ValueError(f"a one-sided test decides the band (0, inf) or (-inf, 0), got "
                         f"({band_low}, {band_high}).")
    return Evidence(float(estimate), int(n), significance_level=significance_level, method=test, p_holds=float(p_holds),
                    p_contradicted=float(p_contradicted))


def from_posterior(estimate: float, n: int, *, p_in_band: float, significance_level: float,
                   test: str) -> Evidence:
    """Evidence of a Bayesian test: the posterior probability that ``theta`` is in the band.

    Holds when ``P(band) > 1 - alpha / 2``, contradicted when ``P(band) < alpha / 2``.
    """
    return Evidence(float(estimate), int(n), significance_level=significance_level, method=test,
                    p_holds=1.0 - float(p_in_band), p_contradicted=float(p_in_band))


def t_evidence(values, *, significance_level: float = STUDY_SIGNIFICANCE_LEVEL, what: str = "repeats",
               bounds: tuple[float, float] | None = None) -> Evidence:
    """Mean of ``values`` (NaN dropped), its interval and the prediction interval of one run.

    The interval is Student-t, on the logit scale for a share (``bounds`` = ``(0, 1)``), the
    exact bound when every value is equal (:func:`mixlib.analysis.intervals.mean_interval`).
    """
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) == 0:
        return Evidence(math.nan, 0, significance_level=significance_level, method=f"Student-t over {what}")
    std = float(np.std(x, ddof=1)) if len(x) > 1 else math.nan
    (low,), (high,), (method,) = mean_interval(x.mean(), std, len(x), significance_level, bounds)
    (pi_low,), (pi_high,) = prediction_interval(x.mean(), std, len(x), significance_level, bounds)
    low_end, high_end = bounds if bounds is not None else (math.nan, math.nan)
    return Evidence(float(x.mean()), len(x), float(low), float(high), significance_level, f"{method} over {what}",
                    pi_low=float(pi_low), pi_high=float(pi_high), sd=std, range_low=low_end,
                    range_high=high_end)


def median_evidence(values, *, significance_level: float = STUDY_SIGNIFICANCE_LEVEL, what: str = "fits") -> Evidence:
    """Median of ``values``, its order-statistic interval
    (:func:`mixlib.core.statistics.median_interval`) and, as the prediction interval of one
    value, the ``alpha/2`` and ``1 - alpha/2`` quantiles of ``values``."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    median, low, high = median_interval(x, significance_level)
    pi_low, pi_high = empirical_prediction_interval(x, significance_level)
    return Evidence(median, len(x), low, high, significance_level, f"order statistics of the median over {what}",
                    pi_low=pi_low, pi_high=pi_high)


def report_in_prediction(report_low: float, report_high: float, pi_low: float, pi_high: float) -> str:
    """Whether the report's single run could have come from our distribution: ``"yes"`` when
    its value (or stated range ``[report_low, report_high]``) meets the prediction interval
    of one run ``[pi_low, pi_high]``, ``"no"`` when it lies outside, ``""`` without a report
    value or a prediction interval."""
    if not _finite(report_low, report_high, pi_low, pi_high):
        return ""
    return "yes" if report_low <= pi_high and pi_low <= report_high else "no"
