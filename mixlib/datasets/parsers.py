"""Parsers that turn source files into the normalised raw table.

The normalised raw table has one column per feature (numeric, NaN where missing) or a single
sequence column, and the class label, as a string, in the last column ``class``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.datasets.registry import CLASS_COLUMN

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
    classes, sequences = [], []
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
    if not sequences:
        raise ValueError("splice.data holds no sequence.")
    return pd.DataFrame({"sequence": sequences, CLASS_COLUMN: classes})


def _parse_numeric_lines(text: str, n_columns: int, source: str) -> np.ndarray:
    rows = []
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
        except ValueError as exc:
            raise ValueError(f"{source} line {line_number}: {exc}.") from None
    if not rows:
        raise ValueError(f"{source} holds no data row.")
    return np.array(rows)


def parse_uci_cleveland(text: str) -> pd.DataFrame:
    """Parse UCI ``processed.cleveland.data``: 13 measurements then the diagnosis 0-4.

    ``?`` marks a missing value. The class is 1 when the diagnosis is above 0 (any vessel
    narrowing) and 0 otherwise, as in the shipped copy.
    """
    values = _parse_numeric_lines(text, len(CLEVELAND_COLUMNS) + 1, "processed.cleveland.data")
    diagnosis = values[:, -1]
    if np.isnan(diagnosis).any():
        raise ValueError("processed.cleveland.data has a missing diagnosis (last column).")
    frame = pd.DataFrame(values[:, :-1], columns=CLEVELAND_COLUMNS)
    frame[CLASS_COLUMN] = np.where(diagnosis > 0, "1", "0")
    return frame


def parse_uci_wine(text: str) -> pd.DataFrame:
    """Parse UCI ``wine.data``: the class (1-3) first, then 13 measurements."""
    values = _parse_numeric_lines(text, len(WINE_COLUMNS) + 1, "wine.data")
    if np.isnan(values).any():
        raise ValueError("wine.data has missing values; the canonical file has none.")
    frame = pd.DataFrame(values[:, 1:], columns=WINE_COLUMNS)
    frame[CLASS_COLUMN] = [str(int(label)) for label in values[:, 0]]
    return frame


PARSERS = {
    "uci_splice": parse_uci_splice,
    "uci_cleveland": parse_uci_cleveland,
    "uci_wine": parse_uci_wine,
}


def parse_uci(text: str, format: str) -> pd.DataFrame:
    """Parse a canonical UCI file in the named ``format`` (a key of :data:`PARSERS`)."""
    try:
        parser = PARSERS[format]
    except KeyError:
        raise ValueError(f"Unknown format {format!r}; expected one of {sorted(PARSERS)}.") from None
    return parser(text)


def read_normalised_csv(source, sequence_column: str | None = None) -> pd.DataFrame:
    """Read a normalised raw CSV (the shipped copies and the fetch stage's output).

    Every column but ``class`` (and the sequence column, if any) is read as float64.
    """
    frame = pd.read_csv(source, dtype={CLASS_COLUMN: str}, keep_default_na=False, na_values=[""])
    if CLASS_COLUMN not in frame.columns:
        raise ValueError(f"The table has no {CLASS_COLUMN!r} column (columns: {list(frame.columns)}).")
    if sequence_column is not None:
        frame[sequence_column] = frame[sequence_column].astype(str)
    return frame


def parse_user_csv(
    text: str,
    class_column: str,
    missing_values: Sequence[str] = (),
    drop_columns: Sequence[str] = (),
    source: str = "CSV",
) -> pd.DataFrame:
    """Read a user's CSV into the normalised raw table.

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
        Name used in error messages (the config key or path).

    Raises
    ------
    ValueError
        If a named column is absent, a feature is not numeric, or a class label is missing.
    """
    frame = pd.read_csv(
        io.StringIO(text), dtype=str, keep_default_na=False,
        na_values=[""] + list(missing_values),
    )
    columns = list(frame.columns)
    for name, role in [(class_column, "class_column")] + [(c, "drop_columns") for c in drop_columns]:
        if name not in columns:
            raise ValueError(f"{source}: {role} names {name!r}, which is not a column of {columns}.")
    labels = frame[class_column]
    if labels.isna().any():
        rows = np.flatnonzero(labels.isna().to_numpy())[:5].tolist()
        raise ValueError(f"{source}: the class column {class_column!r} is empty in rows {rows}.")
    features = frame.drop(columns=[class_column, *drop_columns])
    if features.shape[1] == 0:
        raise ValueError(f"{source}: no feature column is left besides {class_column!r}.")
    numeric = features.apply(pd.to_numeric, errors="coerce")
    bad = [c for c in features.columns if (numeric[c].isna() & features[c].notna()).any()]
    if bad:
        examples = {c: features[c][numeric[c].isna() & features[c].notna()].iloc[0] for c in bad[:3]}
        raise ValueError(
            f"{source}: columns {bad} are not numeric (e.g. {examples}); list them in "
            "drop_columns, or add the marker to missing_values."
        )
    if CLASS_COLUMN in numeric.columns:
        raise ValueError(f"{source}: a feature column is named {CLASS_COLUMN!r}; rename it.")
    numeric = numeric.astype(np.float64)
    numeric[CLASS_COLUMN] = labels.str.strip().to_numpy()
    return numeric
