"""The claims' repeats and their replicate: which splits run how many repeats, twice.

The claims of chapters 3 and 5 are cheap to measure and need power, so the splits their
stages read (``mixture.splits``, ``semisupervised.splits``, ``kernel_sweep.splits``) run
``claims.repeats`` seeded repeats instead of the study's ``repeats`` (the readings grid keeps
the first ``repeats`` of them: repeat ``r`` draws the same rows at any count). Two measures
leave repeats out (the EM fits' "souvent global" those whose fits all collapsed, the
migrants' margin those without a migrant): their stages run further repeats, in order, until
``claims.min_n`` count, at most ``claims.max_repeats`` (the split tables hold that many;
:func:`mixlib.experiments.contract.run_repeats`).

With ``claims.replicate``, each of those splits runs a second time as the split
``<name>_replicate``: the same spec and the same number of repeats, under the seed streams
that name gives (``generator(seed, "split", "<name>_replicate", r)`` for its rows, and the same
name in every stage's stream), so an independent replicate of our reading derived from the
config's seed. The claims table judges both and flags a row whose verdicts differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mixlib.model_selection.fixed_splits import split_repeats

REPLICATE_SUFFIX = "_replicate"
#: The stage sections whose ``splits`` the chapter-3 and -5 claims are measured on.
CLAIM_SPLIT_SECTIONS = ("mixture", "semisupervised", "kernel_sweep")


def claim_splits(config: Mapping[str, Any]) -> list[str]:
    """The splits the chapter-3 and -5 stages of ``config`` read, sorted."""
    names = set()
    for section in CLAIM_SPLIT_SECTIONS:
        names.update(config.get(section, {}).get("splits", []) if config.get(section) else [])
    return sorted(names)


def replicates(config: Mapping[str, Any]) -> bool:
    """Whether the run replicates our reading of chapters 3 and 5 (``claims.replicate``)."""
    return "claims" in config and config["claims"]["replicate"]


def replicate_of(split: str) -> str:
    """The name of ``split``'s replicate."""
    return f"{split}{REPLICATE_SUFFIX}"


def original_of(split: str) -> str:
    """The split a replicate replicates (``split`` itself if it is none)."""
    return split.removesuffix(REPLICATE_SUFFIX)


def split_and_replicate(config: Mapping[str, Any], split: str) -> list[str]:
    """The splits one chapter-3/5 job runs: ``split``, then its replicate with
    ``claims.replicate`` (the two share every setting of the stage)."""
    return [split, replicate_of(split)] if replicates(config) else [split]


def replicated_outputs(config: Mapping[str, Any], pattern: str) -> list[str]:
    """The output files of a job that runs a split and its replicate: ``pattern`` (with the
    wildcard ``{split}``), then, with ``claims.replicate``, the same with ``{split}`` replaced by
    its replicate's name."""
    if "{split}" not in pattern:
        raise ValueError(f"the output pattern {pattern!r} has no {{split}} wildcard")
    if not replicates(config):
        return [pattern]
    return [pattern, pattern.replace("{split}", replicate_of("{split}"))]


def with_replicate_splits(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config["splits"]`` plus, with ``claims.replicate``, a replicate of every claim split."""
    splits = dict(config["splits"])
    if replicates(config):
        splits.update({replicate_of(name): splits[name] for name in claim_splits(config)})
    return splits


def claim_repeats(config: Mapping[str, Any]) -> int:
    """Repeats every chapter-3 and -5 stage runs: ``claims.repeats``, else ``repeats``."""
    return int(config.get("claims", {}).get("repeats", config["repeats"]))


def claim_min_n(config: Mapping[str, Any]) -> int:
    """Repeats a measure that leaves some out must rest on (``claims.min_n``; without the
    key, ``claims.repeats``: no repeat beyond those)."""
    return int(config.get("claims", {}).get("min_n", claim_repeats(config)))


def repeats_of(config: Mapping[str, Any], split: str) -> int:
    """Repeats of ``split``'s table: for a claim split and its replicate ``claims.max_repeats``
    (the stages whose measure leaves repeats out run past ``claims.repeats`` up to it; else
    ``claims.repeats``, else ``repeats``), ``repeats`` for any other random split, 1 for a
    fixed one."""
    repeats = int(config["repeats"])
    if original_of(split) in claim_splits(config):
        repeats = int(config.get("claims", {}).get("max_repeats", claim_repeats(config)))
    return split_repeats(with_replicate_splits(config)[split], repeats)
