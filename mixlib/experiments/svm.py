"""SVM experiments of the course notes on SVMs: refined (C, sigma) grid search by
cross-validation, refit of the best point, multiple kernel learning, and SVDD one-class
detectors.

Pipeline granularity: one job per (data set, grid level) runs :func:`svm_grid_level` and
spreads its grid cells over ``n_jobs`` worker processes; level ``l`` reads the tables of levels
``0 .. l-1`` to centre its grid. :func:`svm_refit_best` reads all levels. Each is a stage
function of one repeat (:mod:`mixlib.experiments.contract`): its ``train`` and ``test`` rows
(imputed, standardised where configured). The ``*_job`` functions run them for the pipeline's
jobs: these searches are costly, so they run on repeat 0 only. Every SVM, MKL and SVDD
model is built by the catalogue (:func:`mixlib.catalogue.registry.make_model`); a setting
left out of ``params`` takes the estimator's default.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator
from mixlib.experiments.contract import RepeatData, run_repeats
from mixlib.catalogue.registry import make_model
from mixlib.model_selection.evaluation import (
    best_grid_point,
    class_rates,
    confusion_matrix,
    evaluate_grid,
    grid_level_axes,
)
from mixlib.model_selection.resampling import stratified_folds

logger = logging.getLogger(__name__)

#: Settings of the grid search (the config's ``svm.grid`` but ``n_levels``, which is the
#: workflow's): required ones, then the SVC's own, which default to the estimator's.
GRID_REQUIRED = ("log10_C_range", "log10_sigma_range", "n_points", "n_folds",
                 "significance_level")
GRID_OPTIONAL = ("kernel", "tol")
GRID_METRICS = ("cv_error", "cv_std", "ci_low", "ci_high")
#: Settings of the MKL run (``svm.mkl``): the Gaussian widths and whether to add the linear
#: kernel, then the MKL model's own.
MKL_REQUIRED = ("sigmas", "linear")
MKL_OPTIONAL = ("C", "tol", "mkl_max_iter", "gap_tol")
#: Settings of the SVDD run (``svm.svdd``): ``nu``, the target outlier fraction on the training
#: rows of a class (``C = 1 / (n_c nu)``), then the SVDD's own.
SVDD_REQUIRED = ("nu",)
SVDD_OPTIONAL = ("sigma", "tol")


def _settings(params: Mapping[str, Any] | None, required: tuple[str, ...],
              optional: tuple[str, ...], what: str) -> dict[str, Any]:
    """``params`` checked: every required key present, no key outside both lists."""
    params = dict(params or {})
    unknown = set(params) - set(required) - set(optional)
    missing = [key for key in required if key not in params]
    if unknown or missing:
        raise ValueError(f"{what} settings: unknown {sorted(unknown)}, missing {missing}; "
                         f"expected {list(required)} and optionally {list(optional)}.")
    return params


def _given(p: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {key: p[key] for key in keys if key in p}


def _prepend_columns(table: pd.DataFrame, setting: dict[str, Any]) -> None:
    """Insert a constant column per entry of ``setting`` at the front of ``table``, in order."""
    for position, (column, value) in enumerate(setting.items()):
        table.insert(position, column, value)


def _grid_wide(table: pd.DataFrame) -> pd.DataFrame:
    """Long grid table -> one row per (level, log10_C, log10_sigma), a column per metric."""
    return (table.pivot_table(index=["level", "log10_C", "log10_sigma"], columns="metric",
                              values="value")
            .reset_index().rename_axis(columns=None))


def svm_grid_level(
    data: RepeatData,
    *,
    level: int,
    previous: pd.DataFrame | None,
    params: dict[str, Any] | None,
    rng: np.random.Generator | int,
    dataset: str = "data",
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Cross-validated error of every ``(C, sigma)`` of one level of the refined grid.

    Parameters
    ----------
    data : RepeatData
        Uses the role ``train``: inputs without NaN (e.g. splice one-hot, 1000 rows) and
        their classes.
    level : int
        0 for the coarse grid; ``l >= 1`` refines around the best point of ``previous``
        (:func:`mixlib.model_selection.evaluation.grid_level_axes`).
    previous : pandas.DataFrame or None
        Concatenated tables of this function for levels ``0 .. level-1`` of the same data set
        (None for level 0).
    params : dict
        The grid's settings: ``log10_C_range``, ``log10_sigma_range`` (coarse-grid ends,
        decades), ``n_points`` (per axis, >= 4), ``n_folds`` (K), ``significance_level`` (of
        the intervals: level ``1 - significance_level``), and optionally ``kernel`` (only
        "gaussian": the grid is over its width sigma) and ``tol`` (SMO tolerance).
    rng : numpy.random.Generator or int
        Draws the stratified folds. Pass the same seed for every level of a data set: every
        level then uses the same folds (and the levels stay comparable).
    dataset : str
        Value of the ``dataset`` column.
    n_jobs : int
        Worker processes over the grid cells (give the job's ``threads``). SMO is a Python
        loop holding the GIL, so processes, not threads; the result does not depend on it.

    Returns
    -------
    pandas.DataFrame
        Tidy, ``4 * n_points^2`` rows, no index, columns ``dataset``, ``method`` ("svm"),
        ``kernel``, ``level``, ``log10_C``, ``log10_sigma``, ``C``, ``sigma``, ``n_folds``,
        ``alpha`` (the significance level), ``metric``, ``value``. Metrics: ``cv_error`` (mean fold error ``e``, a
        fraction), ``cv_std`` (``s``), ``ci_low`` and ``ci_high``
        (``e -/+ t_{alpha/2, K-1} s / sqrt(K)``).
    """
    p = _settings(params, GRID_REQUIRED, GRID_OPTIONAL, "grid")
    X_train, y_train = data["train"]
    if p.get("kernel", "gaussian") != "gaussian":
        raise ValueError(f"the (C, sigma) grid needs kernel='gaussian', got {p['kernel']!r}.")
    best = None
    if level > 0:
        if previous is None or previous.empty:
            raise ValueError(f"level {level} needs the tables of the previous levels.")
        earlier = previous[previous["level"] < level]
        best = best_grid_point(_grid_wide(earlier))
    log_C, log_sigma = grid_level_axes(level, tuple(p["log10_C_range"]),
                                       tuple(p["log10_sigma_range"]), p["n_points"], best)
    folds = stratified_folds(np.asarray(y_train), p["n_folds"], rng)
    start = time.perf_counter()
    svm = make_model("svm", {"kernel": "gaussian", **_given(p, "tol")})
    wide = evaluate_grid(svm, X_train, y_train, log_C, log_sigma, folds,
                         significance_level=p["significance_level"], n_jobs=n_jobs)
    logger.info("%s grid level %d: %d cells x %d folds in %.1f s", dataset, level, len(wide),
                p["n_folds"], time.perf_counter() - start)
    long = wide.melt(id_vars=["log10_C", "log10_sigma", "C", "sigma"],
                     value_vars=list(GRID_METRICS), var_name="metric", value_name="value")
    _prepend_columns(long, {"dataset": dataset, "method": "svm", "kernel": "gaussian",
                            "level": int(level)})
    long.insert(8, "n_folds", int(p["n_folds"]))
    long.insert(9, "alpha", float(p["significance_level"]))
    return long


def svm_refit_best(
    data: RepeatData,
    *,
    grid: pd.DataFrame,
    params: dict[str, Any] | None = None,
    dataset: str = "data",
) -> pd.DataFrame:
    """Refit the best ``(C, sigma)`` of all grid levels on the training rows; score on test.

    Parameters
    ----------
    data : RepeatData
        Roles ``train`` and ``test``.
    grid : pandas.DataFrame
        Concatenated tables of :func:`svm_grid_level` for every level of this data set.
    params : dict or None
        The grid's settings (:func:`svm_grid_level`; only ``tol`` is used here).
    dataset : str
        Value of the ``dataset`` column.

    Returns
    -------
    pandas.DataFrame
        Tidy, no index, columns ``dataset``, ``method`` ("svm"), ``kernel``, ``level`` (of the
        best point), ``log10_C``, ``log10_sigma``, ``C``, ``sigma``, ``class`` ("all" or a
        class label), ``metric``, ``value``. Metrics with ``class == "all"``: ``cv_error``,
        ``ci_low``, ``ci_high`` (of the best point), ``train_error``, ``test_error``
        (fractions), ``n_support`` (support vectors); per class: ``sensitivity``,
        ``specificity``, ``precision`` on the test rows (NaN if undefined).
    """
    p = _settings(params, (), GRID_REQUIRED + GRID_OPTIONAL, "grid")
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    wide = _grid_wide(grid)
    log_C, log_sigma = best_grid_point(wide)
    best = wide[(wide["log10_C"] == log_C) & (wide["log10_sigma"] == log_sigma)].iloc[0]
    model = make_model("svm", {"C": 10.0**log_C, "sigma": 10.0**log_sigma, **_given(p, "tol")})
    model.fit(X_train, y_train)
    predicted = model.predict(X_test)
    values = {"cv_error": best["cv_error"], "ci_low": best["ci_low"],
              "ci_high": best["ci_high"],
              "train_error": float(np.mean(model.predict(X_train) != y_train)),
              "test_error": float(np.mean(predicted != y_test)),
              "n_support": float(len(model.support_))}
    logger.info("%s best log10 C = %.3f, log10 sigma = %.3f: CV %.4f [%.4f, %.4f], test %.4f",
                dataset, log_C, log_sigma, values["cv_error"], values["ci_low"],
                values["ci_high"], values["test_error"])
    rows = [("all", metric, float(value)) for metric, value in values.items()]
    rates = class_rates(confusion_matrix(y_test, predicted, model.classes_))
    for label, (_, rate) in zip(model.classes_, rates.iterrows()):
        rows.extend((str(label), metric, float(rate[metric])) for metric in rates.columns)
    table = pd.DataFrame(rows, columns=["class", "metric", "value"])
    _prepend_columns(table, {"dataset": dataset, "method": "svm", "kernel": "gaussian",
                             "level": int(best["level"]), "log10_C": log_C,
                             "log10_sigma": log_sigma, "C": 10.0**log_C, "sigma": 10.0**log_sigma})
    return table


def _kernel_label(spec: dict[str, Any]) -> str:
    return "linear" if spec["kernel"] == "linear" else f"gaussian sigma={spec['sigma']:g}"


def mkl_run(
    data: RepeatData,
    *,
    params: dict[str, Any] | None = None,
    dataset: str = "data",
) -> pd.DataFrame:
    """Multiple kernel learning over Gaussian kernels of several widths, against each kernel
    alone.

    Parameters
    ----------
    data : RepeatData
        Roles ``train`` (MKL keeps one Gram matrix per kernel: keep it around 1000 rows)
        and ``test``.
    params : dict
        ``sigmas`` (Gaussian widths), ``linear`` (add the linear kernel), and optionally
        ``C``, ``tol`` (SMO), ``mkl_max_iter``, ``gap_tol`` of the MKL model (``C`` and
        ``tol`` also of the SVM of each kernel alone).
    dataset : str
        Value of the ``dataset`` column.

    Returns
    -------
    pandas.DataFrame
        Tidy, no index, columns ``dataset``, ``method`` ("mkl" or "svm"), ``C``, ``kernel``
        (a label such as "gaussian sigma=2", or "combined" for the MKL model), ``step`` (MKL
        step for the trace rows, -1 otherwise), ``metric``, ``value``. Rows: per kernel,
        ``weight`` (its learned weight ``d_m``, method "mkl") and ``test_error`` of the SVM
        with that kernel alone (method "svm"); for "combined": ``train_error``,
        ``test_error``, ``duality_gap``, and ``objective`` ``J(d)`` at every step.
    """
    p = _settings(params, MKL_REQUIRED, MKL_OPTIONAL, "MKL")
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    specs = [{"kernel": "gaussian", "sigma": float(s)} for s in p["sigmas"]]
    if p["linear"]:
        specs.append({"kernel": "linear"})
    model = make_model("mkl", {"kernels": specs, **_given(p, *MKL_OPTIONAL)})
    model.fit(X_train, y_train)
    rows = []
    for spec, weight in zip(specs, model.kernel_weights_):
        rows.append(("mkl", _kernel_label(spec), -1, "weight", float(weight)))
        alone = make_model("svm", {**_given(p, "C", "tol"), **spec}).fit(X_train, y_train)
        rows.append(("svm", _kernel_label(spec), -1, "test_error",
                     float(np.mean(alone.predict(X_test) != y_test))))
    rows.append(("mkl", "combined", -1, "train_error",
                 float(np.mean(model.predict(X_train) != y_train))))
    rows.append(("mkl", "combined", -1, "test_error",
                 float(np.mean(model.predict(X_test) != y_test))))
    rows.append(("mkl", "combined", -1, "duality_gap", float(model.duality_gap_)))
    rows.extend(("mkl", "combined", step, "objective", float(value))
                for step, value in enumerate(model.objective_history_))
    table = pd.DataFrame(rows, columns=["method", "kernel", "step", "metric", "value"])
    table.insert(0, "dataset", dataset)
    table.insert(2, "C", float(model.C))
    return table


def svdd_run(
    data: RepeatData,
    *,
    params: dict[str, Any] | None = None,
    dataset: str = "data",
) -> pd.DataFrame:
    """One SVDD per class as a one-class detector, and the notes' "c SVDD" classifier.

    Parameters
    ----------
    data : RepeatData
        Roles ``train`` and ``test``.
    params : dict
        ``nu`` (target fraction of training rows of the class left outside,
        ``C = 1 / (n_c nu)``), and optionally ``sigma`` (Gaussian width) and ``tol`` of the
        SVDD.
    dataset : str
        Value of the ``dataset`` column.

    Returns
    -------
    pandas.DataFrame
        Tidy, no index, columns ``dataset``, ``method`` ("svdd"), ``nu``, ``sigma``,
        ``target_class`` (class whose rows trained the ball; "all" for the classifier),
        ``tested_class`` (class of the test rows; "all"), ``metric``, ``value``. Metrics:
        ``acceptance_rate`` (fraction of the tested class's test rows inside the ball: the
        detection rate when tested == target, a false acceptance rate otherwise),
        ``training_outlier_rate`` (training rows of the target outside), ``radius``; for
        the classifier ("all"): ``test_error`` (each test row goes to the class whose ball
        gives the largest ``1 - ||phi(x) - c||^2 / R^2``) and ``rejection_rate`` (test rows
        inside no ball).
    """
    p = _settings(params, SVDD_REQUIRED, SVDD_OPTIONAL, "SVDD")
    if not 0 < p["nu"] <= 1:
        raise ValueError(f"nu must be in (0, 1], got {p['nu']!r}.")
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    classes = np.unique(y_train)
    rows = []
    scores = np.empty((len(y_test), len(classes)))
    for k, target in enumerate(classes):
        X_c = X_train[y_train == target]
        model = make_model("svdd", {"C": 1.0 / (len(X_c) * p["nu"]),
                                    **_given(p, *SVDD_OPTIONAL)}).fit(X_c)
        decision = model.decision_function(X_test)
        inside = decision >= 0
        scores[:, k] = decision / model.radius_**2
        for tested in classes:
            rows.append((str(target), str(tested), "acceptance_rate",
                         float(inside[y_test == tested].mean())))
        rows.append((str(target), str(target), "bounded_sv_fraction",
                     float(np.sum(model.dual_coef_ >= model.C) / len(X_c))))
        rows.append((str(target), str(target), "support_fraction",
                     float(len(model.support_) / len(X_c))))
        rows.append((str(target), "all", "radius", model.radius_))
    predicted = classes[scores.argmax(axis=1)]
    rows.append(("all", "all", "test_error", float(np.mean(predicted != y_test))))
    rows.append(("all", "all", "rejection_rate", float(np.mean(scores.max(axis=1) < 0))))
    table = pd.DataFrame(rows, columns=["target_class", "tested_class", "metric", "value"])
    _prepend_columns(table, {"dataset": dataset, "method": "svdd", "nu": float(p["nu"]),
                             "sigma": float(model.sigma)})
    return table


def svm_grid_job(repeats: Sequence[RepeatData], *, seed: int, split: str, level: int,
                 previous: pd.DataFrame | None, params: dict[str, Any] | None,
                 n_jobs: int = 1) -> pd.DataFrame:
    """The ``svm_grid_level`` rule: :func:`svm_grid_level` on the training rows of repeat 0.

    Every level of a split draws its folds from ``generator(seed, "svm_grid", split)`` (one
    stream for the split, not one per repeat), so all levels use the same folds.
    """
    logger.info("repeat 1 of 1 (split repeat %d): svm_grid_level level=%d", repeats[0].repeat,
                level)
    return svm_grid_level(repeats[0], level=level, previous=previous, params=params,
                          dataset=split, n_jobs=n_jobs, rng=generator(seed, "svm_grid", split))


def svm_best_job(repeats: Sequence[RepeatData], *, split: str, grid: pd.DataFrame,
                 params: dict[str, Any] | None) -> pd.DataFrame:
    """The ``svm_best`` rule: :func:`svm_refit_best` on repeat 0's training and test rows."""
    return run_repeats(svm_refit_best, repeats, {"grid": grid, "params": params,
                                                 "dataset": split}, first=1).drop(columns="repeat")


def mkl_job(repeats: Sequence[RepeatData], *, split: str,
            params: dict[str, Any] | None) -> pd.DataFrame:
    """The ``mkl`` rule: :func:`mkl_run` on repeat 0's training and test rows."""
    return run_repeats(mkl_run, repeats, {"params": params, "dataset": split},
                       first=1).drop(columns="repeat")


def svdd_job(repeats: Sequence[RepeatData], *, split: str,
             params: dict[str, Any] | None) -> pd.DataFrame:
    """The ``svdd`` rule: :func:`svdd_run` on repeat 0's training and test rows."""
    return run_repeats(svdd_run, repeats, {"params": params, "dataset": split},
                       first=1).drop(columns="repeat")
