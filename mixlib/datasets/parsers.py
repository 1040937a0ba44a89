"""Parsers that turn source files into the normalised raw table.

The normalised raw table has one column per feature (numeric, NaN where missing) or a single
sequence column, and the class label, as a string, in the last column ``class``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mixlib.datasets.checks import (
    check_raw_table, check_role_column_names, describe_lines, read_role_column,
)
from mixlib.datasets.layouts import LAYOUTS, FileLayout
from mixlib.datasets.registry import CLASS_COLUMN, ROLE_PREFIX, ROW_ID_COLUMN, prefixed_role_columns

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


def _csv_records(text: str, source: str) -> tuple[list[str], list[list[str]], list[int]]:
    """The header, the data records and the file line each record starts on (blank lines skipped)."""
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    records, lines = [], []
    next_line = 1
    try:
        for record in reader:
            start, next_line = next_line, reader.line_num + 1
            if not any(cell.strip() for cell in record):
                continue
            if header is None:
                header = [cell.strip() for cell in record]
                continue
            if len(record) != len(header):
                raise ValueError(
                    f"{source}: line {start} has {len(record)} fields but the header (line 1) "
                    f"has {len(header)}."
                )
            records.append([cell.strip() for cell in record])
            lines.append(start)
    except csv.Error as exc:
        raise ValueError(f"{source}: line {reader.line_num}: {exc}.") from None
    if header is None:
        raise ValueError(f"{source}: the file is empty (no header row).")
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        raise ValueError(f"{source}: the header names columns {duplicated} more than once.")
    if not records:
        raise ValueError(f"{source}: the file has a header but no data row.")
    return header, records, lines


_NAN_TEXTS = {"nan", "+nan", "-nan"}


def parse_user_csv(
    text: str,
    class_column: str,
    missing_values: Sequence[str] = (),
    drop_columns: Sequence[str] = (),
    source: str = "CSV",
    role_columns: Mapping[str, str] | None = None,
    categorical_columns: Sequence[str] = (),
) -> pd.DataFrame:
    """Read a user's CSV into the normalised raw table, and check its values.

    Parameters
    ----------
    text : str
        The CSV text, with a header row.
    class_column : str
        Column holding the class label (moved to the end and renamed ``class``).
    missing_values : sequence of str
        Strings that mark a missing value, besides an empty cell.
    drop_columns : sequence of str
        Columns to leave out (identifiers, free text).
    source : str
        Name used in error messages (the config key and path).
    role_columns : mapping column -> config key, optional
        Columns holding each row's role for a split (``splits.<name>.role_column``, the key
        used in messages). They are not features: they skip the numeric checks and are kept
        as text in ``role:<column>`` (``""`` where empty or a missing marker), after checking
        that every cell is a role (:func:`mixlib.datasets.checks.read_role_column`).
    categorical_columns : sequence of str
        Features whose values are categories (text such as ``red``, or codes): kept as text
        (``None`` where empty or a missing marker) for the ``prepare`` stage to encode.

    Returns
    -------
    pandas.DataFrame
        Features (numeric ones float64 with NaN where missing, categorical ones text), the
        role columns, then ``class``.
        ``frame.attrs["lines"]`` holds the file line of each row (the header is line 1; blank
        lines are skipped but counted).

    Raises
    ------
    ValueError
        If a named column is absent, a row is ragged, a feature is not numeric, not finite or
        huge, a column is entirely empty, a class label is missing, a class has one example
        (see :mod:`mixlib.datasets.checks`), a role column is the class column or a role cell
        is not a role. Messages name the column or class and file lines.
    """
    header, records, lines = _csv_records(text, source)
    lines = np.asarray(lines)
    named = ([(class_column, "class_column")] + [(c, "drop_columns") for c in drop_columns]
             + [(c, "categorical_columns") for c in categorical_columns])
    for name, role in named:
        if name not in header:
            raise ValueError(f"{source}: {role} names {name!r}, which is not a column of {header}.")
    role_columns = dict(role_columns or {})
    check_role_column_names(header, role_columns, class_column, source)
    cells = pd.DataFrame(records, columns=header)
    missing = {""} | {marker.strip() for marker in missing_values}
    labels = cells[class_column]
    empty = labels.isin(missing).to_numpy()
    if empty.any():
        raise ValueError(
            f"{source}: the class column {class_column!r} is empty (or a missing marker) at "
            f"{describe_lines(lines[empty])}; every row needs a class."
        )
    features = cells.drop(columns=list(dict.fromkeys([class_column, *drop_columns, *role_columns])))
    if features.shape[1] == 0:
        raise ValueError(f"{source}: no feature column is left besides {class_column!r}.")
    reserved = [name for name in features.columns
                if name in (CLASS_COLUMN, ROW_ID_COLUMN) or name.startswith(ROLE_PREFIX)]
    if reserved:
        raise ValueError(
            f"{source}: a feature column is named {reserved[0]!r}, a name the pipeline uses "
            "for its own columns; rename it (or list it in drop_columns)."
        )
    numeric = pd.DataFrame(index=features.index)
    for column in features.columns:
        text_cells = features[column]
        is_missing = text_cells.isin(missing).to_numpy()
        if column in categorical_columns:
            numeric[column] = text_cells.astype(object).where(~is_missing, None)
            continue
        values = pd.to_numeric(text_cells.where(~is_missing), errors="coerce").to_numpy(np.float64)
        nan_text = text_cells.str.lower().isin(_NAN_TEXTS).to_numpy() & ~is_missing
        if nan_text.any():
            raise ValueError(
                f"{source}: column {column!r} holds {text_cells[nan_text].iloc[0]!r} at "
                f"{describe_lines(lines[nan_text])}; values must be finite numbers (list the "
                "marker in missing_values if it means a missing value)."
            )
        bad = np.isnan(values) & ~is_missing
        if bad.any():
            raise ValueError(
                f"{source}: column {column!r} is not numeric: {text_cells[bad].iloc[0]!r} at "
                f"{describe_lines(lines[bad])}; list the column in categorical_columns if its "
                "values are categories, in drop_columns if it is no feature, add the marker to "
                "missing_values, or, if it holds each row's role (train, test, ...), name it "
                "in a split's role_column."
            )
        numeric[column] = values
    for column, where in role_columns.items():
        text_cells = cells[column].where(~cells[column].isin(missing), "")
        read_role_column(text_cells.to_numpy(), lines, column=column, where=where, source=source)
        numeric[ROLE_PREFIX + column] = text_cells.to_numpy()
    numeric[CLASS_COLUMN] = labels.to_numpy()
    numeric = numeric.reset_index(drop=True)
    check_raw_table(numeric, source, lines, categorical_columns=categorical_columns)
    numeric.attrs["lines"] = lines.tolist()
    return numeric
