"""Checks of a data set's values, run when it is read, with messages in the file's own terms.

Every source (shipped copy, downloaded UCI file, user CSV) ends up as a normalised raw table;
:func:`check_raw_table` stops a table the study cannot use, naming the data set, the column
or class as the file names it, and the file line an editor shows (the header is line 1). The
pre-run config check and the ``fetch`` job call it on the same table, so a problem is reported
with the same words whether it is found before any job or by the first job that can see it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mixlib.datasets.registry import CLASS_COLUMN, prefixed_role_columns
from mixlib.model_selection.splits import ROLES, UNUSED

MAX_MAGNITUDE = 1e150
"""Largest absolute feature value accepted. Variances and squared distances square the
features; beyond about 1e154 a square overflows to infinity, so 1e150 leaves room for sums."""

MIN_CLASS_SIZE = 2
"""Fewest examples a class may have: with one, no split can both train and test on it, and
early stopping or cross-validation cannot hold one out."""

ROLE_VALUES = (*ROLES, UNUSED)
"""What a cell of a role column may hold (besides an empty cell, which means ``unused``)."""

_SHOWN = 5  # how many offending lines a message lists
SHOWN_COLUMNS = 10
"""How many column names a message lists (a wide file has thousands)."""


def describe_lines(lines: Sequence[int]) -> str:
    """``"line 7"`` or ``"lines 7, 9, 12 and 3 more"``."""
    lines = [int(line) for line in lines]
    shown = ", ".join(str(line) for line in lines[:_SHOWN])
    more = f" and {len(lines) - _SHOWN} more" if len(lines) > _SHOWN else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"


def describe_columns(columns: Sequence[str]) -> str:
    """``"['a', 'b']"``, or the first :data:`SHOWN_COLUMNS` names and how many more there are."""
    columns = [str(column) for column in columns]
    if len(columns) <= SHOWN_COLUMNS:
        return str(columns)
    return f"{columns[:SHOWN_COLUMNS]} and {len(columns) - SHOWN_COLUMNS:,} more columns"


def default_lines(n_rows: int) -> np.ndarray:
    """File lines of the rows of a CSV with a header line and no blank line: 2, 3, ..."""
    return np.arange(2, n_rows + 2)


def check_features(features: pd.DataFrame, lines: Sequence[int], source: str) -> None:
    """Every feature column has a value somewhere, and every value is finite and not huge.

    Parameters
    ----------
    features : pandas.DataFrame of float64, shape (n_rows, n_features)
        NaN marks a missing cell.
    lines : sequence of int, length n_rows
        File line of each row, as an editor numbers them.
    source : str
        The data set as the config names it (and its file), for messages.

    Raises
    ------
    ValueError
        Naming the column and the file lines of the first offending cells.
    """
    lines = np.asarray(lines)
    values = features.to_numpy(dtype=np.float64)
    for j, column in enumerate(features.columns):
        cells = values[:, j]
        if np.isnan(cells).all():
            raise ValueError(
                f"{source}: column {column!r} has no value in any row (every cell is empty or a "
                "missing marker); list it in drop_columns or fill it in."
            )
        infinite = np.flatnonzero(np.isinf(cells))
        if len(infinite):
            raise ValueError(
                f"{source}: column {column!r} holds {cells[infinite[0]]:g} at "
                f"{describe_lines(lines[infinite])}; values must be finite numbers (leave the cell "
                "empty, or list its marker in missing_values, if the value is missing)."
            )
        huge = np.flatnonzero(np.abs(cells) > MAX_MAGNITUDE)
        if len(huge):
            raise ValueError(
                f"{source}: column {column!r} holds {cells[huge[0]]:g} at "
                f"{describe_lines(lines[huge])}; values beyond +/-{MAX_MAGNITUDE:g} cannot be "
                "squared without overflow. Change the column's unit (or fix the value)."
            )


def check_classes(labels: pd.Series, lines: Sequence[int], source: str) -> None:
    """Every class has at least :data:`MIN_CLASS_SIZE` examples.

    Raises
    ------
    ValueError
        Naming each too-small class by its label and the file lines of its examples.
    """
    lines = np.asarray(lines)
    labels = np.asarray(labels, dtype=str)
    classes, counts = np.unique(labels, return_counts=True)
    small = [(label, n) for label, n in zip(classes, counts) if n < MIN_CLASS_SIZE]
    if small:
        described = "; ".join(
            f"class {str(label)!r} has {n} example{'s' if n > 1 else ''} "
            f"({describe_lines(lines[labels == label])})" for label, n in small
        )
        raise ValueError(
            f"{source}: {described}. Every class needs at least {MIN_CLASS_SIZE} examples to "
            "be both learned and tested; merge or remove the rare class."
        )


def check_raw_table(frame: pd.DataFrame, source: str, lines: Sequence[int] | None = None,
                    sequence_column: str | None = None,
                    categorical_columns: Sequence[str] = ()) -> None:
    """All value checks of a normalised raw table (features, or one sequence column, then ``class``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The normalised raw table.
    source : str
        The data set as the config names it, for messages.
    lines : sequence of int, optional
        File line of each row; default :func:`default_lines` (header on line 1, no blank line).
    sequence_column : str, optional
        For sequence data, the column of sequences (checked by the encoder, not here).
    categorical_columns : sequence of str
        Features holding categories as text: each must have a value in some row (their
        values are checked by the encoder, not here).

    Role columns (:data:`mixlib.datasets.registry.ROLE_PREFIX`) are not features: they are
    checked when read (:func:`read_role_column`), not here.
    """
    lines = default_lines(len(frame)) if lines is None else np.asarray(lines)
    if sequence_column is None:
        features = frame.drop(columns=[CLASS_COLUMN, *prefixed_role_columns(frame.columns),
                                       *categorical_columns])
        check_features(features, lines, source)
    for column in categorical_columns:
        if frame[column].isna().all():
            raise ValueError(
                f"{source}: column {column!r} has no value in any row (every cell is empty or a "
                "missing marker); list it in drop_columns or fill it in."
            )
    check_classes(frame[CLASS_COLUMN], lines, source)


def check_role_column_names(columns: Sequence[str], wanted: Mapping[str, str], class_column: str,
                            source: str) -> None:
    """Every role column a split names is a column of the data set, and not its class column.

    Parameters
    ----------
    columns : sequence of str
        The data set's columns, as its file names them.
    wanted : mapping column -> config key
        The role columns the splits read, each with the key that names it
        (``splits.<name>.role_column``).
    class_column : str
        The data set's class column, as its file names it.
    source : str
        The data set and its file, for messages.

    Raises
    ------
    ValueError
        Naming the config key, the column and the data set.
    """
    for column, where in wanted.items():
        if column == class_column:
            raise ValueError(
                f"{where}: {column!r} is the class column of {source}; the role column is "
                "another column, holding each row's role (train, test, ...)."
            )
        if column not in columns:
            raise ValueError(
                f"{where}: {source} has no column {column!r} (its columns: {describe_columns(columns)}); "
                "a role column must be a column of the data set's file."
            )


def read_role_column(cells: Sequence[str], lines: Sequence[int], *, column: str, where: str,
                     source: str) -> np.ndarray:
    """The role of every row, read from the cells of a role column.

    Parameters
    ----------
    cells : sequence of str, length n_rows
        The column's cells, stripped; ``""`` is an empty cell (or a missing marker).
    lines : sequence of int, length n_rows
        File line of each row (the header is line 1), for messages.
    column : str
        The column's name in the user's file.
    where : str
        The config key that names the column (``splits.<name>.role_column``).
    source : str
        The data set and its file, for messages.

    Returns
    -------
    ndarray of shape (n_rows,), dtype object
        A role of :data:`ROLE_VALUES` per row; an empty cell gives ``unused``.

    Raises
    ------
    ValueError
        On a cell that is not a role name: names the first such value, the column and the
        file lines that hold it.
    """
    cells = np.asarray(cells, dtype=object)
    lines = np.asarray(lines)
    roles = np.where(cells == "", UNUSED, cells).astype(object)
    unknown = ~np.isin(roles.astype(str), ROLE_VALUES)
    if unknown.any():
        first = roles[np.flatnonzero(unknown)[0]]
        raise ValueError(
            f"{where}: column {column!r} of {source} holds {str(first)!r} at "
            f"{describe_lines(lines[roles == first])}, which is not a role; a role cell holds one "
            f"of {', '.join(ROLE_VALUES)}, or nothing (the row is then unused)."
        )
    return roles


def check_classes_fill_folds(labels: np.ndarray, n_folds: int, dataset: str,
                     where: str = "comparison.n_folds") -> None:
    """Every class of ``dataset`` has at least ``n_folds`` examples, so each fold tests it.

    Raises
    ------
    ValueError
        Naming the config key ``where``, the data set and each class that is too small.
    """
    classes, counts = np.unique(np.asarray(labels, dtype=str), return_counts=True)
    small = [f"{str(label)!r} ({n})" for label, n in zip(classes, counts) if n < n_folds]
    if small:
        raise ValueError(
            f"{where}: {n_folds} folds need at least {n_folds} examples of every class, but "
            f"data set {dataset!r} has fewer of class {', '.join(small)}. Lower {where} or "
            f"leave {dataset!r} out of the comparison."
        )
