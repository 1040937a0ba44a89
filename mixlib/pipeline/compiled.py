"""Compile the numba loops once per run, before the jobs that call them.

numba compiles a ``cache=True`` function on its first call with given argument types and
writes the machine code to its cache (``NUMBA_CACHE_DIR``, which ``workflow/rules/common.smk``
sets to ``.snakemake/numba_cache`` for every job); a later process loads it from there
(0.3-0.6 s of CPU, plus numba's import). On a fresh checkout every job that started before the
cache was written compiled the same loops (up to 30 s, in the first fold of a comparison). So
the workflow runs :func:`warm` for each compiled module in a job of its own (rule
``compile_numba``), before every job that may call it (``compiled_code`` in
``workflow/rules/common.smk``, from the job's module closure). Loading the cache, and any other
first-call cost, stays out of the timed fits by an untimed warm-up fit in the timing stages
(:func:`mixlib.model_selection.resampling.score_units`). No job imports this module: its
warm-ups import every estimator with compiled code, which would put them in every job's code
fingerprint.

Each warm-up is a tiny fit of the estimator that calls the module, on data chosen to reach
every argument type the study's fits pass (e.g. both integer types of a tree's (rank, class)
codes), so that no job compiles.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

#: The compiled modules, each with the warm-up that reaches its argument types.
COMPILED_MODULES = (
    "mixlib.tree._histogram_search",
    "mixlib.svm._smo_loop",
    "mixlib.svm._all_together_loop",
    "mixlib.linear_model._sparse_loop",
    "mixlib.neural_network._epoch_loop",
    "mixlib.mixture._em_loop",
)

#: Where the compile rule writes one marker file per module: ``<module>.done``.
MARKER_DIRECTORY = "results/compiled"


def _warm_trees() -> None:
    from mixlib.ensemble import AdaBoostClassifier
    from mixlib.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    y = np.arange(400) % 2
    # A few values per feature: uint8 (rank, class) codes; 200 values x 2 classes: uint16.
    for n_values in (3, 200):
        X = rng.integers(0, n_values, size=(400, 3)).astype(float)
        for max_features in (None, 2):  # every feature in order, and a drawn permutation
            DecisionTreeClassifier(max_features=max_features, random_state=0).fit(X, y)
        # boosted stumps search weighted histograms: specialisations of their own
        AdaBoostClassifier(n_estimators=2, random_state=0).fit(X, y)


def _warm_smo() -> None:
    from mixlib.svm import SVC

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)), np.arange(30) % 3
    SVC().fit(X, y)  # rows from the full Gram matrix
    SVC(cache_size=1e-3).fit(X, y)  # rows from the row cache


def _warm_all_together() -> None:
    from mixlib.svm import AllTogetherSVC

    rng = np.random.default_rng(0)
    AllTogetherSVC().fit(rng.normal(size=(30, 2)), np.arange(30) % 3)


def _warm_sparse() -> None:
    from mixlib.linear_model import LogisticRegression

    X = np.eye(12)[np.arange(30) % 12]  # one-hot rows: fitted through the sparse products
    for n_classes in (2, 3):
        LogisticRegression().fit(X, np.arange(30) % n_classes)


def _warm_mlp() -> None:
    from mixlib.neural_network import MLPClassifier

    # One signature: every fit passes float64 arrays (C order), an int batch size and floats.
    rng = np.random.default_rng(0)
    MLPClassifier(hidden_size=2, n_epochs=1, random_state=0).fit(rng.normal(size=(30, 2)),
                                                                 np.arange(30) % 3)


def _warm_em() -> None:
    from mixlib.mixture import IsotropicGaussianMixture

    rng = np.random.default_rng(0)
    X = np.asfortranarray(rng.normal(size=(20, 2)))  # the fit passes C-contiguous copies
    for sample_weight in (None, rng.uniform(0.5, 1.5, size=20)):  # unit and other weights
        IsotropicGaussianMixture(2, max_iter=3, random_state=0).fit(X, sample_weight=sample_weight)


_WARM_UPS: dict[str, Callable[[], None]] = dict(
    zip(COMPILED_MODULES, (_warm_trees, _warm_smo, _warm_all_together, _warm_sparse, _warm_mlp,
                           _warm_em),
        strict=True)
)


def warm(module: str) -> None:
    """Compile, or load from numba's cache, every function of a compiled module under the
    argument types the study's fits pass, by a tiny fit of the estimator that calls it.

    Parameters
    ----------
    module : str
        One of :data:`COMPILED_MODULES`.
    """
    if module not in _WARM_UPS:
        raise ValueError(f"no compiled module {module!r}; expected one of {COMPILED_MODULES}")
    with warnings.catch_warnings():  # a tiny fit's convergence is not the job's concern
        warnings.simplefilter("ignore")
        _WARM_UPS[module]()


def marker_path(module: str) -> str:
    """The marker file the compile rule writes once ``module`` is compiled."""
    return f"{MARKER_DIRECTORY}/{module}.done"


def modules_used(files: Iterable[Path | str]) -> list[str]:
    """The compiled modules among a job's source files (:func:`mixlib.pipeline.fingerprint.job_files`)."""
    names = {Path(path).as_posix().removesuffix(".py").replace("/", ".") for path in files}
    return [module for module in COMPILED_MODULES if any(name.endswith(module) for name in names)]
