"""Bounds on every size-like setting, checked before any job, which the user can lift.

The schema marks each size-like key with its bound, ``x-limit: N``, and what its size costs,
``x-cost: <kind>`` (a key of :data:`COSTS`); a list of sizes (``mlp.hidden_sizes``) bounds each
of its values, and the estimator parameters of ``comparison.params`` are bounded by parameter
name under ``comparison.params``' ``additionalProperties``. :func:`bounded_keys` reads them
from the schema, so a new size-like key is bounded by annotating it there.

A value above its bound stops the run with a message that estimates the work or memory it asks
for and says how to lift the bound: the config's ``limits`` section maps a key, written as in
the message (``comparison.cv_repeats``, ``comparison.params.bagging.n_estimators``), to the
largest value it accepts instead, e.g. ``limits: {comparison.cv_repeats: 5000}``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from fnmatch import fnmatchcase
from typing import Any

#: Bytes of one float64.
_FLOAT = 8


def _count(x: float) -> str:
    if x >= 1e300:  # an integer beyond float64 (YAML reads 400 digits as an int)
        return f"about 10^{len(str(int(x))) - 1}"
    return f"{x:,.0f}" if x < 1e12 else f"{x:.1e}"


def _bytes(x: float) -> str:
    if x >= 1e300:
        return f"about 10^{len(str(int(x))) - 1} bytes"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if x >= size:
            return f"{x / size:,.1f} {unit}"
    return f"{x / 2**10:,.1f} KiB"


def _n(config: Mapping[str, Any], *path: str, default: int = 1) -> int:
    """The length of a list (or the value of an integer) at ``path``, ``default`` if absent."""
    node: Any = config
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return default
        node = node[key]
    return len(node) if isinstance(node, (list, tuple)) else int(node)


def _repeats(config: Mapping[str, Any], value: int) -> str:
    return (f"each repeat adds a copy of every split's rows to results/splits/ and one more run "
            f"of every experiment: {_count(value)} runs of each")


def _cv_fits(config: Mapping[str, Any], value: int) -> str:
    folds, models = _n(config, "comparison", "n_folds"), _n(config, "comparison", "models")
    datasets = _n(config, "comparison", "datasets")
    return (f"{_count(value)} x {folds} folds = {_count(value * folds)} fits of each of "
            f"{models} models on each of {datasets} data set(s) "
            f"({_count(value * folds * models * datasets)} fits)")


def _posterior(config: Mapping[str, Any], value: int) -> str:
    datasets = _n(config, "comparison", "datasets")
    return (f"the posterior draws of one pair of models take {_count(value)} x "
            f"({datasets} data set(s) + 4) x 8 bytes = {_bytes(value * (datasets + 4) * _FLOAT)}")


def _grid(config: Mapping[str, Any], value: int) -> str:
    grid = config.get("svm", {}).get("grid", {})
    cells = grid.get("n_points", 1) ** 2 * grid.get("n_levels", 1)
    fits = cells * grid.get("n_folds", 1) * _n(config, "svm", "splits")
    return (f"{_count(cells)} grid cells (n_points^2 x n_levels), each a "
            f"{grid.get('n_folds', 1)}-fold cross-validation: {_count(fits)} SVM fits, and a "
            f"table of {_count(4 * cells)} rows")


def _hidden(config: Mapping[str, Any], value: int) -> str:
    return (f"a network of {_count(value)} hidden units holds {_count(value)} x (inputs + "
            f"classes + 1) weights, {_bytes(value * _FLOAT)} per input feature for each copy "
            f"(splice one-hot has 240 features: {_bytes(value * 243 * _FLOAT)})")


def _epochs(config: Mapping[str, Any], value: int) -> str:
    networks = (_n(config, "mlp", "hidden_sizes") * _n(config, "mlp", "regimes")
                * _n(config, "mlp", "splits") * _n(config, "repeats"))
    return (f"{_count(value)} passes over the training rows for each of {networks} networks "
            f"of the mlp stage ({_count(value * networks)} passes)")


def _members(config: Mapping[str, Any], value: int) -> str:
    runs = (_n(config, "ensembles", "methods") * _n(config, "ensembles", "splits")
            * _n(config, "repeats"))
    return (f"{_count(value)} models fitted per ensemble, in {runs} ensembles "
            f"({_count(value * runs)} fits)")


def _estimators(config: Mapping[str, Any], value: int) -> str:
    folds = _n(config, "comparison", "n_folds") * _n(config, "comparison", "cv_repeats")
    return (f"{_count(value)} models per ensemble in each of {folds} folds of each data set "
            f"({_count(value * folds)} fits per data set)")


def _kernels(config: Mapping[str, Any], value: int) -> str:
    return (f"each EM iteration of a mixture of {_count(value)} kernels computes "
            f"{_count(value)} densities per row, and its responsibilities take "
            f"{_bytes(value * _FLOAT * 1000)} per 1000 rows")


def _iterations(config: Mapping[str, Any], value: int) -> str:
    return f"up to {_count(value)} iterations (or rounds) of every fit that reads it"


def _fits(config: Mapping[str, Any], value: int) -> str:
    return f"{_count(value)} fits per job that reads it"


#: What a size costs, by the schema's ``x-cost``: a sentence for a value.
COSTS: dict[str, Callable[[Mapping[str, Any], int], str]] = {
    "repeats": _repeats, "cv_fits": _cv_fits, "posterior": _posterior, "grid": _grid,
    "hidden_units": _hidden, "epochs": _epochs, "members": _members,
    "estimators": _estimators, "kernels": _kernels, "iterations": _iterations, "fits": _fits,
}


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
                f"{key}: {_count(size)} is above its bound {_count(limit)}: "
                f"{COSTS[cost](config, int(size))}. If you mean it, lift the bound: set "
                f"limits: {{{key}: {int(size)}}} in the config (and raise the jobs' mem_mb if "
                f"they run out of memory).")
