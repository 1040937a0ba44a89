"""Every check of a study config before any job: :func:`validate_study_config`.

``workflow/rules/common.smk`` and the tests call the same function, which checks, in order: the
form of every split, the numbers and the schema, once (:mod:`mixlib.pipeline.config`: ``--config``
strings typed first, the defaults filled, a violation named by its key), the bounds of size-like
keys (:func:`check_limits`), that every stage has all its sections or none
(:mod:`mixlib.pipeline.stages`), the typed settings, then what no schema can say
(:func:`check_config`: names refer to things that exist, sizes fit the data, every split a stage
reads has the roles the stage uses; the claims' repeat keys), last what only the data or a fit can
tell (:mod:`mixlib.pipeline.data_checks`, on the data sets :func:`check_config` read). It returns
the config's typed settings (:func:`mixlib.catalogue.settings.study_settings`).

The roles a stage needs are the workflow's: the schema declares them beside the config key
that names the stage's splits (``x-names: splits`` and ``x-roles: [...]``; a key naming data
sets says ``x-names: datasets``), and :func:`schema_references` reads them from there.

**Bounds.** The schema marks each size-like key with its bound, ``x-limit: N``, and what its size
costs, ``x-cost: <kind>`` (a key of :data:`COSTS`; :func:`bounded_keys`). A value above its bound
stops the run with a message that estimates its cost and says how to lift it: ``limits:
{comparison.cv_repeats: 5000}`` maps a key, as the message writes it, to its bound.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from mixlib.datasets import CLASS_COLUMN, bundled_dataset, categorical_columns, sequence_column
from mixlib.datasets.checks import check_classes_fill_folds
from mixlib.datasets.registry import ROLE_PREFIX
from mixlib.experiments.comparison import PROTOCOL_KEYS
from mixlib.catalogue.registry import CLASSIFIERS, model_spec, unknown_parameters
from mixlib.catalogue.settings import EMSettings, StudySettings, study_settings
from mixlib.model_selection.fixed_splits import check_row_ranges, roles_from_rows, split_kind
from mixlib.model_selection.splits import UNUSED, role_sizes
from mixlib.pipeline.config import check_numbers, check_schema, load_schema, retype_strings
from mixlib.pipeline.data_checks import check_prerun, check_stage_params
from mixlib.pipeline.datasets import dataset_source, load_dataset_table
from mixlib.pipeline.replicates import claim_min_n, claim_repeats
from mixlib.pipeline.size_costs import COSTS, count_words
from mixlib.pipeline.stages import check_shared_sections


def validate_study_config(config: dict[str, Any], schema: str | Path,
                          base_dir: str | Path = ".", *, read_data: bool = True) -> StudySettings:
    """Check a study config before any job (see module); its typed settings.

    Parameters
    ----------
    config : dict
        The config; the schema's defaults are filled in place.
    schema : str or Path
        The config schema (``workflow/schemas/config.schema.yaml``).
    base_dir : str or Path
        The project directory a user's CSV path is relative to.
    read_data : bool
        Run :func:`check_config`, which reads every data set that needs no download (about a
        second), and :func:`~mixlib.pipeline.data_checks.check_prerun` on them; a process
        that parses the workflow for a config already checked (a cluster job's) passes False.

    Raises
    ------
    ValueError
        Naming the config key.
    """
    check_split_forms(config)
    # --config 'mlp={"hidden_sizes": [1, 2]}' arrives with strings inside: typed as the schema says
    loaded = load_schema(schema)
    retype_strings(config, loaded)
    check_numbers(config, loaded)  # .inf, .nan, 1.0e+3 for an integer: named before the schema
    check_schema(config, loaded)  # once: names the key at fault, fills the defaults
    check_limits(config, loaded)  # before anything whose work grows with a size
    check_shared_sections(config)
    settings = study_settings(config)  # em, comparison, semisupervised: named by their keys
    if read_data:
        check_stage_params(config, settings.em)
        check_prerun(config, check_config(config, loaded, base_dir))
    return settings


def check_split_forms(config: Mapping[str, Any]) -> None:
    """Every split has exactly one of ``roles``, ``role_column`` and ``rows``, and only a
    random split sets ``stratify`` (run before the schema, whose message would not name the
    split; :func:`mixlib.model_selection.fixed_splits.split_kind`)."""
    splits = config.get("splits")
    if isinstance(splits, Mapping):
        for name, spec in splits.items():
            if isinstance(spec, Mapping):
                split_kind(spec, f"splits.{name}")


def schema_references(schema: str | Path | Mapping[str, Any]
                      ) -> Iterator[tuple[tuple[str, ...], str, tuple[str, ...]]]:
    """The config keys whose values name splits or data sets, from the schema's annotations.

    Yields ``(key path, "splits" or "datasets", roles)`` for every property of the schema
    (at any depth of ``properties``) annotated ``x-names``; ``roles`` are its ``x-roles``
    (the roles every split it names must have; empty for data sets).
    """
    if not isinstance(schema, Mapping):
        schema = yaml.safe_load(Path(schema).read_text(encoding="utf-8"))

    def walk(node: Mapping[str, Any], path: tuple[str, ...]):
        for key, child in node.get("properties", {}).items():
            if "x-names" in child:
                yield path + (key,), child["x-names"], tuple(child.get("x-roles", ()))
            yield from walk(child, path + (key,))

    yield from walk(schema, ())


def check_config(config: Mapping[str, Any], schema: str | Path | Mapping[str, Any],
                 base_dir: str | Path = ".") -> dict[str, pd.DataFrame | None]:
    """Raise ``ValueError`` naming the key if the config (its schema defaults filled, as
    :func:`validate_study_config` does) refers to what does not exist.

    Returns every data set's checked raw table (None for a ``url`` source), for the checks of
    :mod:`mixlib.pipeline.data_checks`.

    Checks: every bundled data set is shipped; ``encoding`` is set only on sequence or
    categorical data; every data set that can be read without a download passes the value checks of
    :mod:`mixlib.datasets.checks`; every split has one form (:func:`check_split_forms`),
    names a configured data set and asks for no more rows than it has; a ``rows`` split's
    ranges are well formed, disjoint and within the rows; a ``role_column`` is a column of
    the data set, not its class column, and holds only roles; every data set of the
    comparison has ``comparison.n_folds`` examples of each class; every stage names splits
    and data sets that exist, and its splits have the roles the schema says it uses
    (:func:`schema_references`); every model of the comparison, and of its ``params``, is a
    classifier of the catalogue and every parameter given one it takes (checked without
    importing any estimator), EM settings apart, which only the ``em`` section sets; every
    name of ``claims.report_problems`` is a split or a data set of the config;
    ``claims.min_n <= claims.repeats <= claims.max_repeats``.
    """
    check_split_forms(config)
    datasets, splits = config.get("datasets", {}), config.get("splits", {})
    for name, spec in datasets.items():
        if spec["source"] == "bundled":
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
    for split_name, split in splits.items():
        if split["dataset"] not in datasets:
            raise ValueError(
                f"splits.{split_name}.dataset: unknown data set {split['dataset']!r}; "
                f"the config's data sets are {sorted(datasets)}."
            )
    tables = {name: load_dataset_table(name, dataset_source(config, name), base_dir)
              for name in datasets}
    for split_name, split in splits.items():
        _check_split_sizes(split_name, split, tables[split["dataset"]])
    _check_references(config, schema_references(schema), tables)
    comparison = config.get("comparison", {})
    for name in comparison.get("mem_mb", {}):
        if name not in comparison.get("datasets", []):
            raise ValueError(f"comparison.mem_mb.{name}: {name!r} is not a data set of "
                             f"comparison.datasets {comparison.get('datasets', [])}.")
    check_model_names(comparison.get("models", []), "comparison.models")
    check_comparison_params(comparison.get("params", {}))
    for name in comparison.get("datasets", []):
        if tables[name] is not None:
            check_classes_fill_folds(tables[name][CLASS_COLUMN].to_numpy(), comparison["n_folds"], name)
    for chapter, names in config.get("claims", {}).get("report_problems", {}).items():
        for name in names:
            if name not in splits and name not in datasets:
                raise ValueError(f"claims.report_problems.{chapter}: {name!r} is neither a split "
                                 f"nor a data set of the config; the splits are {sorted(splits)}, "
                                 f"the data sets {sorted(datasets)}.")
    check_claim_repeats(config)
    return tables


def check_claim_repeats(config: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the key unless ``claims.min_n <= claims.repeats <=
    claims.max_repeats``: every stage runs ``claims.repeats``, so a measure that counts every
    repeat reaches ``min_n`` with them, and the split tables hold the repeats run. Nothing to
    check without ``min_n`` or ``max_repeats``."""
    if not {"min_n", "max_repeats"} & set(config.get("claims") or {}):
        return
    first, min_n = claim_repeats(config), claim_min_n(config)
    if min_n > first:
        raise ValueError(f"claims.min_n: {min_n} is above claims.repeats ({first}); every stage "
                         f"runs claims.repeats repeats, so min_n can be at most that many.")
    most = int(config.get("claims", {}).get("max_repeats", first))
    if most < first:
        raise ValueError(f"claims.max_repeats: {most} is below claims.repeats ({first}); the "
                         f"claim splits' tables must hold at least that many repeats.")


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
    read with that column, see :func:`mixlib.pipeline.datasets.dataset_source`).
    """
    kind = split_kind(split)
    if kind == "random":
        return set(split["roles"])
    if kind == "rows":
        return set(split["rows"])
    if table is None:
        return None
    return set(table[ROLE_PREFIX + split["role_column"]].replace("", UNUSED)) - {UNUSED}


def _named(config: Mapping[str, Any], path: tuple[str, ...]) -> list[str]:
    """The names the config gives at key ``path`` (one name or a list; none if absent)."""
    node: Any = config
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return []
        node = node[key]
    return [node] if isinstance(node, str) else list(node or [])


def _check_references(config: Mapping[str, Any],
                      references: Iterator[tuple[tuple[str, ...], str, tuple[str, ...]]],
                      tables: Mapping[str, pd.DataFrame | None]) -> None:
    """Every split or data set a stage names exists, and a split has the roles the stage uses
    (for a ``role_column`` split, the roles its column holds: unknown before a download)."""
    for path, kind, roles in references:
        where = ".".join(path)
        known = config.get(kind, {})
        for name in _named(config, path):
            if name not in known:
                what = "split" if kind == "splits" else "data set"
                raise ValueError(f"{where}: unknown {what} {name!r}; the config's {kind} are "
                                 f"{sorted(known)}.")
            if kind != "splits":
                continue
            split = known[name]
            present = split_role_names(split, tables.get(split["dataset"]))
            absent = [] if present is None else [role for role in roles if role not in present]
            if absent:
                column = split.get("role_column")
                held = f" (its role column {column!r} holds {sorted(present)})" if column else ""
                raise ValueError(f"{where}: split {name!r} has no role {absent}{held}; "
                                 f"{path[0]} needs the roles {list(roles)}.")


def check_model_names(names: Sequence[str], where: str) -> None:
    """Every name is a classifier of the catalogue
    (:data:`mixlib.catalogue.registry.CLASSIFIERS`)."""
    unknown = [name for name in names if name not in CLASSIFIERS]
    if unknown:
        raise ValueError(f"{where}: unknown model(s) {unknown}; the catalogue's classifiers "
                         f"are {sorted(CLASSIFIERS)}.")


def check_comparison_params(params: Mapping[str, Mapping[str, Any]]) -> None:
    """Every model of ``comparison.params`` is a classifier of the catalogue, every parameter
    given one it takes (or a protocol key such as ``max_train_rows``), and no EM setting is
    among them: the section ``em`` sets those for every mixture of the study."""
    check_model_names(list(params), "comparison.params")
    for model, given in params.items():
        settings = sorted(set(given) & set(EMSettings._fields))
        if settings:
            raise ValueError(
                f"comparison.params.{model}: {settings} are EM settings, which the section em "
                "sets for every mixture of the study; remove them here (or change em).")
        unknown = unknown_parameters(model, {k: v for k, v in given.items()
                                             if k not in PROTOCOL_KEYS})
        if unknown:
            takes = sorted(model_spec(model).accepted | set(PROTOCOL_KEYS))
            raise ValueError(f"comparison.params.{model}: unknown parameter(s) {unknown}; "
                             f"{model} takes {takes}.")


def bounded_keys(schema: Mapping[str, Any]) -> dict[str, tuple[int, str]]:
    """Every bounded key of the schema: ``{key pattern: (bound, cost kind)}``.

    A key pattern is the key path with ``*`` for a name the user chooses, e.g.
    ``comparison.params.*.n_estimators``.
    """
    found: dict[str, tuple[int, str]] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if not isinstance(node, Mapping):
            return
        if "$ref" in node:  # a local reference, "#/$defs/name"
            target: Any = schema
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        if "x-limit" in node:
            found[".".join(path)] = (int(node["x-limit"]), node["x-cost"])
        for key, child in node.get("properties", {}).items():
            walk(child, path + (key,))
        if isinstance(node.get("additionalProperties"), Mapping):
            walk(node["additionalProperties"], path + ("*",))

    walk(schema, ())
    return found


def _values(config: Any, pattern: list[str], path: tuple[str, ...] = ()
            ) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` of every config value at a key pattern (``*`` matches any name)."""
    if not pattern:
        yield ".".join(path), config
        return
    if not isinstance(config, Mapping):
        return
    head, rest = pattern[0], pattern[1:]
    for key in (config if head == "*" else [head] if head in config else []):
        yield from _values(config[key], rest, path + (str(key),))


def check_limits(config: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the first size-like key above its bound (see module).

    Raises
    ------
    ValueError
        ``"<key>: <value> is above its bound <N>: <what it costs>. If you mean it, ..."``;
        or for a key of ``limits`` that names no bounded key.
    """
    bounds = bounded_keys(schema)
    lifted = config.get("limits") or {}
    for key in lifted:
        if not any(fnmatchcase(key, pattern) and key.count(".") == pattern.count(".")
                   for pattern in bounds):
            raise ValueError(f"limits.{key}: not a bounded key; the bounded keys are "
                             f"{sorted(bounds)} (* stands for a model).")
    for pattern, (bound, cost) in bounds.items():
        for key, value in _values(config, pattern.split(".")):
            limit = lifted.get(key, bound)
            sizes = value if isinstance(value, list) else [value]
            numbers = [size for size in sizes if isinstance(size, int) and not isinstance(
                size, bool) or isinstance(size, float) and math.isfinite(size)]
            if not numbers or max(numbers) <= limit:
                continue
            size = max(numbers)
            raise ValueError(
                f"{key}: {count_words(size)} is above its bound {count_words(limit)}: "
                f"{COSTS[cost](config, int(size))}. If you mean it, lift the bound: set "
                f"limits: {{{key}: {int(size)}}} in the config (and raise the jobs' mem_mb if "
                f"they run out of memory).")
