"""A repeat's arrays for the experiments: :func:`assemble` and :class:`SplitRepeats`, from a
prepared table, its split and the imputed substitutes (the data stages that make those are in
:mod:`mixlib.experiments.preparation`). Every experiment job imports this module: it keeps to
numpy, pandas and the few modules it needs (not the data set sources and parsers)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.core.preprocessing import standardise
from mixlib.core.vocabulary import CLASS_COLUMN
from mixlib.experiments.contract import RepeatData, RoleData
from mixlib.model_selection.splits import TRAINING_ROLES


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
