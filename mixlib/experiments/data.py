"""The data stages: fetch, prepare, split, summary, and assembling arrays for experiments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mixlib.datasets import (
    CLASS_COLUMN, categorical_columns, dataset_encoding, load_source, prepare_table,
    sequence_column,
)
from mixlib.datasets.checks import default_lines, read_role_column
from mixlib.datasets.registry import ROLE_PREFIX
from mixlib.core.preprocessing import standardise
from mixlib.experiments.contract import RepeatData, RoleData
from mixlib.model_selection.fixed_splits import fixed_split_table, roles_from_rows, split_kind
from mixlib.model_selection.splits import ROLES, TRAINING_ROLES, UNUSED, split_table

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


def assemble(prepared: pd.DataFrame, split: pd.DataFrame, repeat: int, *,
             substitutes: pd.DataFrame | None = None,
             standardise_features: bool = True) -> RepeatData:
    """Arrays of each role for one repeat of a split: what every experiment rule starts from.

    Parameters
    ----------
    prepared : pandas.DataFrame
        The prepared table (``row_id``, features, ``class``).
    split : pandas.DataFrame
        The split table (``repeat``, ``row_id``, ``role``).
    repeat : int
    substitutes : pandas.DataFrame, optional
        Imputed values (``repeat``, ``row_id``, ``feature``, ``value``) that replace missing
        cells of this repeat before standardisation.
    standardise_features : bool
        Standardise with the mean and deviation of the training roles
        (:data:`mixlib.model_selection.splits.TRAINING_ROLES`) of this repeat.

    Returns
    -------
    RepeatData
        Repeat ``repeat``: role -> :class:`~mixlib.experiments.contract.RoleData` ``(X, y)``,
        rows in ``row_id`` order; ``unused`` rows are left out.
    """
    roles = split.loc[split["repeat"] == repeat].set_index("row_id")["role"]
    if roles.empty:
        raise ValueError(f"The split has no repeat {repeat}.")
    these = None if substitutes is None else substitutes.loc[substitutes["repeat"] == repeat]
    return _DataRows(prepared).repeat_data(int(repeat), roles, these, standardise_features)


class SplitRepeats(Sequence[RepeatData]):
    """The repeats of a split, in order, each :func:`assemble`-d when it is first read.

    A job reads the same repeats again and again (one stage per setting) and a stage may stop
    before the last (:func:`~mixlib.experiments.contract.run_repeats` runs on until enough
    repeats count): the data table is indexed and made an array once, and a repeat's arrays
    are made the first time it is read, then kept. ``self[i]`` is ``assemble(prepared, split,
    r_i, substitutes=substitutes, standardise_features=standardise_features)``, array for
    array, ``r_i`` the split's ``i``-th repeat number in increasing order.

    Parameters
    ----------
    prepared, split, substitutes, standardise_features
        As in :func:`assemble`.
    limit : int, optional
        Only the first ``limit`` repeats.
    """

    def __init__(self, prepared: pd.DataFrame, split: pd.DataFrame, *,
                 substitutes: pd.DataFrame | None = None, standardise_features: bool = True,
                 limit: int | None = None) -> None:
        self._rows = _DataRows(prepared)
        self._roles = {int(repeat): rows.set_index("row_id")["role"]
                       for repeat, rows in split.groupby("repeat", sort=True)}
        self._substitutes = ({} if substitutes is None else
                             {int(repeat): rows for repeat, rows in substitutes.groupby("repeat")})
        self._repeats = sorted(self._roles)[:limit]
        self._standardise = standardise_features
        self._made: dict[int, RepeatData] = {}

    def __len__(self) -> int:
        return len(self._repeats)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        repeat = self._repeats[index]
        if repeat not in self._made:
            self._made[repeat] = self._rows.repeat_data(
                repeat, self._roles[repeat], self._substitutes.get(repeat), self._standardise)
        return self._made[repeat]


class _DataRows:
    """A prepared table as arrays, indexed by ``row_id``, from which repeats take their rows."""

    def __init__(self, prepared: pd.DataFrame) -> None:
        table = prepared.set_index("row_id")
        features = table.drop(columns=[CLASS_COLUMN])
        self.index, self.columns = table.index, features.columns
        self.X = features.to_numpy(dtype=np.float64)
        self.labels = table[CLASS_COLUMN].to_numpy()

    def repeat_data(self, repeat: int, roles: pd.Series, these: pd.DataFrame | None,
                    standardise_features: bool) -> RepeatData:
        """The arrays of one repeat: ``roles`` (role by ``row_id``, in the split's order), its
        substitutes ``these`` (or None), standardised or not (see :func:`assemble`)."""
        positions = self.index.get_indexer(roles.index)
        if (positions < 0).any():
            missing_ids = roles.index.difference(self.index)
            raise ValueError(f"The split names rows absent from the data: {missing_ids[:5].tolist()}.")
        X = self.X[positions]
        if these is not None and len(these):
            rows = roles.index.get_indexer(these["row_id"])
            cols = self.columns.get_indexer(these["feature"])
            if (rows < 0).any() or (cols < 0).any():
                raise ValueError("The substitutes name rows or features absent from the data.")
            X[rows, cols] = these["value"].to_numpy(dtype=np.float64)
        role_values = roles.to_numpy()
        if standardise_features:
            X, _, _ = standardise(X, np.isin(role_values, TRAINING_ROLES), list(self.columns))
        y = self.labels[positions].astype(str)
        return RepeatData(int(repeat), {
            role: RoleData(X[role_values == role], y[role_values == role])
            for role in pd.unique(role_values) if role != "unused"
        })
