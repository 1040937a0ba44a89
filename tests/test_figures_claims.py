"""The claims figure: a forest plot, each row on its band's scale, with the report's value."""

import io
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from mixlib.figures.claims import VERDICT_COLOURS, band_scale, claims_figure, row_text, stated_verdict


def _claims() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["iterative_hard_error", "prior_rounds", "prior_more_rounds"], "data": ["bacteria"] * 3,
        "kind": ["absolute", "absolute", "qualitative"], "verdict": ["holds", "contradicted", "holds"],
        "measured": [0.05, 6.0, 1.2], "ci_low": [0.04, 5.5, 0.4], "ci_high": [0.06, 6.5, 2.0],
        "band_low": [0.022, 3.0, 0.0], "band_high": [0.078, 5.0, math.inf],
        "pi_low": [0.0, 4.0, np.nan], "pi_high": [0.12, 8.0, np.nan],
        "report_low": [0.05, 4.0, np.nan], "report_high": [0.05, 4.0, np.nan],
        "report_in_pi": ["yes", "yes", ""], "readings": [4, 2, 0], "readings_holds": [3, 0, 0],
        "replicate_verdict": ["holds", "contradicted", "inconclusive"],
        "stability": ["stable", "stable", "unstable"]})


def test_each_row_is_drawn_on_its_band_scale():
    rows = _claims()
    assert band_scale(rows.iloc[0]) == (pytest.approx(0.05), pytest.approx(0.028))
    assert band_scale(rows.iloc[1]) == (4.0, 1.0)
    assert band_scale(rows.iloc[2]) == (0.0, 2.0)   # a direction: its end at 0, scaled by the farthest point
    assert stated_verdict(rows.iloc[2]) == "unstable" and stated_verdict(rows.iloc[0]) == "holds"
    assert row_text(rows.iloc[0]) == "0.05 [0.04, 0.06]; report 0.05 (in PI); holds in 3/4 readings"
    assert row_text(rows.iloc[2]).endswith("replicate inconclusive")


def test_claims_figure_draws_interval_prediction_interval_and_report_value_per_row():
    fig = claims_figure(_claims(), None)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["prior_more_rounds · bacteria", "*prior_rounds · bacteria", "*iterative_hard_error · bacteria"]
    thick = [line for line in ax.lines if line.get_linewidth() == 4.0]
    assert len(thick) == 3
    # the first row's interval [0.04, 0.06] on its band's scale, coloured by its verdict
    first = next(line for line in thick if line.get_ydata()[0] == 2)
    assert np.allclose(first.get_xdata(), [(0.04 - 0.05) / 0.028, (0.06 - 0.05) / 0.028])
    assert to_hex(first.get_color()) == VERDICT_COLOURS["holds"].lower()
    unstable = next(line for line in thick if line.get_ydata()[0] == 0)
    assert to_hex(unstable.get_color()) == VERDICT_COLOURS["unstable"].lower()
    diamonds = [line for line in ax.lines if line.get_marker() == "D"]
    assert len(diamonds) == 2   # the two absolute rows
    texts = [t.get_text() for t in ax.texts]
    assert any("holds in 3/4 readings" in t for t in texts)   # the table's own counts
    fig.savefig(io.BytesIO(), format="png")
    with pytest.raises(ValueError, match="verdict"):
        claims_figure(_claims().drop(columns="verdict"), None)
