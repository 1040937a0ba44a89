"""The ``impute`` stage: substitutes for the missing cells of every repeat of a split."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator
from mixlib.datasets import CLASS_COLUMN
from mixlib.catalogue.registry import make_imputer
from mixlib.catalogue.settings import EMSettings
from mixlib.model_selection.splits import TRAINING_ROLES

log = logging.getLogger(__name__)

LABELLED_ROLES = ("train", "labelled")
"""Training roles whose class the imputer may use; ``unlabelled`` rows count as unknown."""


def impute_split(prepared: pd.DataFrame, split: pd.DataFrame, *, impute: Mapping[str, Any],
                 em: EMSettings | None, seed: int, split_name: str) -> pd.DataFrame:
    """Fit an imputer on each repeat's training rows and fill every missing cell of the split.

    For repeat ``r`` the imputer of ``impute`` (the config's ``impute`` section: its
    ``method``, ``kernel_mode``, the report's ch. 4 imputer with ``kernels_per_feature``
    kernels per univariate mixture, fitted with the EM settings ``em`` (the config's ``em``
    section; needed only by ``kernel_mode``), ``class_mean`` or ``mean``;
    :func:`mixlib.catalogue.registry.make_imputer`) is fit on the rows of the training roles
    (:data:`mixlib.model_selection.splits.TRAINING_ROLES`), with their class known for the
    ``train`` and ``labelled`` roles and unknown for ``unlabelled`` rows. Rows are then
    filled with their class's substitute if they are labelled training rows, and with the
    class-free substitute otherwise (unlabelled, validation and test rows), so no test label
    is used. Its generator is ``generator(seed, "impute", split_name, r)``.

    Returns
    -------
    pandas.DataFrame
        One row per filled cell: ``repeat``, ``row_id``, ``feature``, ``value`` (raw units).
        Empty (with these columns) when the data set has no missing cell.
    """
    table = prepared.set_index("row_id")
    features = table.columns.drop(CLASS_COLUMN)
    values = table[features].to_numpy(dtype=np.float64)
    labels = table[CLASS_COLUMN].to_numpy(dtype=object)
    records = []
    if not np.isnan(values).any():
        return pd.DataFrame(columns=["repeat", "row_id", "feature", "value"])
    for repeat, roles in split.groupby("repeat", sort=True):
        role = roles.set_index("row_id")["role"].reindex(table.index).to_numpy()
        training = np.isin(role, TRAINING_ROLES)
        known = np.where(np.isin(role, LABELLED_ROLES), labels, None)
        imputer = make_imputer(impute["method"], em=em,
                               kernels_per_feature=impute.get("kernels_per_feature"),
                               random_state=generator(seed, "impute", split_name, int(repeat)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            imputer.fit(values[training], known[training])
        for message in sorted({str(w.message) for w in caught}):
            log.info("repeat %d: %s", repeat, message)
        used = role != "unused"
        filled = imputer.transform(values[used], known[used])
        rows, cols = np.nonzero(np.isnan(values[used]))
        records.append(pd.DataFrame({
            "repeat": int(repeat),
            "row_id": table.index.to_numpy()[used][rows],
            "feature": features.to_numpy()[cols],
            "value": filled[rows, cols],
        }))
        log.info("repeat %d: filled %d cells", repeat, len(rows))
    return pd.concat(records, ignore_index=True)
