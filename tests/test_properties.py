"""Property-based tests of the CSV reader, the prepare stage and standardisation.

Random numeric tables with random missing cells, extreme values, random class labels and
column names: the reader either stops with a message naming the culprit (column or class as
the header spells it) or gives back exactly the input's values; ``prepare`` and
standardisation keep them up to their documented encoding and scaling.
"""

import csv
import io
import string

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mixlib.datasets import feature_matrix, prepare_table
from mixlib.datasets.checks import MAX_MAGNITUDE, MIN_CLASS_SIZE
from mixlib.datasets.user_csv import parse_user_csv
from mixlib.core.preprocessing import standardise

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.text(string.ascii_letters + string.digits + "_ -.é", min_size=1, max_size=8).map(
    str.strip).filter(lambda name: name and name not in ("label",))
RESERVED = ("class", "row_id")  # the pipeline's own columns: the reader must refuse them
values = st.one_of(
    st.none(),  # a missing cell
    st.floats(allow_nan=False, allow_infinity=False),  # anything finite, 1e308 included
    st.floats(-1e6, 1e6, allow_nan=False),
    st.integers(-10**6, 10**6).map(float),
)
labels = st.text(string.ascii_letters + string.digits + " _", min_size=1, max_size=5).map(
    str.strip).filter(bool)


@st.composite
def tables(draw):
    """A header of unique names plus ``label``, and rows of cells (None = missing)."""
    columns = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    n_rows = draw(st.integers(2, 25))
    rows = [[draw(values) for _ in columns] for _ in range(n_rows)]
    classes = draw(st.lists(labels, min_size=1, max_size=3, unique=True))
    row_labels = [draw(st.sampled_from(classes)) for _ in range(n_rows)]
    return columns, rows, row_labels


def _csv_text(columns, rows, row_labels) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*columns, "label"])
    for row, label in zip(rows, row_labels):
        writer.writerow(["" if v is None else repr(v) for v in row] + [label])
    return buffer.getvalue()


@SETTINGS
@given(tables())
def test_reader_returns_the_input_exactly_or_names_the_culprit(table):
    columns, rows, row_labels = table
    values_ = np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
    counts = pd.Series(row_labels).value_counts()
    expected_culprits = (
        [c for c in columns if c in RESERVED]
        + [c for j, c in enumerate(columns) if np.isnan(values_[:, j]).all()
         or (np.abs(np.nan_to_num(values_[:, j])) > MAX_MAGNITUDE).any()]
        + [label for label, n in counts.items() if n < MIN_CLASS_SIZE]
    )
    try:
        frame = parse_user_csv(_csv_text(columns, rows, row_labels), "label", source="datasets.t")
    except ValueError as exc:
        assert expected_culprits, f"rejected a good table: {exc}"
        assert any(repr(culprit) in str(exc) for culprit in expected_culprits), str(exc)
        return
    assert not expected_culprits
    assert list(frame.columns) == [*columns, "class"]
    np.testing.assert_array_equal(frame[columns].to_numpy(), values_)  # bit for bit, NaN = NaN
    assert frame["class"].tolist() == row_labels
    assert frame.attrs["lines"] == list(range(2, len(rows) + 2))


@SETTINGS
@given(tables())
def test_prepare_keeps_every_value_and_label(table):
    columns, rows, row_labels = table
    assume(not any(c in RESERVED for c in columns))  # refused by the reader (test above)
    rows = [[None if v is None else float(np.clip(v, -1e6, 1e6)) for v in row] for row in rows]
    rows[0] = [1.0 if v is None else v for v in rows[0]]  # no all-empty column
    raw = pd.DataFrame(rows, columns=columns, dtype=float).assign(**{"class": row_labels})
    X, y = feature_matrix(prepare_table(raw))
    np.testing.assert_array_equal(X, raw[columns].to_numpy())
    assert y.tolist() == row_labels


@SETTINGS
@given(st.lists(st.lists(st.floats(-1e300, 1e300), min_size=3, max_size=3), min_size=3, max_size=20),
       st.floats(1e-200, 1e200))
def test_standardisation_is_finite_and_unit_free(rows, unit):
    X = np.array(rows)
    fit = np.ones(len(X), dtype=bool)
    Z, mean, scale = standardise(X, fit)
    assert np.isfinite(Z).all() and np.isfinite(mean).all() and np.isfinite(scale).all()
    np.testing.assert_allclose(mean + Z * scale, X, rtol=1e-9, atol=1e-9 * np.abs(X).max())
    # A feature that varies has mean 0 and sd 1 on the training rows; one that is constant
    # (s <= 1e-12 max(1, |m|)) is only centred: scale 1, z = x - m.
    constant = scale == 1.0
    spread = Z[:, ~constant].std(axis=0)
    np.testing.assert_allclose(Z[:, ~constant].mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(spread, 1.0, rtol=1e-9)
    np.testing.assert_allclose(Z[:, constant], X[:, constant] - mean[constant],
                               rtol=0, atol=1e-12 * max(1.0, np.abs(X).max()))
    with np.errstate(over="ignore", under="ignore"):
        scaled = X * unit
    if np.isfinite(scaled).all() and (np.abs(scaled[scaled != 0]) > 1e-290).all():
        # Same z in another unit, for features that vary in both units (a spread below
        # 1e-12 max(1, |mean|) counts as constant, a documented absolute threshold).
        Z_scaled, _, scale_scaled = standardise(scaled, fit)
        varies = ~constant & (scale_scaled != 1.0)
        np.testing.assert_allclose(Z_scaled[:, varies], Z[:, varies], rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("text", ["1e308", "-1.7976931348623157e308", "5e-324"])
def test_reader_handles_the_ends_of_the_float_range(text):
    body = f"x,label\n{text},a\n1,a\n2,b\n3,b\n"
    if abs(float(text)) > MAX_MAGNITUDE:
        with pytest.raises(ValueError, match=r"column 'x' holds .* at line 2;"):
            parse_user_csv(body, "label")
    else:
        assert parse_user_csv(body, "label")["x"].iloc[0] == float(text)


def test_prepare_refuses_a_feature_named_like_its_row_numbers():
    # Found by the property test: a feature "row_id" was silently dropped with the row numbers.
    raw = pd.DataFrame({"row_id": [1.0, 2.0], "x": [3.0, 4.0], "class": ["a", "b"]})
    with pytest.raises(ValueError, match="a feature named 'row_id'"):
        prepare_table(raw)
