"""Checks of the study config that a JSON schema cannot express.

The schema (``workflow/schemas/config.schema.yaml``) checks keys and types; this module
checks that names refer to things that exist and that sizes fit the data, before any job runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from mixlib.datasets import (
    CLASS_COLUMN, bundled_dataset, categorical_columns, load_source, sequence_column,
)
from mixlib.datasets.sources import url_source
from mixlib.pipeline.config_text import UniqueKeyLoader, check_config_text
from mixlib.experiments.comparison import PROTOCOL_KEYS
from mixlib.experiments.registry import EM_KEYS, MODELS, RENAMED
from mixlib.datasets.registry import ROLE_PREFIX
from mixlib.model_selection.fixed_splits import (
    check_row_ranges, dataset_role_columns, roles_from_rows, split_kind,
)
from mixlib.model_selection.splits import UNUSED, role_sizes


STUDY_CONFIG = "config/config.yaml"
"""The study's own config: read only when no ``--configfile`` is given."""


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML config file; a syntax error names the file, line and column.

    Raises
    ------
    ValueError
        ``"<path>, line L, column C: <what the parser expected>"``, as an editor counts
        lines and columns (from 1), also for a key given twice; if the file does not hold a
        mapping of keys, or sets ``__use_yte__`` (:mod:`mixlib.pipeline.config_text`).
    """
    text = Path(path).read_text(encoding="utf-8")
    try:
        loaded = yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        began = exc.context_mark
        if began is not None and mark is not None and began.line != mark.line:
            what += f" (what it was parsing began at line {began.line + 1}, column {began.column + 1})"
        kind = "error" if isinstance(exc, yaml.constructor.ConstructorError) else "YAML syntax error"
        raise ValueError(f"{where}: {kind}: {what}.") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: YAML syntax error: {exc}.") from None
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping of config keys, got {type(loaded).__name__}.")
    check_config_text(path, loaded)
    return loaded


def describe_config_source(cli_configfiles: Sequence[str | Path]) -> str:
    """One line for the run log saying which config file(s) the run reads.

    A ``--configfile`` stands on its own: the study's config is then not read at all, so a
    key left out of the user's file takes the schema's default, never the study's value.
    """
    if not cli_configfiles:
        return f"Config: {STUDY_CONFIG} (and any --config values)."
    files = ", ".join(str(path) for path in cli_configfiles)
    return (f"Config: {files} only (and any --config values); {STUDY_CONFIG} is not read "
            "when --configfile is given.")


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


def check_split_forms(config: Mapping[str, Any]) -> None:
    """Every split has exactly one of ``roles``, ``role_column`` and ``rows``, and only a
    random split sets ``stratify`` (run before the schema, whose message would not name the
    split; :func:`mixlib.model_selection.fixed_splits.split_kind`)."""
    splits = config.get("splits")
    if isinstance(splits, Mapping):
        for name, spec in splits.items():
            if isinstance(spec, Mapping):
                split_kind(spec, f"splits.{name}")


def load_dataset_table(name: str, spec: Mapping[str, Any],
                       base_dir: str | Path = ".") -> pd.DataFrame | None:
    """A configured data set's checked raw table, or ``None`` when only a download would tell.

    Shipped copies are read from the package, a user's CSV is read and checked by
    :func:`mixlib.datasets.load_source` (so its value errors name column, class and file line);
    a ``url`` source is left to the ``fetch`` job, which runs the same checks.
    """
    source = spec.get("source", "bundled")
    if source == "url":
        url_source(name, dict(spec))  # url, sha256 and format given or known, before any job
        return None
    if source == "csv":
        path = Path(base_dir) / spec["path"]
        if not path.is_file():
            raise ValueError(f"datasets.{name}.path: no file at {path}.")
    return load_source(name, dict(spec), base_dir)


def check_fold_sizes(labels: np.ndarray, n_folds: int, dataset: str,
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


def rename_old_model_names(config: dict[str, Any]) -> list[str]:
    """Replace renamed models (:data:`mixlib.experiments.registry.RENAMED`) in
    ``comparison.models`` and ``comparison.params`` by their new names, in place, so an old
    config keeps running; returns one message per replacement for the run's log."""
    comparison = config.get("comparison")
    if not isinstance(comparison, dict):
        return []
    messages = []
    models = comparison.get("models")
    if isinstance(models, list):
        for position, name in enumerate(models):
            if name in RENAMED:
                models[position] = RENAMED[name]
                messages.append(f"comparison.models: {name!r} is now called {RENAMED[name]!r} "
                                "(the tree grown to pure leaves; 'cart' is the pruned one); "
                                "it runs under the new name, which the tables use. Rename it "
                                "in your config to silence this message.")
    params = comparison.get("params")
    if isinstance(params, dict):
        for name in [name for name in params if name in RENAMED]:
            if RENAMED[name] in params:
                raise ValueError(f"comparison.params: both {name!r} and its new name "
                                 f"{RENAMED[name]!r} are given; keep only {RENAMED[name]!r}.")
            params[RENAMED[name]] = params.pop(name)
            messages.append(f"comparison.params.{name}: {name!r} is now called "
                            f"{RENAMED[name]!r}; its overrides apply under the new name.")
    return messages


def check_em_section(config: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the key where a config sets EM settings outside ``em``.

    ``mixture.em`` (the old place of the section) and EM keys among
    ``comparison.params.mixture`` would give some mixtures other settings than the rest.
    """
    if "em" in config.get("mixture", {}):
        raise ValueError(
            "mixture.em: the EM settings moved to the top-level section em, which applies to "
            "every mixture of the study; move the block there (unindented)."
        )
    overrides = config.get("comparison", {}).get("params", {}).get("mixture", {})
    clashes = sorted(set(overrides) & set(EM_KEYS))
    if clashes:
        raise ValueError(
            f"comparison.params.mixture: {clashes} are EM settings, which the section em sets "
            "for every mixture of the study; remove them here (or change em)."
        )


def check_config(config: Mapping[str, Any],
                 base_dir: str | Path = ".") -> dict[str, pd.DataFrame | None]:
    """Raise ``ValueError`` naming the key if the config refers to what does not exist.

    Returns every data set's checked raw table (None for a ``url`` source), for the checks of
    :mod:`mixlib.pipeline.prerun_checks`.

    Checks: every bundled data set is shipped; ``encoding`` is set only on sequence or
    categorical data;
    every data set that can be read without a download passes the value checks of
    :mod:`mixlib.datasets.checks`; every split has one form (:func:`check_split_forms`),
    names a configured data set and asks for no more rows than it has; a ``rows`` split's
    ranges are well formed, disjoint and within the rows; a ``role_column`` is a column of
    the data set, not its class column, and holds only roles; every data set of the
    comparison has ``comparison.n_folds`` examples of each class; every stage names splits
    and data sets that exist, and its split has the roles it uses; every model of the
    comparison, and of its ``params``, is a classifier of
    :data:`mixlib.experiments.registry.MODELS` and every override names a parameter it takes
    (checked without importing any estimator); EM settings are set only in the ``em``
    section (:func:`check_em_section`).
    """
    check_em_section(config)
    check_split_forms(config)
    datasets = config.get("datasets", {})
    tables = {}
    for name, spec in datasets.items():
        if spec.get("source", "bundled") == "bundled":
            try:
                bundled_dataset(spec.get("bundled_name", name))
            except ValueError as exc:
                key = "bundled_name" if "bundled_name" in spec else "source"
                raise ValueError(f"datasets.{name}.{key}: {exc}") from None
        if ("encoding" in spec and sequence_column(name, spec) is None
                and not categorical_columns(name, spec)):
            raise ValueError(
                f"datasets.{name}.encoding: only sequence data (splice) and data with "
                f"categorical columns have an encoding; {name!r} is numeric."
            )
    for split_name, split in config.get("splits", {}).items():
        if split["dataset"] not in datasets:
            raise ValueError(
                f"splits.{split_name}.dataset: unknown data set {split['dataset']!r}; "
                f"the config's data sets are {sorted(datasets)}."
            )
    for name in datasets:
        tables[name] = load_dataset_table(name, dataset_source(config, name), base_dir)
    for split_name, split in config.get("splits", {}).items():
        _check_split_sizes(split_name, split, tables[split["dataset"]])
    _check_stage_references(config, tables)
    comparison = config.get("comparison", {})
    for name in comparison.get("datasets", []):
        if tables[name] is not None:
            check_fold_sizes(tables[name][CLASS_COLUMN].to_numpy(), comparison["n_folds"], name)
    return tables


def _check_split_sizes(name: str, split: Mapping[str, Any], table: pd.DataFrame | None) -> None:
    """A random split asks for no more rows than its data set has; a ``rows`` split's ranges
    are well formed, and, when the data set can be read, disjoint and within its rows.
    (A role column is checked when its data set is read.)"""
    kind = split_kind(split, f"splits.{name}")
    if kind == "random" and table is not None:
        role_sizes(split["roles"], len(table), where=f"splits.{name}.roles")
    if kind == "rows":
        check_row_ranges(split["rows"], f"splits.{name}.rows")
        if table is not None:
            roles_from_rows(split["rows"], len(table), f"splits.{name}.rows")


def split_role_names(split: Mapping[str, Any], table: pd.DataFrame | None) -> set[str] | None:
    """The roles a split gives rows, or ``None`` when only a download would tell.

    A random split's are the keys of ``roles``, a ``rows`` split's the keys of ``rows``, a
    ``role_column`` split's the roles its column holds (``table`` is the data set's raw table
    read with that column, see :func:`dataset_source`).
    """
    kind = split_kind(split)
    if kind == "random":
        return set(split["roles"])
    if kind == "rows":
        return set(split["rows"])
    if table is None:
        return None
    return set(table[ROLE_PREFIX + split["role_column"]].replace("", UNUSED)) - {UNUSED}


# Stage keys that name a split, and the roles that split must have.
SPLIT_REFERENCES = {
    ("mlp", "split"): ("train", "test"),
}
# Stage keys that name a list of splits, and the roles each must have.
SPLIT_LIST_REFERENCES = {
    ("mixture", "splits"): ("labelled",),
    ("semisupervised", "splits"): ("labelled", "unlabelled", "test"),
    ("kernel_sweep", "splits"): ("labelled", "unlabelled", "test"),
    ("svm", "splits"): ("train", "test"),
    ("dna_kernel_sweep", "splits"): ("train", "test"),
    ("ensembles", "splits"): ("train", "test"),
    ("comparison", "holdout_splits"): ("train", "test"),
}
# Stage keys that name a list of data sets.
DATASET_LIST_REFERENCES = [("imputation_study", "datasets"), ("comparison", "datasets")]


def _check_stage_references(config: Mapping[str, Any],
                            tables: Mapping[str, pd.DataFrame | None] | None = None) -> None:
    """Every split or data set a stage names exists, and a split has the roles the stage uses
    (for a ``role_column`` split, the roles its column holds: ``tables`` are the data sets'
    raw tables; unknown without them, then not checked)."""
    tables = tables or {}
    splits = config.get("splits", {})
    named = [((section, key), config[section][key], roles)
             for (section, key), roles in SPLIT_REFERENCES.items() if section in config]
    named += [((section, key), name, roles)
              for (section, key), roles in SPLIT_LIST_REFERENCES.items() if section in config
              for name in config[section].get(key, [])]
    for (section, key), name, roles in named:
        if name not in splits:
            raise ValueError(
                f"{section}.{key}: unknown split {name!r}; the config's splits are {sorted(splits)}."
            )
        present = split_role_names(splits[name], tables.get(splits[name]["dataset"]))
        absent = [] if present is None else [role for role in roles if role not in present]
        if absent:
            column = splits[name].get("role_column")
            held = f" (its role column {column!r} holds {sorted(present)})" if column else ""
            raise ValueError(
                f"{section}.{key}: split {name!r} has no role {absent}{held}; {section} needs "
                f"the roles {list(roles)}."
            )
    comparison = config.get("comparison", {})
    for name in comparison.get("mem_mb", {}):
        if name not in comparison.get("datasets", []):
            raise ValueError(f"comparison.mem_mb.{name}: {name!r} is not a data set of "
                             f"comparison.datasets {comparison.get('datasets', [])}.")
    _check_model_names(comparison.get("models", []), "comparison.models")
    _check_comparison_params(comparison.get("params", {}))
    datasets = config.get("datasets", {})
    for section, key in DATASET_LIST_REFERENCES:
        for name in config.get(section, {}).get(key, []):
            if name not in datasets:
                raise ValueError(
                    f"{section}.{key}: unknown data set {name!r}; the config's data sets are "
                    f"{sorted(datasets)}."
                )
    for chapter, names in config.get("claims", {}).get("report_problems", {}).items():
        for name in names:
            if name not in splits and name not in datasets:
                raise ValueError(
                    f"claims.report_problems.{chapter}: {name!r} is neither a split nor a data set "
                    f"of the config; the splits are {sorted(splits)}, the data sets {sorted(datasets)}."
                )


def _check_model_names(names: Sequence[str], where: str) -> None:
    """Every name is a classifier of the registry (:data:`mixlib.experiments.registry.MODELS`)."""
    unknown = [name for name in names if name not in MODELS]
    if unknown:
        raise ValueError(f"{where}: unknown model(s) {unknown}; the registry's models are "
                         f"{sorted(MODELS)}.")


def _check_comparison_params(params: Mapping[str, Mapping[str, Any]]) -> None:
    """Every per-model override of the comparison names a model of the registry and a
    parameter that model takes (or a protocol key such as ``max_train_rows``)."""
    _check_model_names(list(params), "comparison.params")
    for model, overrides in params.items():
        known = MODELS[model].parameters | set(PROTOCOL_KEYS)
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(
                f"comparison.params.{model}: unknown parameter(s) {unknown}; {model} takes "
                f"{sorted(known)}."
            )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mixlib.pipeline.config FILE...``: check the YAML syntax of config files.

    Snakemake reports a syntax error in a ``--configfile`` without its place; this names the
    file, line and column. A key given twice and ``__use_yte__`` (which makes Snakemake run
    Python from the file) are errors too. Prints one line per file; exit status 1 if any file is invalid.
    """
    import sys

    paths = list(sys.argv[1:] if argv is None else argv)
    failed = False
    for path in paths:
        try:
            read_config_file(path)
        except (OSError, ValueError) as exc:
            print(exc, file=sys.stderr)
            failed = True
        else:
            print(f"{path}: YAML syntax OK.")
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    raise SystemExit(main())
