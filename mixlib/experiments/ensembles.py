"""Ensemble experiments of the course notes on ensembles: error against ensemble size, with
OOB error.

Pipeline granularity: one job per (split, method) runs :func:`ensemble_job` on every repeat;
its stage function :func:`ensemble_point` calls :func:`ensemble_curve`, which fits the
ensemble once with ``max_members`` members and reads the whole curve from the staged votes
(members 1, 2, ..., B), so one fit gives every ensemble size. A single tree and ID3 are
baselines in the same table (one row, ``n_members = 1``). Every model, the base learners
included, is built by the catalogue (:func:`mixlib.catalogue.registry.make_model`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state
from mixlib.experiments.contract import RepeatData, run_repeats
from mixlib.catalogue.registry import make_mixture, make_model
from mixlib.catalogue.settings import EMSettings
from mixlib.model_selection.resampling import warm_up

logger = logging.getLogger(__name__)

#: Methods of :func:`ensemble_curve`.
ENSEMBLE_METHODS = (
    "tree",
    "id3",
    "bagging_tree",
    "bagging_base",
    "adaboost",
    "forest_simple",
    "forest_oob_weighted",
)

#: The tree keys of the stage (the config's ``ensembles.trees``) -> the catalogue
#: parameter each one sets, per catalogue model: ``criterion`` is that of every tree but ID3's,
#: ``tree_max_depth`` the depth of the single, bagged and forest trees, ``max_features`` the
#: candidate features per split of a forest's trees, ``adaboost_max_depth`` the depth of the
#: boosted trees (1: stumps).
TREE_KEYS: dict[str, dict[str, str]] = {
    "tree_unpruned": {"criterion": "criterion", "tree_max_depth": "max_depth",
             "min_samples_leaf": "min_samples_leaf"},
    "id3": {"id3_max_depth": "max_depth"},
    "random_forest": {"criterion": "criterion", "tree_max_depth": "max_depth",
                      "min_samples_leaf": "min_samples_leaf", "max_features": "max_features"},
    "adaboost": {"criterion": "criterion", "adaboost_max_depth": "max_depth",
                 "learning_rate": "learning_rate"},
}

#: The single-model baselines (methods): ``tree`` fits the catalogue's ``tree_unpruned``,
#: ``id3`` its ``id3``.
BASELINES = ("tree", "id3")

COLUMNS = ["method", "n_members", "test_error", "oob_error", "fit_seconds"]


def _check_trees(trees: Mapping[str, Any] | None) -> dict[str, Any]:
    known = {key for keys in TREE_KEYS.values() for key in keys}
    unknown = set(trees or {}) - known
    if unknown:
        raise ValueError(f"unknown ensembles.trees key(s) {sorted(unknown)}; expected keys among "
                         f"{sorted(known)}.")
    return dict(trees or {})


def _params(model: str, trees: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    """The catalogue parameters of ``model`` that the tree keys ``trees`` give, plus ``more``."""
    return {parameter: trees[key] for key, parameter in TREE_KEYS[model].items()
            if key in trees} | more


def _staged_errors(staged, y_test: np.ndarray) -> np.ndarray:
    return np.array([np.mean(pred != y_test) for pred in staged])


def _build(method: str, p: dict[str, Any], max_members: int, rng: np.random.Generator,
           base_estimator: Any) -> Any:
    """The unfitted model of an ensemble curve (see :func:`ensemble_curve`)."""
    if method in BASELINES:  # each model named, so a job's code fingerprint names its builders
        if method == "id3":
            return make_model("id3", _params("id3", p))
        return make_model("tree_unpruned", _params("tree_unpruned", p), rng)
    if method == "adaboost":
        return make_model("adaboost", _params("adaboost", p, n_estimators=max_members), rng)
    if method == "bagging_base":
        if base_estimator is None:
            raise ValueError("method 'bagging_base' needs a base_estimator.")
        model = make_model("bagging", {"n_estimators": max_members}, rng)
        model.set_params(base_estimator=base_estimator)
        return model
    vote = "oob_weighted" if method == "forest_oob_weighted" else "simple"
    features = {"max_features": None} if method == "bagging_tree" else {}
    forest = _params("random_forest", p, n_estimators=max_members, vote=vote, **features)
    return make_model("random_forest", forest, rng)


def ensemble_curve(
    data: RepeatData,
    *,
    method: str,
    max_members: int,
    params: dict[str, Any] | None = None,
    rng: None | int | np.random.Generator = None,
    base_estimator=None,
) -> pd.DataFrame:
    """Test and OOB error of one ensemble against its number of members.

    Parameters
    ----------
    data : RepeatData
        Roles ``train`` (numeric, no NaN, e.g. splice one-hot; for ``"id3"`` any categorical
        coding works: each distinct value of a column is a category, splice ordinal codes or
        raw letters) and ``test``.
    method : str
        One of :data:`ENSEMBLE_METHODS`: ``"tree"`` and ``"id3"`` (single-model baselines),
        ``"bagging_tree"`` (bagged trees: a forest with every feature a candidate at every
        split, i.e. each tree grown on its bootstrap sample, given as count weights, and a
        simple vote; grown together, so much faster than member-by-member bagging),
        ``"bagging_base"`` (bagging of
        ``base_estimator``), ``"adaboost"`` (SAMME on stumps or trees of depth
        ``adaboost_max_depth``), ``"forest_simple"`` / ``"forest_oob_weighted"`` (random
        forest with a simple or OOB-accuracy-weighted vote).
    max_members : int
        Members B of the fitted ensemble; the table has one row per size 1..B (AdaBoost can
        stop earlier, on a perfect or chance-level member). Ignored by the baselines.
    params : mapping, optional
        The ``ensembles.trees`` values (keys of :data:`TREE_KEYS`); those left out take the estimators'
        defaults.
    rng : None, int or numpy.random.Generator
        Source of the bootstrap samples and feature draws (derive it from the job's seed).
    base_estimator : estimator, optional
        Required by ``"bagging_base"``: any classifier with ``fit(X, y)``/``predict(X)`` and
        ``get_params`` (e.g. :class:`mixlib.mixture.MixtureClassifier`); cloned per member.

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``n_members``, ``test_error`` and ``oob_error`` (fractions in
        [0, 1]; ``oob_error`` is NaN for methods without bootstrap: baselines and AdaBoost),
        ``fit_seconds`` (of the whole fit, same on every row), then one column per setting
        of ``params``. No index.
    """
    if method not in ENSEMBLE_METHODS:
        raise ValueError(f"method must be one of {ENSEMBLE_METHODS}, got {method!r}.")
    if not isinstance(max_members, (int, np.integer)) or max_members < 1:
        raise ValueError(f"max_members must be an int >= 1, got {max_members!r}.")
    p = _check_trees(params)
    rng = check_random_state(rng)
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    y_test = np.asarray(y_test)
    model = _build(method, p, max_members, rng, base_estimator)
    # An untimed fit of a two-member model on a few rows first: the process's first-call
    # costs (compiled loops loaded from numba's cache, lazy imports) stay out of fit_seconds.
    warm_up(lambda X, warm_rng: _build(method, p, min(max_members, 2), warm_rng, base_estimator),
            X_train, np.asarray(y_train))
    start = time.perf_counter()
    oob = None
    if method in BASELINES:
        test = np.array([np.mean(model.fit(X_train, y_train).predict(X_test) != y_test)])
    elif method == "adaboost":
        test = _staged_errors(model.fit(X_train, y_train).staged_predict(X_test), y_test)
    else:
        model.fit(X_train, y_train)
        test = _staged_errors(model.staged_predict(X_test), y_test)
        oob = model.oob_error_curve_
    seconds = time.perf_counter() - start
    logger.info(
        "%s: %d member(s), final test error %.4f, OOB error %s (%.1f s)",
        method, test.shape[0], test[-1], "n/a" if oob is None else f"{oob[-1]:.4f}", seconds,
    )
    table = pd.DataFrame(
        {
            "method": method,
            "n_members": np.arange(1, test.shape[0] + 1),
            "test_error": test,
            "oob_error": np.full(test.shape[0], np.nan) if oob is None else oob,
            "fit_seconds": seconds,
        }
    )
    for key, value in p.items():
        table[key] = "none" if value is None else value
    return table


def ensemble_point(data: RepeatData, *, method: str, max_members: int,
                   params: Mapping[str, Any] | None, base_kernels: int | None,
                   em: EMSettings | None, rng: np.random.Generator) -> pd.DataFrame:
    """:func:`ensemble_curve` of one method on one repeat; ``bagging_base`` bags the mixture classifier.

    For ``bagging_base`` the base estimator is the study's mixture classifier
    (:func:`mixlib.catalogue.registry.make_mixture`) with ``base_kernels`` kernels per class
    and the EM settings ``em``, and, as ``random_state``, one integer drawn from ``rng`` first;
    ``rng`` then drives the ensemble. Other methods take neither (None for them in the
    pipeline, so a change of the EM settings does not rerun them).
    """
    base = None
    if method == "bagging_base":
        if base_kernels is None or em is None:
            raise ValueError("bagging_base bags the mixture classifier: it needs base_kernels "
                             "and the EM settings em.")
        base = make_mixture(base_kernels, em, int(rng.integers(2**32)))
    return ensemble_curve(data, method=method, max_members=max_members, params=params, rng=rng,
                          base_estimator=base)


def ensemble_job(repeats: Sequence[RepeatData], *, seed: int, split: str, method: str,
                 max_members: int, params: Mapping[str, Any] | None, base_kernels: int | None,
                 em: EMSettings | None) -> pd.DataFrame:
    """The ``ensemble_curve`` rule: :func:`ensemble_point` of one method on every repeat.

    Repeat ``r`` draws from ``generator(seed, "ensembles", split, method, r)``; the table
    gets ``repeat`` and ``dataset`` (the split's name) columns at its end.
    """
    table = run_repeats(ensemble_point, repeats,
                        {"method": method, "max_members": max_members, "params": params,
                         "base_kernels": base_kernels, "em": em},
                        seed=seed, keys=("ensembles", split, method))
    return table.assign(dataset=split)
