"""Config keys and model names the study no longer reads, and what replaced them.

An older config that still sets one of :data:`MOVED_KEYS` stops before any job with a message
naming the old key, the new one and why it moved, instead of the schema's "additional property"
(which would not say where the setting went). A renamed model
(:data:`mixlib.experiments.registry.RENAMED`) still runs, under its new name, with a message
(:func:`rename_old_model_names`). Both run first, before the schema
(:func:`mixlib.pipeline.checks.validate_study_config`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mixlib.experiments.registry import RENAMED

#: Old key (path of keys) -> (new key, why it moved).
MOVED_KEYS: dict[tuple[str, ...], tuple[str, str]] = {
    ("mixture", "em"): (
        "em", "the EM settings moved to the top-level section em, which applies to every "
        "mixture of the study; move the block there (unindented)"),
    ("impute", "n_components"): (
        "impute.kernels_per_feature", "the imputer's kernels are per univariate mixture of "
        "one feature, not per class as n_components is everywhere else; rename the key"),
    ("imputation_study", "n_components"): (
        "imputation_study.kernels_per_feature", "the imputer's kernels are per univariate "
        "mixture of one feature, not per class as n_components is everywhere else; rename "
        "the key"),
    ("comparison", "alpha"): (
        "comparison.significance_level", "it is the significance level of the tests (the "
        "intervals are at level 1 - significance_level); rename the key"),
    ("svm", "grid", "alpha"): (
        "svm.grid.significance_level", "the interval of the cross-validated error is at "
        "level 1 - significance_level; rename the key"),
}


def _has(config: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    node: Any = config
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return False
        node = node[key]
    return True


def check_legacy_keys(config: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the first old key the config sets, and its new key.

    Raises
    ------
    ValueError
        ``"<old key>: <why>; it is now <new key>."``, e.g. ``"comparison.alpha: it is the
        significance level of the tests ...; it is now comparison.significance_level."``
    """
    for old, (new, why) in MOVED_KEYS.items():
        if _has(config, old):
            raise ValueError(f"{'.'.join(old)}: {why}; it is now {new}.")


def rename_old_model_names(config: dict[str, Any]) -> list[str]:
    """Replace renamed models (:data:`mixlib.experiments.registry.RENAMED`) in
    ``comparison.models`` and ``comparison.params`` by their new names, in place, so an old
    config keeps running; returns one message per replacement for the run's log.

    Raises
    ------
    ValueError
        If ``comparison.params`` gives both a model's old name and its new one.
    """
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
