"""Splits fixed by the data: roles read from a column of the data set, or from row ranges.

A split of the config has one of three forms (its *kind*):

- ``roles`` (kind ``random``): rows per role, dealt by a seeded shuffle, one per repeat
  (:func:`mixlib.model_selection.splits.split_table`);
- ``role_column`` (kind ``role_column``): every row's role is the text of that column of the
  data set (``train``, ``test``, ...); an empty cell means ``unused``;
- ``rows`` (kind ``rows``): roles by ranges of rows in file order, ``{train: "0:2000",
  test: "2000:"}``, Python slice syntax (0-based, end exclusive); rows no range covers are
  ``unused``.

A fixed split (the last two kinds) has a single repeat, numbered 0, whatever the config's
``repeats``: there is nothing to redraw.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from mixlib.model_selection.splits import ROLES, UNUSED

SPLIT_KINDS = {"roles": "random", "role_column": "role_column", "rows": "rows"}
"""The key that defines a split -> the split's kind, as the tables name it."""

_RANGE = re.compile(r"^\s*(-?\d+)?\s*:\s*(-?\d+)?\s*$")


def split_kind(spec: Mapping[str, Any], where: str = "splits") -> str:
    """The kind of a split's config entry: ``random``, ``role_column`` or ``rows``.

    Raises
    ------
    ValueError
        If the entry has none or more than one of ``roles``, ``role_column`` and ``rows``, or
        sets ``stratify: true`` on a fixed split (``where`` is the entry's config key).
    """
    given = [key for key in SPLIT_KINDS if key in spec]
    if len(given) != 1:
        found = f"it has {' and '.join(given)}" if given else "it has none"
        raise ValueError(
            f"{where}: a split takes exactly one of roles (a seeded random split), role_column "
            f"(roles read from a column of the data set) or rows (roles by row ranges); {found}."
        )
    kind = SPLIT_KINDS[given[0]]
    if kind != "random" and spec.get("stratify") is True:
        raise ValueError(
            f"{where}.stratify: only a random split (roles) is stratified; a split fixed by "
            f"{given[0]} takes its roles from the data. Remove stratify."
        )
    return kind


def split_repeats(spec: Mapping[str, Any], repeats: int) -> int:
    """Repeats of a split: the config's ``repeats`` for a random split, 1 for a fixed one."""
    return repeats if split_kind(spec) == "random" else 1


def dataset_role_columns(splits: Mapping[str, Mapping[str, Any]], dataset: str) -> dict[str, str]:
    """The role columns the splits of ``dataset`` read, column -> the config key naming it.

    When several splits read one column, the key is that of the first split in name order.
    """
    columns: dict[str, str] = {}
    for name in sorted(splits):
        spec = splits[name]
        if spec.get("dataset") == dataset and "role_column" in spec:
            columns.setdefault(spec["role_column"], f"splits.{name}.role_column")
    return columns


def parse_row_range(text: Any, where: str) -> tuple[int | None, int | None]:
    """The ``(start, stop)`` of a range of rows written ``"start:stop"`` (either may be left out).

    Raises
    ------
    ValueError
        If ``text`` is not of the form ``start:stop`` with integer ends (``where`` is the key).
    """
    match = _RANGE.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(
            f"{where}: {text!r} is not a range of rows; write start:stop as in Python, 0-based "
            "with stop excluded, e.g. \"0:2000\" (rows 0 to 1999), \"2000:\" (row 2000 to the "
            "end) or \"-100:\" (the last 100 rows)."
        )
    start, stop = (None if part is None else int(part) for part in match.groups())
    return start, stop


def resolve_row_range(text: str, n_rows: int, where: str) -> range:
    """The rows of a range ``"start:stop"`` of a data set of ``n_rows`` rows.

    Negative ends count from the end, as in Python; unlike a Python slice, an end beyond the
    data set or an empty range is an error rather than silently clipped.

    Raises
    ------
    ValueError
        On a bad range string, an end beyond the rows of the data set, or an empty range.
    """
    start, stop = parse_row_range(text, where)
    for end in (start, stop):
        if end is not None and not -n_rows <= end <= n_rows:
            raise ValueError(
                f"{where}: range {text!r} reaches row {end}, beyond the data set's {n_rows} rows "
                f"(rows 0 to {n_rows - 1})."
            )
    first = 0 if start is None else start % n_rows if start < 0 else start
    last = n_rows if stop is None else stop % n_rows if stop < 0 else stop
    if last <= first:
        raise ValueError(f"{where}: range {text!r} holds no row (it runs from row {first} to "
                         f"before row {last}).")
    return range(first, last)


def check_row_ranges(ranges: Mapping[str, str], where: str) -> None:
    """Check the syntax and the role names of a ``rows`` entry without the data.

    Raises
    ------
    ValueError
        On an unknown role or a bad range string (naming ``where.<role>``).
    """
    unknown = [role for role in ranges if role not in ROLES]
    if unknown:
        raise ValueError(f"{where}: unknown role(s) {unknown}; expected roles among {list(ROLES)}.")
    for role, text in ranges.items():
        parse_row_range(text, f"{where}.{role}")


def roles_from_rows(ranges: Mapping[str, str], n_rows: int, where: str) -> np.ndarray:
    """The role of every row from ranges of rows (``role -> "start:stop"``).

    Returns
    -------
    ndarray of shape (n_rows,), dtype object
        Each range's rows take its role; rows no range covers are ``unused``.

    Raises
    ------
    ValueError
        On an unknown role, a bad range, or two ranges that share rows (naming both roles and
        the first shared row).
    """
    check_row_ranges(ranges, where)
    roles = np.full(n_rows, UNUSED, dtype=object)
    for role, text in ranges.items():
        rows = resolve_row_range(text, n_rows, f"{where}.{role}")
        taken = roles[rows.start:rows.stop] != UNUSED
        if taken.any():
            row = rows.start + int(np.flatnonzero(taken)[0])
            raise ValueError(
                f"{where}: the ranges of {' and '.join(sorted([roles[row], role]))} overlap (row "
                f"{row} is in both); "
                "a row has one role."
            )
        roles[rows.start:rows.stop] = role
    return roles


def fixed_split_table(roles: np.ndarray, row_ids: np.ndarray) -> pd.DataFrame:
    """The split table of a fixed split: one repeat, numbered 0.

    Returns
    -------
    pandas.DataFrame
        Columns ``repeat`` (all 0), ``row_id``, ``role``, as
        :func:`mixlib.model_selection.splits.split_table` writes them.
    """
    roles = np.asarray(roles, dtype=object)
    if len(roles) != len(row_ids):
        raise ValueError(f"{len(roles)} roles for {len(row_ids)} rows.")
    return pd.DataFrame({"repeat": 0, "row_id": np.asarray(row_ids), "role": roles})
