"""A user's CSV read into the normalised raw table, in time linear in its cells.

The cells are held as one text matrix and converted to numbers in one call; the table is then
built in a single step from its columns (never column by column, which costs time quadratic
in the number of columns and fragments the frame).

**What a message may quote.** A message quotes the names or cells of a file only once the file
is recognised as the user's CSV: its header holds the configured ``class_column``. Before that
(the class column is not found) the message lists the header's names only if they look like a
CSV header (at least two fields, each at most :data:`MAX_QUOTED_NAME` printable characters);
otherwise it says how many fields the first line holds and quotes nothing, so that a wrong
``path`` (``/etc/shadow``, a key file) never echoes the file's content.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mixlib.datasets.checks import (
    check_raw_table, check_role_column_names, describe_columns, describe_lines, read_role_column,
)
from mixlib.datasets.registry import CLASS_COLUMN, ROLE_PREFIX, ROW_ID_COLUMN

MAX_QUOTED_NAME = 40
"""Longest header field quoted in a message before the file is recognised as the user's CSV."""

_NAN_TEXTS = {"nan", "+nan", "-nan"}


def _csv_records(text: str, source: str) -> tuple[list[str], np.ndarray, list[int]]:
    """The header, the data records (a text matrix) and the file line each record starts on
    (blank lines skipped)."""
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
    if not records:
        raise ValueError(f"{source}: the file has a header but no data row.")
    cells = np.empty((len(records), len(header)), dtype=object)
    cells[:] = records
    return header, cells, lines


def looks_like_header(header: Sequence[str]) -> bool:
    """Whether a first line may be quoted as column names: at least two fields, each of 1 to
    :data:`MAX_QUOTED_NAME` printable characters."""
    return len(header) >= 2 and all(0 < len(name) <= MAX_QUOTED_NAME and name.isprintable()
                                    for name in header)


def _check_named_columns(header: list[str], named: list[tuple[str, str]], source: str) -> None:
    """Every column the config names is in the header; the message quotes the header only
    under the rule of this module's docstring."""
    recognised = named[0][0] in header  # the class column: the file is the user's CSV
    for name, role in named:
        if name in header:
            continue
        if recognised or looks_like_header(header):
            raise ValueError(f"{source}: {role} names {name!r}, which is not a column of "
                             f"{describe_columns(header)}.")
        raise ValueError(
            f"{source}: {role} names {name!r}, which is not a column: the file's first line, of "
            f"{len(header)} field{'s' if len(header) != 1 else ''}, does not look like a CSV "
            "header (it is not quoted here). Is the path that of your CSV, with a header row?")
    duplicated = sorted(name for name, count in Counter(header).items() if count > 1)
    if duplicated:
        raise ValueError(f"{source}: the header names columns {duplicated} more than once.")


def _first_bad_column(columns: list[str], cells: np.ndarray, values: np.ndarray,
                      missing: np.ndarray, lines: np.ndarray, source: str) -> None:
    """Stop at the first numeric column (in file order) holding a NaN text or a non-number."""
    nan_text = (pd.Series(cells.ravel()).str.lower().isin(_NAN_TEXTS).to_numpy()
                .reshape(cells.shape) & ~missing)
    bad = np.isnan(values) & ~missing & ~nan_text
    offending = np.flatnonzero((nan_text | bad).any(axis=0))
    if not len(offending):
        return
    j = offending[0]
    column = columns[j]
    if nan_text[:, j].any():
        raise ValueError(
            f"{source}: column {column!r} holds {cells[nan_text[:, j], j][0]!r} at "
            f"{describe_lines(lines[nan_text[:, j]])}; values must be finite numbers (list the "
            "marker in missing_values if it means a missing value)."
        )
    raise ValueError(
        f"{source}: column {column!r} is not numeric: {cells[bad[:, j], j][0]!r} at "
        f"{describe_lines(lines[bad[:, j]])}; list the column in categorical_columns if its "
        "values are categories, in drop_columns if it is no feature, add the marker to "
        "missing_values, or, if it holds each row's role (train, test, ...), name it "
        "in a split's role_column."
    )


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
    header, cells, lines = _csv_records(text, source)
    lines = np.asarray(lines)
    _check_named_columns(header, [(class_column, "class_column")]
                         + [(c, "drop_columns") for c in drop_columns]
                         + [(c, "categorical_columns") for c in categorical_columns], source)
    role_columns = dict(role_columns or {})
    check_role_column_names(header, role_columns, class_column, source)
    position = {name: j for j, name in enumerate(header)}
    markers = {""} | {marker.strip() for marker in missing_values}
    missing = pd.Series(cells.ravel()).isin(markers).to_numpy().reshape(cells.shape)
    labels = cells[:, position[class_column]]
    empty = missing[:, position[class_column]]
    if empty.any():
        raise ValueError(
            f"{source}: the class column {class_column!r} is empty (or a missing marker) at "
            f"{describe_lines(lines[empty])}; every row needs a class."
        )
    left_out = {class_column, *drop_columns, *role_columns}
    features = [name for name in header if name not in left_out]
    if not features:
        raise ValueError(f"{source}: no feature column is left besides {class_column!r}.")
    reserved = [name for name in features
                if name in (CLASS_COLUMN, ROW_ID_COLUMN) or name.startswith(ROLE_PREFIX)]
    if reserved:
        raise ValueError(
            f"{source}: a feature column is named {reserved[0]!r}, a name the pipeline uses "
            "for its own columns; rename it (or list it in drop_columns)."
        )
    numeric = [name for name in features if name not in set(categorical_columns)]
    where = [position[name] for name in numeric]
    text_block, missing_block = cells[:, where], missing[:, where]
    values = pd.to_numeric(pd.Series(np.where(missing_block, None, text_block).ravel()),
                           errors="coerce").to_numpy(np.float64).reshape(text_block.shape)
    _first_bad_column(numeric, text_block, values, missing_block, lines, source)
    value_of = {name: values[:, k] for k, name in enumerate(numeric)}
    # categorical cells stay Python objects with None where missing (not pandas' str dtype)
    columns = {name: value_of[name] if name in value_of
               else pd.Series(np.where(missing[:, position[name]], None, cells[:, position[name]]),
                              dtype=object)
               for name in features}
    for column, key in role_columns.items():
        role_cells = np.where(missing[:, position[column]], "", cells[:, position[column]])
        read_role_column(role_cells, lines, column=column, where=key, source=source)
        columns[ROLE_PREFIX + column] = role_cells
    columns[CLASS_COLUMN] = labels
    frame = pd.DataFrame(columns)
    check_raw_table(frame, source, lines, categorical_columns=categorical_columns)
    frame.attrs["lines"] = lines.tolist()
    return frame
