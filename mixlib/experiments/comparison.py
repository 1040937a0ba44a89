"""Every classifier of the project under one protocol: stratified K-fold cross-validation
with the Student-t interval of the course notes (seed 004), for the report's ch. 6 comparison
of the probabilistic and the deterministic approaches.

Pipeline granularity: ONE JOB PER (data set, model) runs :func:`comparison_point`; the jobs of
a data set share their folds because each builds its generator from the same
``(seed, "comparison", dataset)`` (:func:`mixlib.core.seeding.generator`) and the folds are the first
draw from it. :func:`comparison_job` runs several models in one process with exactly the same
result as the separate jobs. Inputs are the arrays of a whole data set, imputed (no NaN).
Standardisation: with ``standardise=True`` every fold is re-standardised with the mean and
deviation of its own training rows (the pipeline's arrays are standardised with statistics of
all rows, which include the test fold); pass True for numeric data sets and False for one-hot
splice, whose 0/1 coding the isotropic mixtures are meant to see.

Models
------
The models and their parameters come from the registry (:mod:`mixlib.experiments.registry`);
data-dependent defaults (``"auto"``, ``"scale"``) are resolved from the training rows of each
fold. With its defaults no model subsamples; ``max_train_rows`` is available for heavier
settings. Run the jobs with ``OPENBLAS_NUM_THREADS=1`` (or the job's ``threads``): with
several BLAS threads on a busy machine the L-BFGS of logistic regression ran 16 times slower.

Table layout (long, tidy, no index)
-----------------------------------
``dataset, model, approach, family, n_folds, alpha, params, metric, fold, true_class,
predicted_class, value``; ``params`` is the JSON text (sorted keys) of the resolved model
parameters of fold 0 plus ``max_train_rows``. Metrics:

- ``cv_error``: ``e``, mean of the per-fold misclassification rates (fraction);
- ``cv_std``: ``s``, their standard deviation (``ddof=1``);
- ``ci_low``, ``ci_high``: ``e -/+ t_{alpha/2, K-1} s / sqrt(K)``
  (:func:`mixlib.model_selection.evaluation.t_interval`), not clipped: ``ci_low`` can be negative when the
  error is small and varies between folds;
- ``fit_seconds``, ``predict_seconds``: mean wall-clock seconds per fold of ``fit`` on the
  training folds and ``predict`` on the test fold;
- ``fold_error``: the error of fold ``fold`` (0 .. K-1; the same folds for every model of a
  data set, so models can be compared fold by fold);
- ``confusion``: pooled out-of-fold confusion matrix, ``value`` = number of rows of
  ``true_class`` predicted ``predicted_class`` (every pair of classes, zeros included, plus a
  column for any predicted label that is not a class, e.g. a reject label; summed over the
  folds, the counts add up to ``n_samples``).

``fold`` is set only on ``fold_error`` rows and ``true_class``/``predicted_class`` only on
``confusion`` rows (missing elsewhere).
"""

from __future__ import annotations

import copy
import json
import logging
import numbers
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.preprocessing import standardise as standardise_rows
from mixlib.core.validation import check_array, check_random_state
from mixlib.experiments.registry import EM_KEYS, check_params, model_spec, resolve_params
from mixlib.model_selection.evaluation import confusion_matrix, stratified_folds, t_interval
from mixlib.model_selection.splits import duplicate_groups, grouped_stratified_folds

logger = logging.getLogger(__name__)

COLUMNS = ["dataset", "model", "approach", "family", "n_folds", "alpha", "params", "metric",
           "fold", "true_class", "predicted_class", "value"]
#: Parameters of :func:`comparison_point` beside the model's own (``comparison.params``).
PROTOCOL_KEYS = ("max_train_rows",)


def comparison_point(
    X: np.ndarray,
    y: np.ndarray,
    dataset: str,
    model: str,
    params: dict[str, Any] | None,
    n_folds: int,
    alpha: float,
    rng: int | np.random.Generator,
    *,
    standardise: bool = False,
    groups: np.ndarray | None = None,
) -> pd.DataFrame:
    """Stratified K-fold cross-validation of one model on one data set (one pipeline job).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The whole data set, imputed (NaN raises). The pipeline's arrays are already
        standardised for numeric data sets; splice one-hot stays 0/1.
    y : ndarray of shape (n_samples,)
        Class labels.
    dataset : str
        Value of the ``dataset`` column.
    model : str
        A key of :data:`mixlib.experiments.registry.MODELS`.
    params : dict or None
        Overrides of the model's defaults (:func:`resolve_params`), plus the protocol key
        ``max_train_rows`` (int or None, default None): fit every fold on at most this many of
        its training rows, drawn uniformly without replacement (the test fold stays whole).
    n_folds : int
        ``K`` of the stratified K-fold cross-validation.
    alpha : float
        ``1 - alpha`` is the confidence level of the interval.
    rng : int or numpy.random.Generator
        Build it with ``mixlib.core.seeding.generator(seed, "comparison", dataset)`` for EVERY
        model of a data set: the folds are the first draw,
        ``stratified_folds(y, n_folds, rng)``, so all models get the same folds; then
        ``rng.spawn(n_folds)`` gives each fold its own generator (subsample, then the model's
        ``random_state``). A Generator passed in is advanced.
    standardise : bool, default False
        Re-standardise every fold with the mean and deviation of its training rows
        (:func:`mixlib.core.preprocessing.standardise`), so the test fold never influences them.
        Pass :func:`mixlib.experiments.data.uses_standardisation` of the data set: True for
        numeric data, False for one-hot splice (whose 0/1 geometry the mixtures rely on).
    groups : ndarray of shape (n_samples,), optional
        Rows of one group always share a fold (:func:`mixlib.model_selection.splits.grouped_stratified_folds`),
        e.g. :func:`mixlib.model_selection.splits.duplicate_groups` so identical rows are never both trained
        and tested on. Without duplicates the folds equal the plain stratified ones.

    Returns
    -------
    pandas.DataFrame
        The tidy table of the module docstring: ``6 + K + C^2`` rows for ``C`` classes.

    Notes
    -----
    Fold ``k``: fit on the other folds, ``e_k`` = misclassification rate on fold ``k`` (a
    prediction outside the classes, e.g. a reject label, counts as an error); then
    ``e = mean(e_k)``, ``s^2 = sum_k (e_k - e)^2 / (K - 1)`` and ``e +/- t_{alpha/2, K-1}
    sqrt(s^2 / K)`` (:func:`mixlib.model_selection.evaluation.t_interval`).
    """
    spec = model_spec(model)
    params = dict(params or {})
    max_train_rows = params.pop("max_train_rows", None)
    if max_train_rows is not None and (not isinstance(max_train_rows, numbers.Integral)
                                       or isinstance(max_train_rows, bool)
                                       or max_train_rows < 2):
        raise ValueError(f"max_train_rows must be None or an integer >= 2, "
                         f"got {max_train_rows!r}.")
    check_params(model, params)
    X = check_array(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}.")
    rng = check_random_state(rng)
    folds = (stratified_folds(y, n_folds, rng) if groups is None
             else grouped_stratified_folds(y, groups, n_folds, rng))
    fold_rngs = rng.spawn(n_folds)
    classes = np.unique(y)
    errors = np.empty(n_folds)
    fit_seconds = np.empty(n_folds)
    predict_seconds = np.empty(n_folds)
    predictions = np.empty(len(y), dtype=object)
    first_params: dict[str, Any] = {}
    for k in range(n_folds):
        test = folds == k
        train_rows = np.flatnonzero(~test)
        if max_train_rows is not None and len(train_rows) > max_train_rows:
            train_rows = np.sort(fold_rngs[k].choice(train_rows, max_train_rows, replace=False))
        X_fold = X
        if standardise:
            fit_rows = np.zeros(len(y), dtype=bool)
            fit_rows[train_rows] = True
            X_fold, _, _ = standardise_rows(X, fit_rows)
        resolved = resolve_params(model, params, X_fold[train_rows])
        if k == 0:
            first_params = resolved
        estimator = spec.build(resolved, fold_rngs[k])
        start = time.perf_counter()
        estimator.fit(X_fold[train_rows], y[train_rows])
        fit_seconds[k] = time.perf_counter() - start
        start = time.perf_counter()
        predicted = np.asarray(estimator.predict(X_fold[test]))
        predict_seconds[k] = time.perf_counter() - start
        predictions[test] = predicted
        errors[k] = float(np.mean(predicted != y[test]))
        logger.info("%s %s fold %d/%d: error %.4f, fit %.2f s, predict %.2f s", dataset, model,
                    k + 1, n_folds, errors[k], fit_seconds[k], predict_seconds[k])
    cv = t_interval(errors, alpha)
    logger.info("%s %s: CV error %.4f +/- %.4f", dataset, model, cv.mean, cv.half_width)
    rows: list[tuple[str, float | None, str | None, str | None, float]] = [
        ("cv_error", None, None, None, cv.mean),
        ("cv_std", None, None, None, cv.std),
        ("ci_low", None, None, None, cv.low),
        ("ci_high", None, None, None, cv.high),
        ("fit_seconds", None, None, None, float(fit_seconds.mean())),
        ("predict_seconds", None, None, None, float(predict_seconds.mean())),
    ]
    rows += [("fold_error", k, None, None, float(errors[k])) for k in range(n_folds)]
    predicted_labels = np.asarray(predictions.tolist())
    labels = np.union1d(classes, predicted_labels)
    counts = confusion_matrix(y, predicted_labels, labels)
    is_class = np.isin(labels, classes)
    rows += [("confusion", None, str(labels[i]), str(labels[j]), float(counts[i, j]))
             for i in np.flatnonzero(is_class) for j in range(len(labels))]
    table = pd.DataFrame(rows, columns=["metric", "fold", "true_class", "predicted_class",
                                        "value"])
    record = {**first_params, "max_train_rows": max_train_rows}
    table.insert(0, "dataset", dataset)
    table.insert(1, "model", model)
    table.insert(2, "approach", spec.approach)
    table.insert(3, "family", spec.family)
    table.insert(4, "n_folds", int(n_folds))
    table.insert(5, "alpha", float(alpha))
    table.insert(6, "params", json.dumps(record, sort_keys=True, default=str))
    table["fold"] = table["fold"].astype("Int64")
    return table[COLUMNS]


def comparison_job(
    X: np.ndarray,
    y: np.ndarray,
    dataset: str,
    models: Sequence[str],
    params: dict[str, dict[str, Any]] | None,
    n_folds: int,
    alpha: float,
    rng: int | np.random.Generator,
    *,
    standardise: bool = False,
) -> pd.DataFrame:
    """:func:`comparison_point` of several models of one data set, on the same folds.

    Parameters
    ----------
    X, y, dataset, n_folds, alpha, standardise
        As in :func:`comparison_point`.
    models : sequence of str
        Keys of :data:`mixlib.experiments.registry.MODELS`.
    params : dict of str to dict, or None
        Per model name, its overrides (models not listed use their defaults).
    rng : int or numpy.random.Generator
        Every model gets a generator in the state of ``rng`` (a copy of it; ``rng`` itself is
        not advanced), so the result equals the concatenation of separate
        :func:`comparison_point` calls each given a generator in that state: the same folds
        for every model.

    Returns
    -------
    pandas.DataFrame
        The tables of the models, stacked in the order of ``models``.
    """
    params = dict(params or {})
    unknown = set(params) - set(models)
    if unknown:
        raise ValueError(f"params given for model(s) {sorted(unknown)} not in models "
                         f"{list(models)}.")
    for name in models:
        model_spec(name)
    tables = [
        comparison_point(X, y, dataset, name, params.get(name), n_folds, alpha,
                         copy.deepcopy(rng) if isinstance(rng, np.random.Generator) else rng,
                         standardise=standardise)
        for name in models
    ]
    return pd.concat(tables, ignore_index=True)


def comparison_dataset_job(prepared: pd.DataFrame, *, dataset: str, model: str,
                           params: dict[str, Any] | None, n_folds: int, alpha: float, seed: int,
                           standardise: bool, impute_method: str, impute_components: int,
                           em: Mapping[str, Any] | None,
                           group_duplicates: bool = False) -> pd.DataFrame:
    """The ``comparison_point`` rule: one model on one whole data set, by K-fold CV.

    Missing cells are filled first by the configured imputer fit on all rows *without their
    classes* (every row is treated as of unknown class), so no label, of any fold, reaches the
    imputation. Every mixture, the kernel-mode imputer's and a model of the ``mixture``
    family's, is fitted with the EM settings ``em`` (the config's ``em`` section; None when
    the job fits no mixture: then a mixture to fit is an error, not a silent default).
    Then :func:`comparison_point` runs with the generator of
    ``(seed, "comparison", dataset)``: every model of a data set gets the same folds. With
    ``group_duplicates``, rows identical in features (missing cells included) and class share
    a fold (:func:`mixlib.model_selection.splits.duplicate_groups`).
    """
    from mixlib.core.seeding import generator
    from mixlib.datasets import feature_matrix
    from mixlib.experiments.imputation import make_imputer

    if model_spec(model).family == "mixture":
        if em is None:
            raise ValueError(f"model {model!r} fits a mixture: it needs the EM settings em.")
        params = {**{key: em[key] for key in EM_KEYS if em.get(key) is not None},
                  **(params or {})}
    X, y = feature_matrix(prepared)
    groups = duplicate_groups(X, y) if group_duplicates else None
    if np.isnan(X).any():
        imputer = make_imputer(impute_method, generator(seed, "comparison_impute", dataset),
                               n_components=impute_components, em=em)
        X = imputer.fit_transform(X)
    return comparison_point(X, y, dataset, model, params, n_folds, alpha,
                            generator(seed, "comparison", dataset), standardise=standardise,
                            groups=groups)
