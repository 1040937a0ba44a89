"""Checks of the study config that a JSON schema cannot express.

The schema (``workflow/schemas/config.schema.yaml``) checks keys and types; this module
checks that names refer to things that exist and that sizes fit the data, before any job runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mixlib.datasets import bundled_dataset, sequence_column
from mixlib.datasets.parsers import parse_user_csv
from mixlib.splits import role_sizes


def dataset_rows(name: str, spec: Mapping[str, Any], base_dir: str | Path = ".") -> int | None:
    """Rows of a configured data set, or ``None`` when only a download would tell (``url``)."""
    source = spec.get("source", "bundled")
    if source == "bundled":
        return bundled_dataset(spec.get("bundled_name", name)).n_rows
    if source == "csv":
        path = Path(base_dir) / spec["path"]
        if not path.is_file():
            raise ValueError(f"datasets.{name}.path: no file at {path}.")
        frame = parse_user_csv(
            path.read_text(encoding="utf-8"), spec["class_column"],
            spec.get("missing_values", []), spec.get("drop_columns", []),
            source=f"datasets.{name} ({spec['path']})",
        )
        return len(frame)
    return None


def check_config(config: Mapping[str, Any], base_dir: str | Path = ".") -> None:
    """Raise ``ValueError`` naming the key if the config refers to what does not exist.

    Checks: every bundled data set is shipped; ``encoding`` is set only on sequence data;
    every split names a configured data set and asks for no more rows than it has; every
    stage names splits and data sets that exist, and its split has the roles it uses.
    """
    datasets = config.get("datasets", {})
    rows = {}
    for name, spec in datasets.items():
        if spec.get("source", "bundled") == "bundled":
            try:
                bundled_dataset(spec.get("bundled_name", name))
            except ValueError as exc:
                key = "bundled_name" if "bundled_name" in spec else "source"
                raise ValueError(f"datasets.{name}.{key}: {exc}") from None
        if "encoding" in spec and sequence_column(name, spec) is None:
            raise ValueError(
                f"datasets.{name}.encoding: only sequence data (splice) have an encoding; "
                f"{name!r} is numeric."
            )
        rows[name] = dataset_rows(name, spec, base_dir)
    for split_name, split in config.get("splits", {}).items():
        dataset = split["dataset"]
        if dataset not in datasets:
            raise ValueError(
                f"splits.{split_name}.dataset: unknown data set {dataset!r}; "
                f"the config's data sets are {sorted(datasets)}."
            )
        if rows[dataset] is not None:
            role_sizes(split["roles"], rows[dataset], where=f"splits.{split_name}.roles")
    _check_stage_references(config)


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
}
# Stage keys that name a list of data sets.
DATASET_LIST_REFERENCES = [("imputation_study", "datasets"), ("comparison", "datasets")]


def _check_stage_references(config: Mapping[str, Any]) -> None:
    """Every split or data set a stage names exists, and a split has the roles the stage uses."""
    splits = config.get("splits", {})
    named = [((section, key), config[section][key], roles)
             for (section, key), roles in SPLIT_REFERENCES.items() if section in config]
    named += [((section, key), name, roles)
              for (section, key), roles in SPLIT_LIST_REFERENCES.items() if section in config
              for name in config[section][key]]
    for (section, key), name, roles in named:
        if name not in splits:
            raise ValueError(
                f"{section}.{key}: unknown split {name!r}; the config's splits are {sorted(splits)}."
            )
        absent = [role for role in roles if role not in splits[name]["roles"]]
        if absent:
            raise ValueError(
                f"{section}.{key}: split {name!r} has no role {absent}; {section} needs the "
                f"roles {list(roles)}."
            )
    _check_comparison_params(config.get("comparison", {}).get("params", {}))
    datasets = config.get("datasets", {})
    for section, key in DATASET_LIST_REFERENCES:
        for name in config.get(section, {}).get(key, []):
            if name not in datasets:
                raise ValueError(
                    f"{section}.{key}: unknown data set {name!r}; the config's data sets are "
                    f"{sorted(datasets)}."
                )


def _check_comparison_params(params: Mapping[str, Mapping[str, Any]]) -> None:
    """Every per-model override of the comparison names a parameter the model has."""
    from mixlib.experiments.comparison import MODELS

    for model, overrides in params.items():
        known = set(MODELS[model].defaults) | {"max_train_rows"}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(
                f"comparison.params.{model}: unknown parameter(s) {unknown}; {model} takes "
                f"{sorted(known)}."
            )
