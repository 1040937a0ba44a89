"""The comparison in the report: data set x model as "error ± interval", and the pairwise
tests as a figure of Holm-adjusted p-values."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from mixlib.report.comparison_pivot import comparison_pivot, comparison_pivot_page, error_text


def _summary() -> pd.DataFrame:
    rows = []
    errors = {"d1": {"knn": 0.10, "mixture": 0.20, "tree": 0.30},
              "d2": {"knn": 0.25, "mixture": 0.05, "tree": 0.35},
              "d3": {"knn": 0.15, "mixture": 0.12, "tree": 0.40}}
    for dataset, models in errors.items():
        for model, error in models.items():
            rows.append({"protocol": "cv", "dataset": dataset, "split": "", "model": model,
                         "family": {"knn": "neighbours", "mixture": "mixture",
                                    "tree": "trees"}[model],
                         "approach": "probabilistic" if model == "mixture" else "deterministic",
                         "alpha": 0.05, "cv_error": error, "ci_low": error - 0.01,
                         "ci_high": error + 0.01, "ci_corrected_low": error - 0.0234,
                         "ci_corrected_high": error + 0.0234})
    rows.append(dict(rows[0], protocol="holdout", dataset="d1", split="d1_holdout",
                     cv_error=0.5, ci_corrected_low=np.nan, ci_corrected_high=np.nan,
                     ci_low=np.nan, ci_high=np.nan))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("error, low, high, text", [
    (0.1133, 0.1013, 0.1253, "11.3 ± 1.2"),      # half-width 1.2 %: one decimal
    (0.0112, -0.0175, 0.0398, "1.1 ± 2.9"),
    (0.10, -0.08, 0.28, "10 ± 18"),
    (0.2, 0.2, 0.2, "20.0"),                     # no width: three significant digits
    (0.5, np.nan, np.nan, "50.0"),
    (0.123456, 0.1234, 0.1235, "12.35 ± 0.00"),  # at most four significant digits
])
def test_error_text(error, low, high, text):
    assert error_text(error, low, high) == text


def test_pivot_is_one_row_per_model_and_one_column_per_data_set():
    shown, values = comparison_pivot(_summary())
    assert list(shown.columns) == ["model", "family", "approach", "mean rank", "d1", "d2", "d3",
                                   "d1_holdout (hold-out)"]
    # mean ranks over the four columns: knn (1, 2, 2, 1), mixture (2, 1, 1, -), tree (3, 3, 3, -)
    assert list(shown["model"]) == ["mixture", "knn", "tree"]
    np.testing.assert_allclose(values["mean rank"], [4 / 3, 1.5, 3.0])
    knn = shown.set_index("model").loc["knn"]
    # the corrected interval's half-width, 2.34 %, sets one decimal
    assert (knn["d1"], knn["d2"], knn["d1_holdout (hold-out)"]) == ("10.0 ± 2.3", "25.0 ± 2.3",
                                                                    "50.0")
    assert shown.set_index("model").loc["tree", "d1_holdout (hold-out)"] == ""
    np.testing.assert_allclose(values.set_index("model").loc["knn", "d2"], 25.0)


def test_pivot_page_sorts_by_the_error_and_names_the_full_table():
    page = comparison_pivot_page(_summary(), "results/tables/comparison_summary.tsv")
    assert "results/tables/comparison_summary.tsv" in page and "95 % interval" in page
    assert '<td data-value="10">10.0 ± 2.3</td>' in page
    assert len(re.findall(r"<tr>", page)) == 4            # header and three models
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['cv_error'\]"):
        comparison_pivot(_summary().drop(columns="cv_error"))
