"""The critical-difference diagram on Demšar's (2006) example and on edge cases."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from mixlib.figures import critical_difference as module
from mixlib.figures.critical_difference import (
    critical_difference_figure, no_power_note, rank_groups,
)
from mixlib.model_selection.significance import rank_table
from tests.test_significance import demsar_table

DEMSAR_SORTED = [1.964, 2.000, 2.893, 3.143]   # C4.5+m+cf, C4.5+m, C4.5+cf, C4.5


def _bars(fig: Figure) -> list[tuple[float, float]]:
    """x extents of the thick group bars."""
    ax = fig.axes[0]
    return sorted((min(line.get_xdata()), max(line.get_xdata()))
                  for line in ax.get_lines() if line.get_linewidth() == 4)


def _texts(fig: Figure) -> dict[str, str]:
    return {text.get_text().strip(): text.get_horizontalalignment()
            for text in fig.axes[0].texts}


def test_rank_groups_of_demsar_figure_1a():
    # at alpha 0.10 (CD 1.12) Demšar connects {C4.5+m+cf, C4.5+m, C4.5+cf} and {C4.5+cf, C4.5}
    assert rank_groups(DEMSAR_SORTED, 1.12) == [(0, 2), (2, 3)]
    # at alpha 0.05 (CD 1.25) no pair differs: one group
    assert rank_groups(DEMSAR_SORTED, 1.25) == [(0, 3)]


def test_rank_groups_edge_cases():
    assert rank_groups([1.0, 2.0], 1.0) == []            # a difference of exactly CD is significant
    assert rank_groups([1.0, 1.9, 3.0], 1.0) == [(0, 1)]
    assert rank_groups([1.0, 1.5, 1.8, 3.5], 1.0) == [(0, 2)]   # (1, 2) is inside (0, 2)
    with pytest.raises(ValueError, match="sorted"):
        rank_groups([2.0, 1.0], 1.0)


def test_demsar_diagram():
    fig = critical_difference_figure(rank_table(demsar_table(), significance_level=0.10))
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert low > high                               # rank 1 (best) on the right
    extents = _bars(fig)
    np.testing.assert_allclose(extents, [(1.964 - 0.03, 2.893 + 0.03),
                                         (2.893 - 0.03, 3.143 + 0.03)], atol=1e-3)
    texts = _texts(fig)
    assert texts["CD = 1.12"] == "center"
    # the better half is labelled on the right (text starts at its line), the worse on the left
    assert texts["C4.5+m+cf (1.96)"] == texts["C4.5+m (2.00)"] == "left"
    assert texts["C4.5 (3.14)"] == texts["C4.5+cf (2.89)"] == "right"
    assert "alpha = 0.1" in ax.get_title() and "N = 14" in ax.get_title()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert buffer.getvalue().startswith(b"\x89PNG")


def test_a_test_without_power_gives_way_to_a_note():
    # Demšar's example at alpha 0.05: CD 1.25 exceeds the spread 3.143 - 1.964 = 1.18, so
    # one bar would join all four models; the figure is the note alone
    ranks = rank_table(demsar_table(), significance_level=0.05)
    note = no_power_note(ranks)
    assert note == ("No pair of the 4 models differs significantly: the Nemenyi CD, 1.25 "
                    "(alpha = 0.05, N = 14 data sets), exceeds the spread of their mean ranks, "
                    "1.96 to 3.14.")
    fig = critical_difference_figure(ranks)
    (ax,) = fig.axes
    assert not ax.get_lines() and not ax.axison
    assert " ".join(text.get_text() for text in ax.texts).split() == note.split()
    assert fig.get_figheight() <= 1.0               # a line or two of text, not a diagram
    assert no_power_note(rank_table(demsar_table(), significance_level=0.10)) is None


def test_a_spread_of_exactly_the_critical_difference_is_drawn():
    # |R_i - R_j| >= CD is significant: the diagram has something to show
    table = pd.DataFrame({"model": ["a", "b", "c"], "mean_rank": [1.0, 1.5, 2.0],
                          "critical_difference": 1.0})
    assert no_power_note(table) is None
    assert _bars(critical_difference_figure(table)) == [(0.97, 1.53), (1.47, 2.03)]
    short = table.assign(critical_difference=1.39)
    assert no_power_note(short) == ("No pair of the 3 models differs significantly: the Nemenyi "
                                    "CD, 1.39, exceeds the spread of their mean ranks, 1.00 to "
                                    "2.00.")


def test_lines_do_not_cross():
    # every model's line turns at its own row; on each side the outermost model turns highest
    table = pd.DataFrame({"model": list("abcdef"), "mean_rank": [1.2, 2.1, 3.0, 3.9, 4.6, 5.2],
                          "critical_difference": 0.5})
    fig = critical_difference_figure(table)
    turns = {}
    for line in fig.axes[0].get_lines():
        x, y = line.get_xdata(), line.get_ydata()
        if len(x) == 3:                             # rank -> row -> label
            turns[x[0]] = y[1]
    assert len(set(turns.values())) == 3            # two models per row, one on each side
    right = [turns[r] for r in (1.2, 2.1, 3.0)]
    left = [turns[r] for r in (5.2, 4.6, 3.9)]
    assert right == sorted(right, reverse=True) and left == sorted(left, reverse=True)


@pytest.mark.parametrize("table, match", [
    (pd.DataFrame({"model": ["a", "b"], "mean_rank": [1.0, 2.0]}), "columns"),
    (pd.DataFrame({"model": ["a"], "mean_rank": [1.0], "critical_difference": 1.0}),
     "at least 2"),
    (pd.DataFrame({"model": ["a", "b"], "mean_rank": [1.0, np.nan],
                   "critical_difference": 1.0}), "NaN"),
    (pd.DataFrame({"model": ["a", "b"], "mean_rank": [1.0, 2.0],
                   "critical_difference": [1.0, 1.1]}), "one critical_difference"),
])
def test_bad_tables(table, match):
    with pytest.raises(ValueError, match=match):
        critical_difference_figure(table)


def test_reads_a_table_only():
    # figures sit above estimators and experiments: this one may use figures and core only
    tree = ast.parse(Path(module.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    ours = {name for name in imported if name.startswith("mixlib")}
    assert ours and all(name.startswith(("mixlib.figures", "mixlib.core")) for name in ours)
