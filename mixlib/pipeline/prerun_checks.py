"""Pre-run checks of values that used to fail inside a job, each named by its config key.

They run after the schema and :func:`mixlib.pipeline.checks.check_config`, on the data sets
that one read (``tables``: a data set's raw table, or None for a ``url`` source not yet
fetched), before any job: every data set has two classes; every role of a random split gets a row; the comparison's folds have enough groups of
rows per class when ``group_duplicates`` keeps identical rows together; every
``comparison.params`` value passes the estimator's own validation; every stage gets the rows
per role and class its code needs (:mod:`mixlib.pipeline.role_minimums`). Once the rules are
defined, :func:`check_output_folders` checks that no output folder is a file.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from mixlib.datasets import CLASS_COLUMN
from mixlib.model_selection.fixed_splits import split_kind
from mixlib.model_selection.splits import role_sizes
from mixlib.pipeline.stage_params import probe_data, relabel
from mixlib.pipeline.role_minimums import check_cv_early_stopping, check_role_minimums

#: Model parameters bounded by the number of training rows of a fold.
TRAIN_ROW_BOUNDED = {("knn", "n_neighbors")}


def check_prerun(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Run every check of this module; the first failure raises ``ValueError``."""
    check_classes(config, tables)
    check_role_rows(config, tables)
    check_grouped_folds(config, tables)
    check_comparison_params(config, tables)
    check_role_minimums(config, tables)
    check_cv_early_stopping(config, tables)


def check_classes(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every data set that could be read has at least two classes."""
    for name, table in tables.items():
        if table is None:
            continue
        classes = pd.unique(table[CLASS_COLUMN].astype(str))
        if len(classes) < 2:
            column = config["datasets"][name].get("class_column", CLASS_COLUMN)
            raise ValueError(
                f"datasets.{name}: every row has the class {classes[0]!r} (column "
                f"{column!r}); a classifier needs at least two classes. Check class_column, or "
                f"leave {name!r} out of the config.")


def check_role_rows(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every role of a random split gets at least one row (every stage fits or scores on it)."""
    for split_name, split in config.get("splits", {}).items():
        table = tables.get(split["dataset"])
        if split_kind(split) != "random" or table is None:
            continue
        sizes = role_sizes(split["roles"], len(table), where=f"splits.{split_name}.roles")
        empty = [role for role, size in sizes.items() if size < 1]
        if empty:
            raise ValueError(
                f"splits.{split_name}.roles.{empty[0]}: the role {empty[0]!r} gets no row of "
                f"data set {split['dataset']!r} ({len(table)} rows, sizes {sizes}); every stage "
                f"that uses split {split_name!r} fits or scores on each role, so give it at "
                f"least 1 row, or remove the role.")


def check_grouped_folds(config: Mapping[str, Any],
                        tables: Mapping[str, pd.DataFrame | None]) -> None:
    """With ``comparison.group_duplicates``, each class has ``n_folds`` distinct rows.

    Identical rows (features and class) stay in one fold, so a class needs ``n_folds`` groups
    of identical rows, not ``n_folds`` rows, for every fold to test it.
    """
    comparison = config.get("comparison")
    if not comparison or not comparison.get("group_duplicates", True):
        return
    n_folds = comparison["n_folds"]
    for name in comparison.get("datasets", []):
        table = tables.get(name)
        if table is None:
            continue
        distinct = table.astype(str).drop_duplicates()
        groups = distinct[CLASS_COLUMN].value_counts()
        small = [f"{label!r} ({count})" for label, count in groups.items() if count < n_folds]
        if small:
            raise ValueError(
                f"comparison.n_folds: {n_folds} folds need at least {n_folds} distinct rows of "
                f"every class, because comparison.group_duplicates keeps identical rows in one "
                f"fold; data set {name!r} has fewer of class {', '.join(small)}. Lower "
                f"comparison.n_folds, set comparison.group_duplicates: false, or leave {name!r} "
                f"out of the comparison.")


def _training_rows(config: Mapping[str, Any], tables: Mapping[str, pd.DataFrame | None],
                   max_train_rows: int | None) -> list[tuple[str, int]]:
    """(where, rows) of the smallest training set of each comparison data set."""
    comparison = config["comparison"]
    n_folds = comparison["n_folds"]
    rows = []
    for name in comparison.get("datasets", []):
        table = tables.get(name)
        if table is not None:
            smallest = len(table) - -(-len(table) // n_folds)  # the rows left by the largest fold
            if max_train_rows is not None:
                smallest = min(smallest, max_train_rows)
            rows.append((f"data set {name!r} ({n_folds} folds)", smallest))
    return rows


def check_comparison_params(config: Mapping[str, Any],
                            tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every ``comparison.params`` override passes the estimator's own validation.

    The model of each override is built with it and fitted on a small well separated data set
    (:func:`mixlib.pipeline.stage_params.probe_data`): an invalid value (of the wrong type, out of range, not among the
    choices) fails there as it would in every job. Values bounded by the training rows
    (:data:`TRAIN_ROW_BOUNDED`) are checked against each comparison data set's folds.
    """
    from mixlib.experiments.comparison import split_protocol_params
    from mixlib.catalogue.registry import make_model
    from mixlib.catalogue.settings import EMSettings

    comparison = config.get("comparison")
    if not comparison:
        return
    X, y = probe_data()["train"]
    for model, overrides in comparison.get("params", {}).items():
        if model not in comparison.get("models", []) or not overrides:
            continue
        where = f"comparison.params.{model}"
        try:
            params, max_train_rows = split_protocol_params(overrides)
        except ValueError as exc:
            raise ValueError(f"{where}.max_train_rows: {exc}") from None
        for key, value in params.items():
            if (model, key) not in TRAIN_ROW_BOUNDED or not isinstance(value, int):
                continue
            for dataset, rows in _training_rows(config, tables, max_train_rows):
                if value > rows:
                    raise ValueError(
                        f"{where}.{key}: {value} is more than the {rows} training rows of "
                        f"{dataset}; use at most {rows}.")
        # a bound by the training rows is checked above, against the real data sets
        probe = {key: (min(value, len(X) // 2) if (model, key) in TRAIN_ROW_BOUNDED
                       and isinstance(value, int) else value) for key, value in params.items()}
        try:
            with warnings.catch_warnings():  # a short fit's convergence is not the question
                warnings.simplefilter("ignore")
                estimator = make_model(model, probe, 0, X=X,
                                       em=EMSettings.from_mapping(config["em"]))
                estimator.fit(X, y)
        except (ValueError, TypeError) as exc:
            raise relabel(where, exc, {key: key for key in params}) from None


def check_output_folders(rules: Iterable[Any], base_dir: str | Path = ".") -> None:
    """Every folder the rules write into is a folder (or absent), not a file.

    Parameters
    ----------
    rules : iterable of snakemake.rules.Rule
        The workflow's rules; the folders are those of their output paths up to the first
        wildcard (e.g. ``results/tables`` for ``results/tables/{table}.tsv``).
    """
    folders: set[PurePosixPath] = set()
    for rule in rules:
        for output in rule.output:
            static = str(output).split("{", 1)[0]
            # "results/tables/" (a wildcard starts the name) is a folder; "a/b.tsv" is not
            folder = PurePosixPath(static) if static.endswith("/") else PurePosixPath(static).parent
            folders.update(path for path in (folder, *folder.parents) if str(path) != ".")
    for folder in sorted(folders, key=lambda path: len(path.parts)):
        path = Path(base_dir) / folder
        if path.exists() and not path.is_dir():
            raise ValueError(
                f"{folder} is a file, not a folder: the study writes its outputs into "
                f"{folder}/. Move or rename the file, then run again.")
