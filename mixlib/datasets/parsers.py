"""Parsers that turn source files into the normalised raw table.

The normalised raw table has one column per feature (numeric, NaN where missing) or a single
sequence column, and the class label, as a string, in the last column ``class``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.datasets.checks import describe_lines
from mixlib.datasets.layouts import LAYOUTS, FileLayout
from mixlib.datasets.registry import CLASS_COLUMN, prefixed_role_columns

CLEVELAND_COLUMNS = [
    "age", "sex", "cp", "trestbps", "chol", "fbs", "restecg",
    "thalach", "exang", "oldpeak", "slope", "ca", "thal",
]
WINE_COLUMNS = [
    "alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols",
    "flavanoids", "nonflavanoid_phenols", "proanthocyanins", "color_intensity", "hue",
    "od280_od315", "proline",
]
SPLICE_LENGTH = 60


def parse_uci_splice(text: str) -> pd.DataFrame:
    """Parse UCI ``splice.data``: lines ``class, instance name, sequence``.

    Returns a table with columns ``sequence`` (60 upper-case letters) and ``class``.
    """
    classes, sequences, lines = [], [], []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != 3:
            raise ValueError(
                f"splice.data line {line_number}: expected 3 comma-separated fields "
                f"(class, name, sequence), got {len(fields)}."
            )
        label, _, sequence = fields
        if len(sequence) != SPLICE_LENGTH:
            raise ValueError(
                f"splice.data line {line_number}: sequence has {len(sequence)} bases, "
                f"expected {SPLICE_LENGTH}."
            )
        classes.append(label)
        sequences.append(sequence.upper())
        lines.append(line_number)
    if not sequences:
        raise ValueError("splice.data holds no sequence.")
    frame = pd.DataFrame({"sequence": sequences, CLASS_COLUMN: classes})
    frame.attrs["lines"] = lines
    return frame


def _parse_numeric_lines(text: str, n_columns: int, source: str) -> tuple[np.ndarray, list[int]]:
    """The values of every non-blank line (``?`` = NaN) and the file line of each row."""
    rows, lines = [], []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != n_columns:
            raise ValueError(
                f"{source} line {line_number}: expected {n_columns} values, got {len(fields)}."
            )
        try:
            rows.append([np.nan if field == "?" else float(field) for field in fields])
            lines.append(line_number)
        except ValueError as exc:
            raise ValueError(f"{source} line {line_number}: {exc}.") from None
    if not rows:
        raise ValueError(f"{source} holds no data row.")
    return np.array(rows), lines


def parse_uci_cleveland(text: str) -> pd.DataFrame:
    """Parse UCI ``processed.cleveland.data``: 13 measurements then the diagnosis 0-4.

    ``?`` marks a missing value. The class is 1 when the diagnosis is above 0 (any vessel
    narrowing) and 0 otherwise, as in the shipped copy.
    """
    values, lines = _parse_numeric_lines(text, len(CLEVELAND_COLUMNS) + 1, "processed.cleveland.data")
    diagnosis = values[:, -1]
    if np.isnan(diagnosis).any():
        raise ValueError("processed.cleveland.data has a missing diagnosis (last column).")
    frame = pd.DataFrame(values[:, :-1], columns=CLEVELAND_COLUMNS)
    frame[CLASS_COLUMN] = np.where(diagnosis > 0, "1", "0")
    frame.attrs["lines"] = lines
    return frame


def parse_uci_wine(text: str) -> pd.DataFrame:
    """Parse UCI ``wine.data``: the class (1-3) first, then 13 measurements."""
    values, lines = _parse_numeric_lines(text, len(WINE_COLUMNS) + 1, "wine.data")
    if np.isnan(values).any():
        raise ValueError("wine.data has missing values; the canonical file has none.")
    frame = pd.DataFrame(values[:, 1:], columns=WINE_COLUMNS)
    frame[CLASS_COLUMN] = [str(int(label)) for label in values[:, 0]]
    frame.attrs["lines"] = lines
    return frame


def _split_fields(line: str, delimiter: str | None) -> list[str]:
    if delimiter is None:
        return line.split()
    return [field.strip() for field in line.split(delimiter)]


def parse_layout(text: str, layout: FileLayout, source: str = "the file") -> pd.DataFrame:
    """Parse a delimited file laid out as ``layout`` into the normalised raw table.

    Parameters
    ----------
    text : str
        The file's text (several files of one data set joined line after line).
    layout : FileLayout
        Names of the fields, the class field, the fields left out, the categorical features,
        the delimiter, the missing markers and whether a header line comes first.
    source : str
        The file as messages name it.

    Returns
    -------
    pandas.DataFrame
        The features in file order (numeric ones float64 with NaN where missing, categorical
        ones text with ``None`` where missing), then ``class`` (text).
        ``frame.attrs["lines"]`` holds the file line of each row.

    Raises
    ------
    ValueError
        On a line with the wrong number of fields, a numeric feature cell that is not a
        number, a missing class, or a file without data rows; naming the column and line.
    """
    records, lines = [], []
    header_seen = not layout.header
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if not header_seen:
            header_seen = True
            continue
        fields = _split_fields(line, layout.delimiter)
        if len(fields) != len(layout.columns):
            raise ValueError(f"{source} line {line_number}: expected {len(layout.columns)} "
                             f"fields, got {len(fields)}.")
        records.append(fields)
        lines.append(line_number)
    if not records:
        raise ValueError(f"{source} holds no data row.")
    cells = pd.DataFrame(records, columns=list(layout.columns))
    lines = np.asarray(lines)
    missing = cells.isin(layout.missing)
    if missing[layout.class_column].any():
        raise ValueError(f"{source}: the class field {layout.class_column!r} is missing at "
                         f"{describe_lines(lines[missing[layout.class_column].to_numpy()])}.")
    frame = pd.DataFrame(index=cells.index)
    for column in layout.features:
        text_cells = cells[column].where(~missing[column])
        if column in layout.categorical:
            frame[column] = text_cells.astype(object).where(text_cells.notna(), None)
            continue
        values = pd.to_numeric(text_cells, errors="coerce").to_numpy(np.float64)
        bad = np.isnan(values) & ~missing[column].to_numpy()
        if bad.any():
            raise ValueError(f"{source}: column {column!r} holds {cells[column][bad].iloc[0]!r}"
                             f" at {describe_lines(lines[bad])}, which is not a number.")
        frame[column] = values
    frame[CLASS_COLUMN] = cells[layout.class_column].to_numpy(dtype=str)
    frame.attrs["lines"] = lines.tolist()
    return frame


PARSERS = {
    "uci_splice": parse_uci_splice,
    "uci_cleveland": parse_uci_cleveland,
    "uci_wine": parse_uci_wine,
    **{name: (lambda text, layout=layout, name=name: parse_layout(text, layout, name))
       for name, layout in LAYOUTS.items()},
}


def parse_uci(text: str, format: str) -> pd.DataFrame:
    """Parse a canonical UCI file in the named ``format`` (a key of :data:`PARSERS`).

    ``frame.attrs["lines"]`` of the result holds the file line of each row.
    """
    try:
        parser = PARSERS[format]
    except KeyError:
        raise ValueError(f"Unknown format {format!r}; expected one of {sorted(PARSERS)}.") from None
    return parser(text)


def read_normalised_csv(source, sequence_column: str | None = None,
                        categorical_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Read a normalised raw CSV (the shipped copies and the fetch stage's output).

    Every column but ``class``, the role columns (text, ``""`` where empty), the sequence
    column, if any, and the categorical columns (text, ``None`` where empty) is read as
    float64.
    """
    text_columns = {CLASS_COLUMN: str, **{column: str for column in categorical_columns}}
    frame = pd.read_csv(source, dtype=text_columns, keep_default_na=False, na_values=[""])
    if CLASS_COLUMN not in frame.columns:
        raise ValueError(f"The table has no {CLASS_COLUMN!r} column (columns: {list(frame.columns)}).")
    if sequence_column is not None:
        frame[sequence_column] = frame[sequence_column].astype(str)
    absent = [column for column in categorical_columns if column not in frame.columns]
    if absent:
        raise ValueError(f"The table has no categorical column {absent} (columns: "
                         f"{list(frame.columns)}).")
    for column in categorical_columns:
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    for column in prefixed_role_columns(frame.columns):
        frame[column] = frame[column].astype(object).where(frame[column].notna(), "").astype(str)
    return frame
