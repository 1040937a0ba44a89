"""The data stages before any experiment: fetch, prepare and split a data set, and their
summaries (the ``fetch``, ``prepare``, ``split``, ``data_summary`` and ``splits_summary``
rules). The experiments read their arrays through :mod:`mixlib.experiments.data`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from mixlib.datasets import (
    CLASS_COLUMN, categorical_columns, dataset_encoding, load_source, prepare_table,
    sequence_column,
)
from mixlib.datasets.checks import default_lines, read_role_column
from mixlib.datasets.registry import ROLE_PREFIX
from mixlib.model_selection.fixed_splits import fixed_split_table, roles_from_rows, split_kind
from mixlib.model_selection.splits import ROLES, UNUSED, split_table

SUMMARY_ROLES = (*ROLES, UNUSED)
"""The roles of the splits summary, in the order its rows list them."""


def fetch_dataset(name: str, spec: Mapping[str, Any], base_dir: str | Path = ".") -> pd.DataFrame:
    """The ``fetch`` rule: the data set's normalised raw table from its configured source."""
    return load_source(name, dict(spec), base_dir)


def prepare_dataset(raw: pd.DataFrame, name: str, spec: Mapping[str, Any]) -> pd.DataFrame:
    """The ``prepare`` rule: ``row_id``, numeric features (sequences and categorical features
    encoded with ``encoding``, default one-hot), ``class``."""
    spec = dict(spec)
    return prepare_table(raw, sequence_column(name, spec), dataset_encoding(spec),
                         categorical_columns(name, spec))


def make_split(prepared: pd.DataFrame, split_name: str, split_spec: Mapping[str, Any],
               seed: int, repeats: int, raw: pd.DataFrame | None = None) -> pd.DataFrame:
    """The ``split`` rule: the split table (``repeat``, ``row_id``, ``role``) of a split.

    A random split (``roles``) has ``repeats`` seeded repeats
    (:func:`mixlib.model_selection.splits.split_table`). A fixed split has one repeat, 0:
    ``role_column`` reads each row's role from that column of ``raw`` (the fetched table, which
    carries it as ``role:<column>``; an empty cell is ``unused``), ``rows`` from ranges of rows
    in file order (:func:`mixlib.model_selection.fixed_splits.roles_from_rows`).

    Raises
    ------
    ValueError
        Naming the split's key, if the role column is absent from ``raw`` or holds a cell
        that is not a role, or if a range is bad, overlaps another or goes beyond the rows.
    """
    where = f"splits.{split_name}"
    kind = split_kind(split_spec, where)
    row_ids = prepared["row_id"].to_numpy()
    if kind == "rows":
        return fixed_split_table(roles_from_rows(split_spec["rows"], len(prepared), f"{where}.rows"),
                                 row_ids)
    if kind == "role_column":
        column = split_spec["role_column"]
        source = f"datasets.{split_spec['dataset']}"
        if raw is None or ROLE_PREFIX + column not in raw.columns:
            raise ValueError(f"{where}.role_column: {source} has no column {column!r}; a role "
                             "column must be a column of the data set's file.")
        if len(raw) != len(prepared):
            raise ValueError(f"{where}: the fetched table has {len(raw)} rows, the prepared "
                             f"table {len(prepared)}; rerun fetch and prepare.")
        cells = raw[ROLE_PREFIX + column].to_numpy(dtype=str)
        roles = read_role_column(cells, default_lines(len(raw)), column=column,
                                 where=f"{where}.role_column", source=source)
        return fixed_split_table(roles, row_ids)
    return split_table(
        prepared[CLASS_COLUMN].to_numpy(dtype=str), row_ids,
        split_spec["roles"], seed=seed, split_name=split_name, repeats=repeats,
        stratify=bool(split_spec.get("stratify", False)),
    )


def summarise_splits(tables: Mapping[str, pd.DataFrame],
                     specs: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """The ``splits_summary`` rule: each split's kind, repeats and rows per role.

    Parameters
    ----------
    tables : mapping split name -> split table (``repeat``, ``row_id``, ``role``)
    specs : mapping split name -> the split's config entry

    Returns
    -------
    pandas.DataFrame
        One row per (split, role): ``split``, ``dataset``, ``kind`` (``random``,
        ``role_column`` or ``rows``), ``repeats`` (the repeats the split table holds: 1 for a
        fixed split), ``role`` and ``rows`` (rows of that role in repeat 0; a random split
        gives every repeat the same counts). Splits in name order, roles in the order of
        :data:`SUMMARY_ROLES`.
    """
    records = []
    for name in sorted(tables):
        table, spec = tables[name], specs[name]
        counts = table.loc[table["repeat"] == 0, "role"].value_counts()
        for role in SUMMARY_ROLES:
            if role in counts:
                records.append((name, spec["dataset"], split_kind(spec, f"splits.{name}"),
                                int(table["repeat"].nunique()), role, int(counts[role])))
    return pd.DataFrame(records, columns=["split", "dataset", "kind", "repeats", "role", "rows"])


def summarise_datasets(prepared: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The ``data_summary`` rule: rows, duplicates, features, class counts, missing cells.

    A row is a duplicate when an earlier row has the same features and class (missing cells
    compare equal). Duplicates can sit in both the training and the test rows of a split and
    flatter its test error, so the summary counts them.

    Returns
    -------
    pandas.DataFrame
        Tidy: columns ``dataset``, ``quantity`` (``rows``, ``duplicated_rows``, ``features``,
        ``class_count``, ``missing_cells``), ``item`` (class label or feature name; ``all``
        for totals), ``value``.
    """
    records = []
    for name, table in prepared.items():
        features = table.drop(columns=["row_id", CLASS_COLUMN])
        records.append((name, "rows", "all", len(table)))
        duplicated = int(table.drop(columns=["row_id"]).duplicated().sum())
        records.append((name, "duplicated_rows", "all", duplicated))
        records.append((name, "features", "all", features.shape[1]))
        counts = table[CLASS_COLUMN].value_counts().sort_index()
        records.extend((name, "class_count", label, int(n)) for label, n in counts.items())
        missing = features.isna().sum()
        records.extend((name, "missing_cells", column, int(n)) for column, n in missing.items())
    return pd.DataFrame(records, columns=["dataset", "quantity", "item", "value"])
