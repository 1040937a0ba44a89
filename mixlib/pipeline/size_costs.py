"""What a size-like config key costs, in words: the second half of the message that stops a
value above its bound (:func:`mixlib.pipeline.config_checks.check_limits`).

:data:`COSTS` maps the schema's ``x-cost`` kinds to a function of ``(config, value)`` that
estimates the work or memory of that value, from the config's other sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


#: Bytes of one float64.
_FLOAT = 8


def count_words(x: float) -> str:
    """``x`` as a reader counts it: digits grouped, or a power of ten when too long."""
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
            f"of every experiment: {count_words(value)} runs of each")


def _cv_fits(config: Mapping[str, Any], value: int) -> str:
    folds, models = _n(config, "comparison", "n_folds"), _n(config, "comparison", "models")
    datasets = _n(config, "comparison", "datasets")
    return (f"{count_words(value)} x {folds} folds = {count_words(value * folds)} fits of each of "
            f"{models} models on each of {datasets} data set(s) "
            f"({count_words(value * folds * models * datasets)} fits)")


def _posterior(config: Mapping[str, Any], value: int) -> str:
    datasets = _n(config, "comparison", "datasets")
    return (f"the posterior draws of one pair of models take {count_words(value)} x "
            f"({datasets} data set(s) + 4) x 8 bytes = {_bytes(value * (datasets + 4) * _FLOAT)}")


def _grid(config: Mapping[str, Any], value: int) -> str:
    grid = config.get("svm", {}).get("grid", {})
    cells = grid.get("n_points", 1) ** 2 * grid.get("n_levels", 1)
    fits = cells * grid.get("n_folds", 1) * _n(config, "svm", "splits")
    return (f"{count_words(cells)} grid cells (n_points^2 x n_levels), each a "
            f"{grid.get('n_folds', 1)}-fold cross-validation: {count_words(fits)} SVM fits, and a "
            f"table of {count_words(4 * cells)} rows")


def _hidden(config: Mapping[str, Any], value: int) -> str:
    return (f"a network of {count_words(value)} hidden units holds {count_words(value)} x (inputs + "
            f"classes + 1) weights, {_bytes(value * _FLOAT)} per input feature for each copy "
            f"(splice one-hot has 240 features: {_bytes(value * 243 * _FLOAT)})")


def _epochs(config: Mapping[str, Any], value: int) -> str:
    networks = (_n(config, "mlp", "hidden_sizes") * _n(config, "mlp", "regimes")
                * _n(config, "mlp", "splits") * _n(config, "repeats"))
    return (f"{count_words(value)} passes over the training rows for each of {networks} networks "
            f"of the mlp stage ({count_words(value * networks)} passes)")


def _members(config: Mapping[str, Any], value: int) -> str:
    runs = (_n(config, "ensembles", "methods") * _n(config, "ensembles", "splits")
            * _n(config, "repeats"))
    return (f"{count_words(value)} models fitted per ensemble, in {runs} ensembles "
            f"({count_words(value * runs)} fits)")


def _estimators(config: Mapping[str, Any], value: int) -> str:
    folds = _n(config, "comparison", "n_folds") * _n(config, "comparison", "cv_repeats")
    return (f"{count_words(value)} models per ensemble in each of {folds} folds of each data set "
            f"({count_words(value * folds)} fits per data set)")


def _kernels(config: Mapping[str, Any], value: int) -> str:
    return (f"each EM iteration of a mixture of {count_words(value)} kernels computes "
            f"{count_words(value)} densities per row, and its responsibilities take "
            f"{_bytes(value * _FLOAT * 1000)} per 1000 rows")


def _iterations(config: Mapping[str, Any], value: int) -> str:
    return f"up to {count_words(value)} iterations (or rounds) of every fit that reads it"


def _fits(config: Mapping[str, Any], value: int) -> str:
    return f"{count_words(value)} fits per job that reads it"


#: What a size costs, by the schema's ``x-cost``: a sentence for a value.
COSTS: dict[str, Callable[[Mapping[str, Any], int], str]] = {
    "repeats": _repeats, "cv_fits": _cv_fits, "posterior": _posterior, "grid": _grid,
    "hidden_units": _hidden, "epochs": _epochs, "members": _members,
    "estimators": _estimators, "kernels": _kernels, "iterations": _iterations, "fits": _fits,
}
