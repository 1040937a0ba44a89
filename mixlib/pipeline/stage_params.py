"""Every estimator setting of the stage sections, validated before any job by the estimator's
or the stage function's own checks, and named by its config key.

Each stage section is run, on a small well separated data set (:func:`probe_data`), through
the function its jobs call, with its sizes cut to the least that exercises every setting
(:data:`PROBE_CAPS`: the bounds of :mod:`mixlib.pipeline.limits` have checked the sizes
themselves): ``svm.grid`` (:func:`mixlib.model_selection.evaluation.grid_level_axes` on each
range, then the SVM at each end of each range), ``svm.mkl``, ``svm.svdd``, ``mlp.training``
(each regime, the smallest hidden size), ``ensembles.trees`` (each method), ``em`` (the study's
mixture) and the comparison's Bayesian test (``rope``, ``bayes_prior_strength``,
``bayes_samples``). An invalid value fails there as it would in every job; the message is
re-labelled with the config key of the parameter it names (:func:`relabel`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

#: Work sizes cut for the probe fits, when given as integers (an invalid one is left as is,
#: so that the estimator refuses it).
PROBE_CAPS = {"n_epochs": 2, "mkl_max_iter": 2, "max_iter": 5, "n_points": 4, "n_folds": 3,
              "max_members": 2, "n_estimators": 2, "n_samples": 100}
#: Settings bounded by the data's features, cut to the probe's 3 (a larger value is checked
#: by the job, against the real data).
FEATURE_BOUNDED = ("max_features",)
#: The estimator parameter each ensembles.trees key sets, per method (its catalogue model).
_TREE_MODEL = {"tree": "tree_unpruned", "id3": "id3", "adaboost": "adaboost",
               "forest_simple": "random_forest", "forest_oob_weighted": "random_forest"}
#: The Bayesian test's parameters, by the comparison key that sets each.
_BAYES_KEYS = {"rope": "rope", "prior_strength": "bayes_prior_strength",
               "n_samples": "bayes_samples"}


def probe_data(repeat: int = 0) -> Any:
    """Three well separated classes of 12 rows and 3 features, as roles ``train`` and
    ``test`` (a :class:`~mixlib.experiments.contract.RepeatData`): any valid setting fits it."""
    from mixlib.experiments.contract import RepeatData

    rng = np.random.default_rng(0)
    y = np.repeat(np.array(["a", "b", "c"]), 12)
    X = rng.normal(size=(36, 3)) + 4.0 * (np.arange(36)[:, None] // 12)
    return RepeatData.of(repeat, train=(X, y), test=(X[::3], y[::3]))


def capped(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the work sizes of :data:`PROBE_CAPS` and the feature counts of
    :data:`FEATURE_BOUNDED` cut, when they are valid integers."""
    caps = {**PROBE_CAPS, **{key: 3 for key in FEATURE_BOUNDED}}
    return {key: min(value, caps[key]) if key in caps and isinstance(value, int)
            and not isinstance(value, bool) and value >= 1 else value
            for key, value in params.items()}


def relabel(section: str, exc: Exception, keys: Mapping[str, str]) -> ValueError:
    """The estimator's message ``"<parameter> must be ..."`` named by its config key:
    ``section.keys[parameter]`` when the message starts with a parameter of ``keys``
    (estimator parameter -> config key), else ``section``."""
    message = str(exc)
    first = message.split(" ", 1)[0].split("=", 1)[0].strip(":,'\"")
    where = f"{section}.{keys[first]}" if first in keys else section
    return ValueError(f"{where}{'' if where.endswith(' and') else ':'} {message}")


def _run(section: str, keys: Mapping[str, str], call: Callable[[], Any]) -> None:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # a short fit's convergence is not the question
            call()
    except (ValueError, TypeError) as exc:
        raise relabel(section, exc, keys) from None
    except ArithmeticError as exc:  # a value the estimator accepts but cannot compute with
        raise ValueError(f"{section}: these settings fail on a small well separated data set "
                         f"with {type(exc).__name__}: {exc}; check the values of "
                         f"{sorted(set(keys.values()))}.") from None


def _same(names: Any) -> dict[str, str]:
    return {name: name for name in names}


def check_svm(section: Mapping[str, Any]) -> None:
    """``svm.grid``, ``svm.mkl`` and ``svm.svdd`` (see module)."""
    from mixlib.catalogue.registry import make_model
    from mixlib.experiments.svm import mkl_run, svdd_run
    from mixlib.model_selection.evaluation import grid_level_axes

    X, y = probe_data()["train"]
    grid = section["grid"]
    tol = {"tol": grid["tol"]} if "tol" in grid else {}
    _run("svm.grid", _same(grid), lambda: make_model("svm", tol).fit(X, y))
    for key, parameter in (("log10_C_range", "C"), ("log10_sigma_range", "sigma")):
        where = f"svm.grid.{key}"
        ends = tuple(grid[key])
        _run(where, {}, lambda: grid_level_axes(0, ends, (0.0, 1.0), 4))
        for end in ends:
            with np.errstate(over="ignore"):
                value = float(np.power(10.0, np.float64(end)))  # as the grid's jobs compute it
            _run(f"{where}: the end {end!r} gives {parameter} = 10^{end!r} = {value:g}, and",
                 {}, lambda: make_model("svm", {"C": 1.0, "sigma": 1.0,
                                                parameter: value}).fit(X, y))
    mkl = capped(section["mkl"])
    _run("svm.mkl", _same(mkl), lambda: mkl_run(probe_data(), params=mkl))
    _run("svm.svdd", _same(section["svdd"]), lambda: svdd_run(probe_data(), params=section["svdd"]))


def check_mlp(section: Mapping[str, Any]) -> None:
    """``mlp.training``: each regime with the smallest hidden size."""
    from mixlib.experiments.mlp import mlp_sweep_point

    training = capped(section.get("training", {}))
    for regime in section["regimes"]:
        _run("mlp.training", _same(training), lambda: mlp_sweep_point(
            probe_data(), regime=regime, hidden_size=min(section["hidden_sizes"]),
            params=training, rng=0))


def check_ensembles(section: Mapping[str, Any], em: Any) -> None:
    """``ensembles.trees`` (and ``base_mixture``): each method with two members."""
    from mixlib.experiments.ensembles import TREE_SETTINGS, ensemble_point

    for method in section["methods"]:
        model = _TREE_MODEL.get(method)
        keys = {parameter: key for key, parameter in TREE_SETTINGS.get(model, {}).items()}
        _run("ensembles.trees", keys, lambda: ensemble_point(
            probe_data(), method=method, max_members=PROBE_CAPS["max_members"],
            params=capped(section.get("trees", {})),
            base_kernels=section["base_mixture"]["n_components"] if method == "bagging_base"
            else None, em=em if method == "bagging_base" else None,
            rng=np.random.default_rng(0)))


def check_em(em: Any) -> None:
    """``em``: the study's mixture classifier fitted with the EM settings."""
    from mixlib.catalogue.settings import make_mixture

    X, y = probe_data()["train"]
    settings = em._replace(max_iter=min(em.max_iter, PROBE_CAPS["max_iter"])) \
        if isinstance(em.max_iter, int) else em
    _run("em", _same(em._fields), lambda: make_mixture(2, settings, 0).fit(X, y))


def check_bayes(section: Mapping[str, Any]) -> None:
    """The comparison's Bayesian signed-rank test with ``rope``, ``bayes_prior_strength``
    and ``bayes_samples``, on two columns of errors."""
    from mixlib.model_selection.across_datasets import bayesian_signed_rank

    a, b = np.array([0.1, 0.2, 0.3]), np.array([0.15, 0.2, 0.25])
    given = capped({parameter: section[key] for parameter, key in _BAYES_KEYS.items()
                    if key in section})
    _run("comparison", _BAYES_KEYS, lambda: bayesian_signed_rank(a, b, rng=0, **given))


def check_stage_params(config: Mapping[str, Any], em: Any) -> None:
    """Run every check of this module for the sections the config has (``em``: the study's
    :class:`~mixlib.catalogue.settings.EMSettings`)."""
    check_em(em)
    if "svm" in config:
        check_svm(config["svm"])
    if "mlp" in config:
        check_mlp(config["mlp"])
    if "ensembles" in config:
        check_ensembles(config["ensembles"], em)
    if "comparison" in config:
        check_bayes(config["comparison"])
