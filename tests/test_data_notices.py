"""Conflicting duplicate rows and near-equal numeric labels: one warning each in the fetch log."""

from __future__ import annotations

import pytest

from mixlib.datasets.notices import conflicting_duplicates, data_notices, near_equal_labels
from mixlib.datasets.user_csv import parse_user_csv


def csv_with_conflicts(n_conflicts: int) -> str:
    """40 distinct rows, then ``n_conflicts`` of rows 0.. again (file lines 42..) with the other
    class, and row 39 again with its own class (a duplicate that agrees)."""
    rows = [f"{i},{i % 4},{'ab'[i % 2]}" for i in range(40)]
    rows += [f"{i},{i % 4},{'ba'[i % 2]}" for i in range(n_conflicts)] + [rows[39]]
    return "x,y,kind\n" + "\n".join(rows) + "\n"


def test_rows_with_the_same_features_and_different_classes_are_named_by_line():
    frame = parse_user_csv(csv_with_conflicts(5), "kind")
    notice = conflicting_duplicates(frame, frame.attrs["lines"], "datasets.d")
    assert notice == ("datasets.d: 5 feature rows appear with different classes (lines 2 and 42; "
                      "lines 3 and 43; lines 4 and 44; and 2 more); no classifier can tell such "
                      "rows apart, so they cap the accuracy any model reaches.")


def test_duplicates_that_agree_and_missing_cells_are_no_conflict():
    frame = parse_user_csv(csv_with_conflicts(0), "kind")
    assert data_notices(frame, "datasets.d") == []
    frame = parse_user_csv("x,y,kind\n1,,a\n1,,b\n1,2,a\n3,4,b\n", "kind")
    assert "(lines 2 and 3)" in conflicting_duplicates(frame, frame.attrs["lines"], "d")


@pytest.mark.parametrize("labels, pair", [
    (["0.3", "0.30000000000000004", "0.3", "0.30000000000000004"], "'0.3' and '0.30000000000000004'"),
    (["1", "1.0", "2"], "'1' and '1.0'"),
    (["1e3", "1000.0000000001"], "'1e3' and '1000.0000000001'"),
])
def test_numeric_labels_that_are_nearly_equal_are_named(labels, pair):
    notice = near_equal_labels(labels, "datasets.d")
    assert notice == (f"datasets.d: the class labels {pair} are the same number, or nearly, but are "
                      "distinct classes (labels are compared as text); write them alike if they "
                      "are one class.")


@pytest.mark.parametrize("labels", [["a", "b"], ["0.3", "0.4"], ["1", "2", "nan", "x"],
                                    ["1e-300", "2e-300"]])
def test_distinct_labels_give_no_notice(labels):
    assert near_equal_labels(labels, "d") is None
