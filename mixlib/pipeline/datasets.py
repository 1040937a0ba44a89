"""The configured data sets as the pre-run checks see them: read once, before any job.

A shipped copy or a user's CSV can be read (and checked) while the config is checked; a
``url`` source is known only once the ``fetch`` job has downloaded it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from mixlib.datasets import CLASS_COLUMN, load_source
from mixlib.datasets.sources import url_source
from mixlib.model_selection.fixed_splits import dataset_role_columns


def dataset_source(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Data set ``name``'s config entry, plus the role columns its splits read, if any.

    ``role_columns`` maps each column a split's ``role_column`` names to that config key
    (:func:`mixlib.model_selection.fixed_splits.dataset_role_columns`): what
    :func:`mixlib.datasets.load_source` needs to keep the columns out of the features.
    """
    spec = dict(config["datasets"][name])
    wanted = dataset_role_columns(config.get("splits", {}), name)
    if wanted:
        spec["role_columns"] = wanted
    return spec


def load_dataset_table(name: str, spec: Mapping[str, Any],
                       base_dir: str | Path = ".") -> pd.DataFrame | None:
    """A configured data set's checked raw table, or ``None`` when only a download would tell.

    Shipped copies are read from the package, a user's CSV is read and checked by
    :func:`mixlib.datasets.load_source` (so its value errors name column, class and file line);
    a ``url`` source is left to the ``fetch`` job, which runs the same checks (its ``url``,
    ``sha256`` and ``format``, given or known for the name, are checked here, before any job).
    """
    source = spec["source"]  # the schema's default filled in
    if source == "url":
        url_source(name, dict(spec))
        return None
    if source == "csv":
        path = Path(base_dir) / spec["path"]
        if not path.is_file():
            raise ValueError(f"datasets.{name}.path: no file at {path}.")
    return load_source(name, dict(spec), base_dir)


@cache
def _has_missing_values(name: str, spec_items: tuple, base_dir: str) -> bool:
    table = load_dataset_table(name, dict(spec_items), base_dir)
    if table is None:  # a url source: only its download tells; assume it may
        return True
    return bool(table.drop(columns=[CLASS_COLUMN]).isna().to_numpy().any())


def dataset_has_missing_values(name: str, spec: Mapping[str, Any],
                               base_dir: str | Path = ".") -> bool:
    """Whether data set ``name`` has a missing cell (True for a not yet downloaded ``url`` source).

    Reads the shipped copy or the user's CSV once per process (cached), as the config checks do.
    """
    items = tuple(sorted(
        (key, tuple(sorted(value.items())) if isinstance(value, Mapping)
         else tuple(value) if isinstance(value, list) else value)
        for key, value in spec.items()))
    return _has_missing_values(name, items, str(base_dir))
