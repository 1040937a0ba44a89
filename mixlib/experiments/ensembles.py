"""Ensemble experiments of seed 004 (part II): error against ensemble size, with OOB error.

Pipeline granularity: one job per (split, method) runs :func:`ensemble_stage` on every repeat;
its stage function :func:`ensemble_point` calls :func:`ensemble_curve`, which fits the
ensemble once with ``max_members`` members and reads the whole curve from
the staged votes (members 1, 2, ..., B), so one fit gives every ensemble size. A single tree
and ID3 are baselines in the same table (one row, ``n_members = 1``).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state
from mixlib.experiments.contract import RepeatData, Stage
from mixlib.ensemble import AdaBoostClassifier, BaggingClassifier, RandomForestClassifier
from mixlib.experiments.registry import make_mixture
from mixlib.tree import DecisionTreeClassifier, ID3Classifier

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

#: Settings unless ``params`` overrides them.
ENSEMBLE_DEFAULTS: dict[str, Any] = {
    "criterion": "gini",  # trees of every method but ID3
    "tree_max_depth": None,  # single tree, bagged trees and forest trees
    "min_samples_leaf": 1,
    "max_features": "sqrt",  # forests only
    "adaboost_max_depth": 1,  # 1 = stumps
    "learning_rate": 1.0,
    "id3_max_depth": None,
}

COLUMNS = ["method", "n_members", "test_error", "oob_error", "fit_seconds"]


def _merge(params: dict[str, Any] | None) -> dict[str, Any]:
    unknown = set(params or {}) - set(ENSEMBLE_DEFAULTS)
    if unknown:
        raise ValueError(
            f"unknown ensemble parameter(s) {sorted(unknown)}; expected keys among "
            f"{sorted(ENSEMBLE_DEFAULTS)}."
        )
    return {**ENSEMBLE_DEFAULTS, **(params or {})}


def _tree(p: dict[str, Any], max_features=None) -> DecisionTreeClassifier:
    return DecisionTreeClassifier(
        criterion=p["criterion"],
        max_depth=p["tree_max_depth"],
        min_samples_leaf=p["min_samples_leaf"],
        max_features=max_features,
    )


def _staged_errors(staged, y_test: np.ndarray) -> np.ndarray:
    return np.array([np.mean(pred != y_test) for pred in staged])


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
    params : dict, optional
        Overrides of :data:`ENSEMBLE_DEFAULTS`.
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
        of ``params`` (after defaults). No index.
    """
    if method not in ENSEMBLE_METHODS:
        raise ValueError(f"method must be one of {ENSEMBLE_METHODS}, got {method!r}.")
    if not isinstance(max_members, (int, np.integer)) or max_members < 1:
        raise ValueError(f"max_members must be an int >= 1, got {max_members!r}.")
    p = _merge(params)
    rng = check_random_state(rng)
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    y_test = np.asarray(y_test)
    start = time.perf_counter()
    oob = None
    if method == "tree":
        model = _tree(p).set_params(random_state=rng).fit(X_train, y_train)
        test = np.array([np.mean(model.predict(X_test) != y_test)])
    elif method == "id3":
        model = ID3Classifier(max_depth=p["id3_max_depth"]).fit(X_train, y_train)
        test = np.array([np.mean(model.predict(X_test) != y_test)])
    elif method == "adaboost":
        base = DecisionTreeClassifier(criterion=p["criterion"], max_depth=p["adaboost_max_depth"])
        model = AdaBoostClassifier(
            base, n_estimators=max_members, learning_rate=p["learning_rate"], random_state=rng
        ).fit(X_train, y_train)
        test = _staged_errors(model.staged_predict(X_test), y_test)
    else:
        if method == "bagging_base":
            if base_estimator is None:
                raise ValueError("method 'bagging_base' needs a base_estimator.")
            model = BaggingClassifier(base_estimator, n_estimators=max_members, random_state=rng)
        else:
            model = RandomForestClassifier(
                n_estimators=max_members,
                criterion=p["criterion"],
                max_depth=p["tree_max_depth"],
                min_samples_leaf=p["min_samples_leaf"],
                max_features=None if method == "bagging_tree" else p["max_features"],
                vote="oob_weighted" if method == "forest_oob_weighted" else "simple",
                random_state=rng,
            )
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
                   params: dict[str, Any] | None, base_mixture: dict[str, Any] | None,
                   rng: np.random.Generator) -> pd.DataFrame:
    """:func:`ensemble_curve` of one method on one repeat; ``bagging_base`` bags the mixture classifier.

    For ``bagging_base`` the base estimator is the study's mixture classifier
    (:func:`mixlib.experiments.registry.make_mixture`) with ``base_mixture["n_components"]``
    kernels per class and the EM settings among ``base_mixture``, and, as ``random_state``,
    one integer drawn from ``rng`` first; ``rng`` then drives the ensemble. Other methods
    ignore ``base_mixture`` (None for them in the pipeline, so a change of the EM settings
    does not rerun them).
    """
    base = None
    if method == "bagging_base":
        if base_mixture is None:
            raise ValueError("bagging_base bags the mixture classifier: it needs base_mixture "
                             "(n_components and the EM settings).")
        base = make_mixture(base_mixture["n_components"], base_mixture, int(rng.integers(2**32)))
    return ensemble_curve(data, method=method, max_members=max_members, params=params, rng=rng,
                          base_estimator=base)


def ensemble_stage(*, split: str, method: str, max_members: int, params: dict[str, Any] | None,
                   base_mixture: dict[str, Any] | None) -> Stage:
    """The ``ensemble_curve`` rule: :func:`ensemble_point` of one method on every repeat.

    Repeat ``r`` draws from ``generator(seed, "ensembles", split, method, r)``; the table
    gets ``repeat`` and ``dataset`` (the split's name) columns at its end.
    """
    return Stage(ensemble_point, {"method": method, "max_members": max_members, "params": params,
                                  "base_mixture": base_mixture},
                 keys=("ensembles", split, method), trailing={"dataset": split})
