"""The comparison in the report: data set x model as "error ± interval", and the pairwise
tests as a figure of Holm-adjusted p-values."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from mixlib.figures.comparison_pairs import comparison_pairs_figure, pair_matrix
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


def _pairs() -> pd.DataFrame:
    errors = {"knn": 0.10, "mixture": 0.20, "tree": 0.30}
    p_holm = {("mixture", "knn"): 0.04, ("mixture", "tree"): 0.5, ("knn", "tree"): 0.0004}
    rows = [{"protocol": "cv", "dataset": dataset, "split": "", "model_a": a, "model_b": b,
             "error_a": errors[a], "error_b": errors[b], "p_holm": p, "alpha": 0.05}
            for dataset in ("d1", "d2") for (a, b), p in p_holm.items()]
    return pd.DataFrame(rows)


def test_pair_matrix_orders_models_by_error_and_is_symmetric():
    models, p = pair_matrix(_pairs()[lambda t: t["dataset"] == "d1"])
    assert models == ["knn", "mixture", "tree"]
    np.testing.assert_allclose(p, [[np.nan, 0.04, 0.0004], [0.04, np.nan, 0.5],
                                   [0.0004, 0.5, np.nan]])


def test_pairs_figure_is_a_p_value_matrix_per_data_set():
    figure = comparison_pairs_figure(_pairs())
    panels = [ax for ax in figure.axes if ax.get_visible() and ax.images]
    assert [ax.get_title() for ax in panels] == ["d1", "d2"]
    ax = panels[0]
    # the lower triangle: rows are the worse model of each pair
    assert [t.get_text() for t in ax.get_yticklabels()] == ["mixture", "tree"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["knn", "mixture"]
    shown = ax.images[0].get_array()
    assert shown.mask[0, 0] and shown.mask[0, 1] and not shown.mask[1, 0]
    # the significant pairs are printed, the others only coloured
    assert sorted(t.get_text() for t in ax.texts) == [".040", "<.001"]
    colour_bar = [a for a in figure.axes if a not in panels][0]
    assert [t.get_text() for t in colour_bar.get_yticklabels()] == [
        "< 0.001", "< 0.01", "< 0.05", ">= 0.05"]
