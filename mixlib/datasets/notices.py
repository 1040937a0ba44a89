"""Things a data set may hold on purpose, which the ``fetch`` job mentions in its log.

Neither stops the run: rows that share every feature value but not the class (label noise a
study may keep), and class labels that are the same number written differently or nearly
the same number (``1`` and ``1.0``; ``0.3`` and ``0.30000000000000004``), which become
distinct classes since labels are compared as text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.datasets.checks import default_lines
from mixlib.datasets.registry import CLASS_COLUMN, prefixed_role_columns

SHOWN_GROUPS = 3
"""How many groups of rows (or pairs of labels) a notice lists."""

LABEL_RTOL = 1e-9
"""Numeric labels closer than this, relative to their size, are called near-equal."""


def conflicting_duplicates(frame: pd.DataFrame, lines: Sequence[int], source: str) -> str | None:
    """A notice when rows with the same feature values carry different classes, else ``None``.

    Rows are grouped by all their features (missing cells equal to each other; the role
    columns and ``class`` left out); a group is reported when its rows hold two classes or more.
    """
    features = frame.drop(columns=[CLASS_COLUMN, *prefixed_role_columns(frame.columns)])
    keys = pd.util.hash_pandas_object(features, index=False).to_numpy()
    table = pd.DataFrame({"key": keys, "label": frame[CLASS_COLUMN].to_numpy(),
                          "line": np.asarray(lines)})
    n_labels = table.groupby("key")["label"].transform("nunique").to_numpy()
    conflicting = table[n_labels > 1]
    if conflicting.empty:
        return None
    groups = [group["line"].tolist() for _, group in conflicting.groupby("key", sort=False)]
    shown = "; ".join("lines " + " and ".join(str(line) for line in lines_) if len(lines_) == 2
                      else "lines " + ", ".join(str(line) for line in lines_)
                      for lines_ in groups[:SHOWN_GROUPS])
    more = f"; and {len(groups) - SHOWN_GROUPS} more" if len(groups) > SHOWN_GROUPS else ""
    plural = len(groups) > 1
    return (f"{source}: {len(groups)} feature row{'s' if plural else ''} appear"
            f"{'' if plural else 's'} with different classes ({shown}{more}); no classifier can "
            "tell such rows apart, so they cap the accuracy any model reaches.")


def near_equal_labels(labels: Sequence[str], source: str) -> str | None:
    """A notice when class labels are the same number written differently, or nearly the same
    number (relative difference below :data:`LABEL_RTOL`), else ``None``."""
    numbers = {}
    for label in dict.fromkeys(str(label) for label in labels):
        try:
            value = float(label)
        except ValueError:
            continue
        if np.isfinite(value):
            numbers[label] = value
    ordered = sorted(numbers.items(), key=lambda item: item[1])
    pairs = [(a, b) for (a, x), (b, y) in zip(ordered, ordered[1:])
             if abs(y - x) <= LABEL_RTOL * max(abs(x), abs(y))]
    if not pairs:
        return None
    shown = ", ".join(f"{a!r} and {b!r}" for a, b in pairs[:SHOWN_GROUPS])
    more = f" and {len(pairs) - SHOWN_GROUPS} more pairs" if len(pairs) > SHOWN_GROUPS else ""
    return (f"{source}: the class labels {shown}{more} are the same number, or nearly, but are "
            "distinct classes (labels are compared as text); write them alike if they are one "
            "class.")


def data_notices(frame: pd.DataFrame, source: str) -> list[str]:
    """The notices of a normalised raw table (lines from ``frame.attrs["lines"]`` when known)."""
    lines = frame.attrs.get("lines") or default_lines(len(frame))
    notices = [conflicting_duplicates(frame, lines, source),
               near_equal_labels(frame[CLASS_COLUMN], source)]
    return [notice for notice in notices if notice is not None]
