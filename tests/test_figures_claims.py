"""The claims figure: claims down, readings across, cells coloured by verdict."""

import io

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from mixlib.figures.claims import claims_figure, parse_reading, reading_columns, verdict_matrix


def _tables():
    claims = pd.DataFrame({"id": ["prior_rounds", "iterative_rounds", "mixture_accuracy"],
                           "data": ["s", "s", "wine"], "kind": ["absolute", "absolute", "absolute"],
                           "verdict": ["holds", "contradicted", "inconclusive"]})
    rows = []
    for floor in ("1e-06", "0.25"):
        for restart in ("warm", "fresh"):
            rows.append({"id": "prior_rounds", "data": "s", "reading": f"restart={restart}, threshold=0.75, "
                         f"relative_min_variance={floor}", "verdict": "holds" if restart == "warm" else "contradicted"})
        for finish in ("argmax", "stop"):
            rows.append({"id": "iterative_rounds", "data": "s", "reading": f"finish={finish}, threshold=0.75, "
                         f"relative_min_variance={floor}", "verdict": "inconclusive"})
    return claims, pd.DataFrame(rows)


def test_parse_reading():
    assert parse_reading("restart=warm, threshold=0.75") == {"restart": "warm", "threshold": "0.75"}
    assert parse_reading("") == {} and parse_reading(np.nan) == {}


def test_verdict_matrix_fills_every_reading_a_row_does_not_fix():
    claims, readings = _tables()
    columns = reading_columns(readings)
    assert list(columns.columns) == ["relative_min_variance", "threshold", "restart", "finish"]
    assert len(columns) == 2 * 1 * 2 * 2
    assert columns["relative_min_variance"].tolist()[:4] == ["1e-06"] * 4   # numeric order
    rows, columns, codes = verdict_matrix(claims, readings)
    assert codes.shape == (3, 1 + 8)
    assert codes[:, 0].tolist() == [0, 1, 2]   # our reading: holds, contradicted, inconclusive
    warm = (columns["restart"] == "warm").to_numpy()
    assert (codes[0, 1:][warm] == 0).all() and (codes[0, 1:][~warm] == 1).all()
    assert (codes[1, 1:] == 2).all()
    assert (codes[2, 1:] == 3).all()   # no readings: not measured


def test_claims_figure_draws_one_cell_per_claim_and_reading():
    claims, readings = _tables()
    fig = claims_figure(claims, readings)
    assert isinstance(fig, Figure)
    grid = fig.axes[0]
    image = grid.get_images()[0].get_array()
    assert image.shape == (3, 9)
    labels = [t.get_text() for t in grid.get_yticklabels()]
    assert labels == ["*prior_rounds · s", "*iterative_rounds · s", "*mixture_accuracy · wine"]
    counts = [t.get_text().strip() for t in grid.texts]
    assert counts == ["4/8", "0/8"]
    fig.savefig(io.BytesIO(), format="png")
    # the counts are the table's own when it has them (identical readings counted once)
    counted = claims.assign(readings_holds=[1, 0, 0], readings=[2, 1, 0])
    texts = [t.get_text().strip() for t in claims_figure(counted, readings).axes[0].texts]
    assert texts == ["1/2", "0/1"]
    # without a grid: only our reading
    alone = claims_figure(claims, readings.iloc[:0])
    assert alone.axes[0].get_images()[0].get_array().shape == (3, 1)
    with pytest.raises(ValueError, match="verdict"):
        claims_figure(claims.drop(columns="verdict"), readings)
