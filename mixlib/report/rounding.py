"""How many digits a table's numbers can support, and their text in the report.

The rule, column by column (the TSV keeps every digit; only the report rounds):

- **Estimates with an interval.** In a table with ``ci_low`` and ``ci_high``, a row's estimate,
  its intervals and the other numbers on their scale (:data:`INTERVAL_SCALE`) keep the decimals
  that give two significant digits of the row's interval half-width: a 95 % interval known
  to two digits says nothing about a third digit of the estimate (0.1133 +/- 0.012 is shown
  0.113, 14.5 +/- 3.5 is shown 14.5); at most four significant digits of each value
  (:data:`MAX_SIGNIFICANT`), however narrow the interval (a difference of exactly one example
  in every repeat has an interval of width 0).
- **Probabilities and p-values** (:data:`PROBABILITY_COLUMNS`, ``p_*``, ``*_p``): two
  significant digits; a test at alpha = 0.05 is read at that precision.
- **Timings** (``*_seconds``): two significant digits, as one run on a shared machine
  measures them.
- **Everything else real-valued:** three significant digits.
- Whole numbers stored as floats (``n_train`` 2552.0) are shown as integers; infinity as
  ``∞``, missing values as an empty cell.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: columns measured on the scale of a row's ``ci_low`` / ``ci_high`` interval
INTERVAL_SCALE = ("measured", "band_low", "band_high", "ci_low", "ci_high", "ci_corrected_low",
                  "ci_corrected_high", "cv_error", "cv_std", "pi_low", "pi_high", "report_low",
                  "report_high")
PROBABILITY_COLUMNS = ("p_value", "p_holm", "alpha", "p_a_better", "p_equivalent",
                       "p_b_better", "theta_a", "theta_rope", "theta_b", "p_holds",
                       "p_contradicted")
MAX_DECIMALS = 6
MAX_SIGNIFICANT = 4


def interval_decimals(ci_low: float, ci_high: float) -> int | None:
    """Decimals giving two significant digits of the half-width of ``[ci_low, ci_high]``.

    ``d = 1 - floor(log10(h))`` with ``h = (ci_high - ci_low) / 2``, clipped to
    ``[0, MAX_DECIMALS]``; ``None`` when the interval is missing, infinite or of width 0.
    """
    half_width = (ci_high - ci_low) / 2
    if not np.isfinite(half_width) or half_width <= 0:
        return None
    return int(min(max(1 - math.floor(math.log10(half_width)), 0), MAX_DECIMALS))


def format_significant(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits, without an exponent for |value| >= 1e-4;
    a number of more digits left of the point keeps them all (112.4 s is 112, not 110)."""
    if value == 0:
        return "0"
    decimals = digits - 1 - math.floor(math.log10(abs(value)))
    if decimals > MAX_DECIMALS:
        return f"{value:.{digits - 1}e}"
    return f"{value:.{max(decimals, 0)}f}"


def column_digits(column: str) -> int:
    """Significant digits of a column outside any interval (see the module's rule)."""
    if column in PROBABILITY_COLUMNS or column.startswith("p_") or column.endswith("_p"):
        return 2
    if column.endswith("_seconds"):
        return 2
    return 3


def format_value(value: object, column: str, decimals: int | None) -> str:
    """The text of one cell: ``decimals`` fixed when the row's interval sets them for
    ``column``, else the column's significant digits."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        return str(value)
    number = float(value)
    if np.isinf(number):
        return "∞" if number > 0 else "−∞"
    if decimals is not None and column in INTERVAL_SCALE:
        if number != 0:
            leading = math.floor(math.log10(abs(number)))
            decimals = min(decimals, max(MAX_SIGNIFICANT - 1 - leading, 0))
        return f"{number:.{decimals}f}"
    if number.is_integer() and (isinstance(value, (int, np.integer)) or abs(number) >= 1):
        return str(int(number))
    return format_significant(number, column_digits(column))


def formatted_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every cell as the text the report shows (same shape and columns)."""
    has_interval = {"ci_low", "ci_high"} <= set(frame.columns)
    rows = []
    for _, row in frame.iterrows():
        decimals = (interval_decimals(float(row["ci_low"]), float(row["ci_high"]))
                    if has_interval else None)
        rows.append([format_value(row[column], column, decimals) for column in frame.columns])
    return pd.DataFrame(rows, columns=frame.columns, index=frame.index)
