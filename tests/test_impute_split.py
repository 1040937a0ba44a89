"""The impute stage: per-repeat substitutes, fit on training rows, no test label used."""

import numpy as np
import pandas as pd
import pytest

from mixlib.experiments.impute_split import impute_split
from mixlib.catalogue.settings import EMSettings

EM = EMSettings(init="report", tol=1e-6, max_iter=200, min_variance=1e-6)


def _toy():
    """Class a has f1 near 0, class b near 10; rows 6-9 have f1 missing."""
    f1 = [0.0, 0.2, -0.1, 10.0, 10.3, 9.9, np.nan, np.nan, np.nan, np.nan, 0.1, 10.1]
    classes = ["a", "a", "a", "b", "b", "b", "a", "b", "a", "b", "a", "b"]
    prepared = pd.DataFrame({"row_id": np.arange(12), "f1": f1, "f2": np.arange(12.0), "class": classes})
    roles = ["train"] * 6 + ["train", "train", "test", "test", "unlabelled", "unlabelled"]
    split = pd.DataFrame({"repeat": 0, "row_id": np.arange(12), "role": roles})
    return prepared, split


@pytest.mark.parametrize("method", ["class_mean", "kernel_mode"])
def test_labelled_rows_get_their_class_value_and_test_rows_the_class_free_one(method):
    prepared, split = _toy()
    out = impute_split(prepared, split, impute={"method": method, "kernels_per_feature": 1}, em=EM, seed=0, split_name="toy")
    values = out.set_index("row_id")["value"]
    assert sorted(values.index) == [6, 7, 8, 9]
    assert set(out["feature"]) == {"f1"}
    class_a = np.mean([0.0, 0.2, -0.1])
    class_b = np.mean([10.0, 10.3, 9.9])
    overall = np.mean([0.0, 0.2, -0.1, 10.0, 10.3, 9.9, 0.1, 10.1])  # unlabelled rows count
    np.testing.assert_allclose([values[6], values[7]], [class_a, class_b])
    # Test rows 8 (class a) and 9 (class b) get the same class-free value: no label leaks.
    np.testing.assert_allclose([values[8], values[9]], [overall, overall])


def test_one_table_row_per_missing_cell_and_repeat_and_empty_without_missing_cells():
    prepared, split = _toy()
    two = pd.concat([split, split.assign(repeat=1)], ignore_index=True)
    out = impute_split(prepared, two, impute={"method": "mean"}, em=EM, seed=0, split_name="toy")
    assert out.groupby("repeat").size().to_dict() == {0: 4, 1: 4}
    complete = prepared.assign(f1=prepared["f1"].fillna(1.0))
    empty = impute_split(complete, two, impute={"method": "mean"}, em=EM, seed=0, split_name="toy")
    assert empty.empty and list(empty.columns) == ["repeat", "row_id", "feature", "value"]


def test_unused_rows_are_not_filled():
    prepared, split = _toy()
    split.loc[split["row_id"] == 9, "role"] = "unused"
    out = impute_split(prepared, split, impute={"method": "mean"}, em=EM, seed=0, split_name="toy")
    assert 9 not in set(out["row_id"])
