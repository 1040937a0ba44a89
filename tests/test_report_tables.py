"""The report's tables: rounded to what their intervals support, sortable, self-contained."""

import math
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from mixlib.report.html_table import shown_columns, table_page
from mixlib.report.snakemake_warnings import ignore_unawaited_input_sizes
from mixlib.report.rounding import (
    format_significant,
    format_value,
    formatted_table,
    interval_decimals,
)
from mixlib.report.summary import claims_summary_html, verdict_counts_text


@pytest.mark.parametrize("low, high, decimals", [
    (0.1013, 0.1253, 3),   # half-width 0.012: two significant digits -> 3 decimals
    (12.0, 18.0, 1),       # 3.0 -> 1 decimal
    (-0.063, 0.163, 2),    # 0.113 -> 2
    (100.0, 300.0, 0),     # 100 -> no decimal
    (0.5, 0.5, None),      # no width: nothing to round by
    (np.nan, 0.2, None),
    (0.0, np.inf, None),
])
def test_interval_decimals_give_two_significant_digits_of_the_half_width(low, high, decimals):
    assert interval_decimals(low, high) == decimals


def test_a_row_is_rounded_by_its_own_interval_and_other_columns_by_their_kind():
    frame = pd.DataFrame({
        "model": ["a", "b"],
        "cv_error": [0.11328571428571428, 14.5],
        "ci_low": [0.1013, 12.0],
        "ci_high": [0.1253, 18.0],
        "p_value": [0.060648596379381824, 0.00052],
        "fit_seconds": [0.005084531319662347, 112.4],
        "n_train": [2552.0, 30.0],
        "statistic": [25.533333333333324, np.inf],
        "significant": [False, True],
    })
    shown = formatted_table(frame)
    assert shown.loc[0].tolist() == ["a", "0.113", "0.101", "0.125", "0.061", "0.0051", "2552",
                                     "25.5", "False"]
    assert shown.loc[1].tolist() == ["b", "14.5", "12.0", "18.0", "0.00052", "112", "30", "∞",
                                     "True"]


def test_a_narrow_interval_keeps_at_most_four_significant_digits():
    decimals = interval_decimals(-0.0277778, -0.0277777)
    assert decimals == 6
    assert format_value(-0.027777777777777776, "measured", decimals) == "-0.02778"
    assert format_value(1234.5678, "measured", 2) == "1235"
    assert format_value(0.0, "measured", decimals) == "0.000000"


def test_values_without_an_interval_keep_three_significant_digits():
    assert format_value(0.05633228840125391, "error_a", None) == "0.0563"
    assert format_value(3.3333333333333335, "mean_rank", None) == "3.33"
    assert format_value(-0.0000012345, "mean_difference", None) == "-1.23e-06"
    assert format_value(float("nan"), "ci_low", 3) == ""
    assert format_significant(0.0, 3) == "0"
    assert format_value("heart_cleveland", "dataset", 2) == "heart_cleveland"


class _Cells(HTMLParser):
    """The header names, the rows' cell texts and data-value attributes of a page."""

    def __init__(self):
        super().__init__()
        self.headers, self.rows, self.values, self._cell = [], [], [], None
        self.scripts, self.links = 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr":
            self.rows.append([]), self.values.append([])
        elif tag in ("th", "td"):
            self._cell = tag
            if tag == "td":
                self.values[-1].append(attrs.get("data-value"))
        elif tag == "script":
            self.scripts += 1
            self.links.append(attrs.get("src"))
        elif tag == "link":
            self.links.append(attrs.get("href"))

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self._cell = None

    def handle_data(self, data):
        if self._cell == "th":
            self.headers.append(data)
        elif self._cell == "td":
            self.rows[-1].append(data)


def test_a_page_is_a_sortable_self_contained_table_of_rounded_values():
    frame = pd.DataFrame({"id": ["x", "y"], "statement": ["a long sentence " * 4,
                                                          "another long sentence " * 3],
                          "measured": [0.11328571428571428, 0.2], "ci_low": [0.1013, 0.1],
                          "ci_high": [0.1253, 0.3], "verdict": ["holds", "inconclusive"]})
    page = table_page(frame, title="claims.tsv", note="results/tables/claims.tsv: 2 rows")
    cells = _Cells()
    cells.feed(page)
    # the verdict next to the row's name, the sentences last
    assert cells.headers == ["id", "verdict", "measured", "ci_low", "ci_high", "statement"]
    assert [row for row in cells.rows if row] == [
        ["x", "holds", "0.113", "0.101", "0.125", "a long sentence " * 4],
        ["y", "inconclusive", "0.20", "0.10", "0.30", "another long sentence " * 3]]
    # number cells sort by the value to 6 significant digits, not by the rounded text; text
    # cells by their own text (no data-value: nothing twice on the page)
    assert cells.values[1] == [None, None, "0.113286", "0.1013", "0.1253", None]
    assert 'class="sortable"' in page and "addEventListener(\"click\"" in page
    assert cells.scripts == 1 and cells.links == [None]  # inline script, nothing fetched
    assert not re.search(r"https?://", page)
    assert '<td class="verdict-holds">holds</td>' in page
    # number columns (3 to 5) right-aligned once, in the style, not by a class on each cell
    assert "td:nth-child(3) { text-align: right;" in page and "td:nth-child(5)" in page
    assert "td:nth-child(2) {" not in page and 'class="number' not in page
    assert "td:nth-child(6) { min-width: 26em; }" in page  # the sentences get room


def test_landing_summary_counts_the_verdicts_and_rounds_like_the_table():
    claims = pd.DataFrame({
        "chapter": [3, 5, 6], "statement": ["EM < 30 iterations", "error 5 %", "x & y"],
        "data": ["bacteria", "bacteria", "all"], "measured": [14.5, 0.0805555, -3.7],
        "ci_low": [12.0, 0.0492, np.nan], "ci_high": [18.0, 0.1120, np.nan],
        "band_low": [10.0, 0.022, -math.inf], "band_high": [30.0, 0.078, 0.0],
        "readings": [3, 60, 0], "readings_holds": [3, 5, 0],
        "verdict": ["holds", "inconclusive", "contradicted"]})
    assert verdict_counts_text(claims) == (
        "3 claim rows: 1 hold, 1 contradicted, 1 inconclusive")
    fragment = claims_summary_html(claims)
    assert "<script" not in fragment and "x &amp; y" in fragment
    assert "<td>14.5</td><td>[12.0, 18.0]</td><td>(10.0, 30.0)</td><td></td><td>3 / 3</td>" in fragment
    assert "<td>0.081</td><td>[0.049, 0.112]</td><td>(0.022, 0.078)</td>" in fragment
    assert "<td>-3.70</td><td></td><td>(−∞, 0)</td><td></td><td></td>" in fragment


def test_only_snakemakes_unawaited_input_sizes_warning_is_ignored():
    message = ("coroutine 'InputFiles._predicated_size_files.<locals>.sizes' was never "
               "awaited")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ignore_unawaited_input_sizes()
        warnings.warn_explicit(message, RuntimeWarning, "rules.py", 1099,
                               module="snakemake.rules")
        assert caught == []
        # the same message from another module, another message or category from that one
        warnings.warn_explicit(message, RuntimeWarning, "x.py", 1, module="mixlib.report")
        warnings.warn_explicit(message, RuntimeWarning, "x.py", 1, module="snakemake.rulesx")
        warnings.warn_explicit("coroutine 'other' was never awaited", RuntimeWarning,
                               "rules.py", 1, module="snakemake.rules")
        warnings.warn_explicit(message, UserWarning, "rules.py", 1, module="snakemake.rules")
    assert [(w.category, w.filename) for w in caught] == [
        (RuntimeWarning, "x.py"), (RuntimeWarning, "x.py"), (RuntimeWarning, "rules.py"),
        (UserWarning, "rules.py")]


def test_a_page_leaves_out_what_every_row_or_every_row_of_a_claim_repeats():
    readings = pd.DataFrame({
        "id": ["a", "a", "b"], "statement": ["claim a", "claim a", "claim b"],
        "reading": ["r1", "r2", "r1"], "measured": [0.1, 0.2, 0.3],
        "band_low": [0.0, 0.0, 0.5], "provenance": ["abc"] * 3, "alpha": [0.05] * 3})
    columns, note = shown_columns(readings, per="id")
    assert columns == ["id", "reading", "measured"]
    assert note == ("Same on every row: provenance abc, alpha 0.050. The same for every row of "
                    "one id, so not repeated here: statement, band_low.")
    assert shown_columns(readings) == (
        ["id", "statement", "reading", "measured", "band_low"],
        "Same on every row: provenance abc, alpha 0.050.")
    # a reading is long text, yet it says what the row is about: next to the id
    long = readings.assign(reading=readings["reading"] + ", threshold=0.9, finish=argmax, "
                                                         "unclassifiable=confidence")
    page = table_page(long, title="claims_readings.tsv", note="3 rows.", per="id")
    cells = _Cells()
    cells.feed(page)
    assert cells.headers == ["id", "reading", "measured"]
    assert "3 rows. Same on every row: provenance abc" in page
    # one row has nothing to compare: every column is shown
    assert shown_columns(readings.head(1))[0] == list(readings.columns)


def test_landing_summary_never_states_an_unstable_row_and_gives_the_agreement_rate():
    claims = pd.DataFrame({
        "chapter": [5, 5, 6], "statement": ["a", "b", "c"], "data": ["bacteria"] * 3,
        "measured": [0.05, 0.06, 0.2], "ci_low": [0.04, 0.05, 0.18], "ci_high": [0.06, 0.07, 0.22],
        "band_low": [0.022] * 3, "band_high": [0.078] * 3, "readings": [0] * 3, "readings_holds": [0] * 3,
        "pi_low": [0.0, 0.01, 0.1], "pi_high": [0.1, 0.11, 0.3], "report_in_pi": ["yes", "yes", "no"],
        "verdict": ["holds", "holds", "contradicted"], "replicate_verdict": ["holds", "inconclusive", ""],
        "stability": ["stable", "unstable", ""]})
    assert verdict_counts_text(claims) == (
        "3 claim rows: 1 hold, 1 contradicted, 0 inconclusive, 1 unstable (the replicate of our "
        "reading agrees on 1 of 2 rows, 50 %)")
    fragment = claims_summary_html(claims)
    assert "<b>unstable (holds / inconclusive)</b>" in fragment
    assert fragment.count("<b>holds</b>") == 1
    assert "<td>[0.100, 0.300]: no</td>" in fragment
