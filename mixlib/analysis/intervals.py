"""Intervals over repeats that respect a quantity's range, and prediction intervals for one run.

**Confidence interval of a mean over repeats.** ``x_1..x_n`` are one value per repeat (a share
or an error rate in ``[0, 1]``, a paired difference of two shares in ``[-1, 1]``, or a count
without known bounds), with mean ``m``, standard deviation ``s`` and ``se = s / sqrt(n)``:

- *unbounded* quantities get the Student-t interval ``m +/- t se``, ``t`` the ``1 - alpha/2``
  quantile with ``n - 1`` degrees of freedom;
- *shares and error rates* (range ``[a, b]`` = ``[0, 1]``) get the Student-t interval on the
  logit scale: with ``p = (m - a) / (b - a)``, ``z = ln(p / (1 - p)) +/- t se / ((b - a) p
  (1 - p))`` (the delta method), mapped back by ``a + (b - a) / (1 + exp(-z))``. It lies inside
  ``(a, b)`` by construction, is asymmetric near an end (where a share's uncertainty is), and
  tends to the Student-t interval as ``p`` nears 1/2. We chose it over a bootstrap (whose
  percentile interval is too narrow at 10 to 30 repeats and draws on a seed) and over Wilson
  on pooled counts (the tables hold shares whose denominators vary by repeat and round, and
  pooling would treat the examples of one repeat as independent draws);
- a *paired difference of shares* (range ``[-1, 1]``) and a *sum of shares* (range ``[0,
  inf)``) get the Student-t interval, which is what their bands are read against, cut to the
  range (the mean lies in it, so the cut keeps the coverage).

**No variance.** When every repeat gives the same value ``v`` there is no Student-t interval:
the claim is ``inconclusive`` unless an exact argument decides. For a quantity with a known
range ``[a, b]`` one does: no repeat of ``n`` differed from ``v``, so the Clopper-Pearson
bound gives ``P(X != v) <= q = 1 - (alpha/2)^(1/n)`` at ``1 - alpha/2``, and the mean lies in
``[v - q (v - a), v + q (b - v)]``. A count without a known range, or with no upper end,
gets no interval.

**Prediction interval for one run.** The report's numbers are single runs. The ``1 - alpha``
prediction interval of one more run's value is ``m +/- t s sqrt(1 + 1/n)`` (normal values),
cut to the quantity's range (a run's value lies in it, so the cut keeps the coverage); none
when ``n < 2`` or ``s = 0``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import stdtrit

#: The range of a share or an error rate, and of a paired difference of two; of a sum of
#: shares over rounds (no upper end).
SHARE, SHARE_GAP, NON_NEGATIVE = (0.0, 1.0), (-1.0, 1.0), (0.0, np.inf)
T, LOGIT, EXACT, NONE = ("Student-t", "logit-scale Student-t",
                         "exact: every repeat equal, Clopper-Pearson bound on a differing run",
                         "none: every repeat equal")


#: A standard deviation at most this times ``1 + |mean|`` is rounding: every value is equal
#: (ten equal differences of two means rarely subtract to exactly 0.0 in floating point).
FLAT = 1e-12


def _no_spread(std: np.ndarray, mean: np.ndarray) -> np.ndarray:
    return np.nan_to_num(std) <= FLAT * (1 + np.abs(np.nan_to_num(mean)))


def _quantile(n: np.ndarray, significance_level: float) -> np.ndarray:
    return stdtrit(np.where(n >= 2, n - 1, 1), 1 - significance_level / 2)


def mean_interval(mean: ArrayLike, std: ArrayLike, n: ArrayLike, significance_level: float,
                  bounds: tuple[float, float] | None = None, *,
                  logit: bool | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``1 - alpha`` interval of a mean over repeats (module docstring), elementwise.

    Parameters
    ----------
    mean, std, n : array_like
        Mean, sample standard deviation (``ddof=1``) and count of the values.
    significance_level : float
    bounds : (a, b) or None
        The quantity's range (None: unbounded; ``b`` may be infinite).
    logit : bool, optional
        Logit scale; defaults to ``bounds == SHARE`` (a share or rate).

    Returns
    -------
    low, high : ndarray of float
        NaN where ``n < 2``, or where every value is equal and ``bounds`` is None.
    method : ndarray of str
        Which interval each element got (:data:`T`, :data:`LOGIT`, :data:`EXACT`, :data:`NONE`).
    """
    m, s, k = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (mean, std, n))
    m, s, k = np.broadcast_arrays(m, s, k)
    logit = bounds == SHARE if logit is None else logit
    t = _quantile(k, significance_level)
    se = np.where(k >= 2, np.nan_to_num(s) / np.sqrt(np.maximum(k, 1)), np.nan)
    low, high = m - t * se, m + t * se
    method = np.full(m.shape, LOGIT if logit else T, dtype=object)
    flat = (k >= 2) & _no_spread(s, m)
    if bounds is not None and np.isfinite(bounds).all():
        a, b = bounds
        if logit:
            with np.errstate(divide="ignore", invalid="ignore"):
                p = (m - a) / (b - a)
                z = np.log(p / (1 - p))
                half = t * se / ((b - a) * p * (1 - p))
                low = a + (b - a) / (1 + np.exp(-(z - half)))
                high = a + (b - a) / (1 + np.exp(-(z + half)))
        else:
            low, high = np.maximum(low, a), np.minimum(high, b)
        q = 1 - (significance_level / 2) ** (1 / np.maximum(k, 1))
        low = np.where(flat, m - q * (m - a), low)
        high = np.where(flat, m + q * (b - m), high)
        method[flat] = EXACT
    else:
        if bounds is not None:
            low, high = np.maximum(low, bounds[0]), np.minimum(high, bounds[1])
        low, high = np.where(flat, np.nan, low), np.where(flat, np.nan, high)
        method[flat] = NONE
    return low, high, method


def prediction_interval(mean: ArrayLike, std: ArrayLike, n: ArrayLike, significance_level: float,
                        bounds: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``1 - alpha`` prediction interval of one run's value, ``m +/- t s sqrt(1 + 1/n)``,
    cut to ``bounds``; NaN where ``n < 2`` or ``s = 0``."""
    m, s, k = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (mean, std, n))
    m, s, k = np.broadcast_arrays(m, s, k)
    ok = (k >= 2) & ~_no_spread(s, m)
    half = np.where(ok, _quantile(k, significance_level) * np.nan_to_num(s) * np.sqrt(1 + 1 / np.maximum(k, 1)), np.nan)
    low, high = m - half, m + half
    if bounds is not None:
        low, high = np.maximum(low, bounds[0]), np.minimum(high, bounds[1])
    return low, high


def empirical_prediction_interval(values: ArrayLike, significance_level: float) -> tuple[float, float]:
    """The ``alpha/2`` and ``1 - alpha/2`` quantiles of ``values`` (one run's value among many
    fits, or a non-normal statistic such as an argmin); NaN with fewer than two values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    if len(x) < 2:
        return float("nan"), float("nan")
    low, high = np.quantile(x, [significance_level / 2, 1 - significance_level / 2], method="inverted_cdf")
    return float(low), float(high)
