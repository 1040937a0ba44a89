"""Config keys the study no longer reads, and the message that names what replaced them.

An older config that still sets one of :data:`MOVED_KEYS` stops before any job with a message
naming the old key, the new one and why it moved, instead of the schema's "additional property"
(which would not say where the setting went). :func:`check_legacy_keys` runs first, before the
schema (:func:`mixlib.pipeline.checks.validate_study_config`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
