"""A user's CSV: read in time linear in its size, recognised by its first bytes, quoted in
messages only once it is recognised as the user's CSV."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from pandas.errors import PerformanceWarning

from mixlib.datasets.sources import load_source
from mixlib.datasets.user_csv import parse_user_csv


def wide_csv(n_columns: int, n_rows: int = 60) -> str:
    """A numeric CSV of ``n_columns`` features and a class column ``label`` (two classes)."""
    values = np.random.default_rng(0).normal(size=(n_rows, n_columns))
    lines = [",".join(f"f{j}" for j in range(n_columns)) + ",label"]
    lines += [",".join(f"{v:.6g}" for v in row) + f",{'ab'[i % 2]}" for i, row in enumerate(values)]
    return "\n".join(lines) + "\n"


def test_a_wide_csv_is_read_whole_without_a_fragmentation_warning():
    text = wide_csv(2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        frame = parse_user_csv(text, "label")
    assert frame.shape == (60, 2001) and list(frame.columns[:2]) == ["f0", "f1"]
    assert frame["f1999"].dtype == np.float64 and frame["class"].tolist()[:3] == ["a", "b", "a"]
    expected = np.array([[float(cell) for cell in line.split(",")[:-1]]
                         for line in text.splitlines()[1:]])
    np.testing.assert_array_equal(frame.drop(columns="class").to_numpy(), expected)


def test_the_table_is_built_in_one_step_whatever_its_width(monkeypatch):
    # One insertion per column costs time quadratic in the columns (7.6 s at 1,000 columns,
    # 298 s at 10,000 through a dry run): count them.
    calls = []
    for method in ("__setitem__", "insert"):
        original = getattr(pd.DataFrame, method)
        monkeypatch.setattr(pd.DataFrame, method,
                            lambda self, *args, _original=original, **kwargs:
                            calls.append(1) or _original(self, *args, **kwargs))
    for n_columns in (10, 1000):
        parse_user_csv(wide_csv(n_columns), "label")
    assert calls == []


def test_a_message_lists_at_most_ten_column_names():
    text = wide_csv(30)
    with pytest.raises(ValueError, match=r"class_column names 'kind', which is not a column of "
                                         r"\['f0', .*'f9'\] and 21 more columns\.$"):
        parse_user_csv(text, "kind")
