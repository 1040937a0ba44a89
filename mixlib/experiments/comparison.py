"""Every classifier of the project under one protocol: stratified K-fold cross-validation,
repeated ``r`` times with seeded fold assignments, with the Student-t interval of the course
notes (seed 004) and the corrected interval of Nadeau and Bengio (2003), for the report's
ch. 6 comparison of the probabilistic and the deterministic approaches. The hold-out protocol
on a split's train and test rows is :mod:`mixlib.experiments.comparison_holdout`; both write
the table layout below.

Pipeline granularity: ONE JOB PER (data set, model) runs :func:`comparison_point`, its ``r``
CV repeats inside; the jobs of a data set share their folds because each builds its generator
from the same ``(seed, "comparison", dataset)`` (:func:`mixlib.core.seeding.generator`): the
folds of CV repeat 0 are its first draw (so ``r = 1`` is the single CV of earlier versions,
number for number) and repeats ``1 .. r-1`` draw theirs from children of its SeedSequence.
:func:`comparison_job` runs several models in one process with exactly the same result as the
separate jobs. Inputs are the arrays of a whole data set, imputed (no NaN). Standardisation:
with ``standardise=True`` every fold is re-standardised with the mean and deviation of its own
training rows; pass True for numeric data sets and False for one-hot splice, whose 0/1 coding
the isotropic mixtures are meant to see.

Models
------
The models and their parameters come from the registry (:mod:`mixlib.experiments.registry`);
data-dependent defaults (``"auto"``, ``"scale"``) are resolved from the training rows of each
fold. With its defaults no model subsamples; ``max_train_rows`` is available for heavier
settings. Run the jobs with ``OPENBLAS_NUM_THREADS=1`` (or the job's ``threads``): with
several BLAS threads on a busy machine the L-BFGS of logistic regression ran 16 times slower.

Table layout (long, tidy, no index)
-----------------------------------
``protocol, dataset, split, model, approach, family, n_folds, n_repeats, group_duplicates,
alpha, params, metric, repeat, fold, n_train, n_test, true_class, predicted_class, value``.
``protocol`` is ``cv`` (``split`` empty) or ``holdout`` (``split`` the split's name,
``n_folds`` 1); ``n_repeats`` is ``r`` (CV) or the split's number of repeats (hold-out).
``group_duplicates`` says whether the CV folds kept groups of rows together (``yes``: the
``groups`` of :func:`comparison_point`, in the pipeline the identical rows of
``comparison.group_duplicates``; ``no``: plain stratified folds; ``any`` for the hold-out
protocol, whose split is not dealt into folds). ``params`` is the
JSON text (sorted keys) of the resolved model parameters of the first fit plus
``max_train_rows``. With ``J = r K`` test folds (hold-out: ``J`` = repeats) of errors ``e_j``
and mean fold sizes ``n_train``, ``n_test``, the metrics are:

- ``cv_error``: ``e``, mean of the ``J`` per-fold misclassification rates (fraction; for the
  hold-out protocol the mean test error over the split's repeats);
- ``cv_std``: ``s``, their standard deviation (``ddof=1``; NaN when ``J = 1``);
- ``ci_low``, ``ci_high``: the plain t-interval ``e -/+ t_{alpha/2, J-1} s / sqrt(J)``
  (:func:`mixlib.model_selection.evaluation.t_interval`; with ``r = 1`` the notes' interval).
  The folds share training rows, so the ``e_j`` are correlated and for ``r > 1`` it is too
  narrow: it shrinks like ``1/sqrt(r)`` while the information does not grow as fast;
- ``ci_corrected_low``, ``ci_corrected_high``: ``e -/+ t_{alpha/2, J-1}
  sqrt((1/J + n_test/n_train) s^2)``, the interval of Nadeau and Bengio's corrected variance
  (:func:`mixlib.core.statistics.corrected_t_interval`), the one to read;
- ``fit_seconds``, ``predict_seconds``: mean wall-clock seconds per fold of ``fit`` on the
  training rows and ``predict`` on the test rows;
- ``fold_error``: the error of fold ``fold`` (0 .. K-1) of CV repeat ``repeat`` (0 .. r-1;
  hold-out: fold 0 of split repeat ``repeat``), with the fold's ``n_train`` (rows fitted) and
  ``n_test``; the same folds for every model of a data set, so models pair up fold by fold;
- ``confusion``: pooled out-of-fold confusion matrix, ``value`` = number of rows of
  ``true_class`` predicted ``predicted_class`` (every pair of classes, zeros included, plus a
  column for any predicted label that is not a class, e.g. a reject label; summed over the
  ``J`` test folds: the counts add up to ``r n_samples``, hold-out: repeats x test rows).

``repeat``, ``fold``, ``n_train`` and ``n_test`` are set only on ``fold_error`` rows and
``true_class``/``predicted_class`` only on ``confusion`` rows (missing elsewhere).
"""

from __future__ import annotations

import copy
import json
import logging
import numbers
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.preprocessing import standardise as standardise_rows
from mixlib.core.statistics import corrected_t_interval
from mixlib.core.validation import check_array, check_random_state
from mixlib.experiments.registry import EM_KEYS, check_params, model_spec, resolve_params
from mixlib.model_selection.evaluation import confusion_matrix, stratified_folds, t_interval
from mixlib.model_selection.splits import duplicate_groups, grouped_stratified_folds

logger = logging.getLogger(__name__)

COLUMNS = ["protocol", "dataset", "split", "model", "approach", "family", "n_folds",
           "n_repeats", "group_duplicates", "alpha", "params", "metric", "repeat", "fold",
           "n_train", "n_test", "true_class", "predicted_class", "value"]
_ROW = ("metric", "repeat", "fold", "n_train", "n_test", "true_class", "predicted_class",
        "value")
#: Parameters of :func:`comparison_point` beside the model's own (``comparison.params``).
PROTOCOL_KEYS = ("max_train_rows",)


def split_protocol_params(params: Mapping[str, Any] | None) -> tuple[dict[str, Any], int | None]:
    """The model's own parameters and ``max_train_rows`` (checked) of ``comparison.params``."""
    params = dict(params or {})
    max_train_rows = params.pop("max_train_rows", None)
    if max_train_rows is not None and (not isinstance(max_train_rows, numbers.Integral)
                                       or isinstance(max_train_rows, bool)
                                       or max_train_rows < 2):
        raise ValueError(f"max_train_rows must be None or an integer >= 2, "
                         f"got {max_train_rows!r}.")
    return params, max_train_rows


def fit_and_predict(model: str, params: Mapping[str, Any], X_train: np.ndarray,
                    y_train: np.ndarray, X_test: np.ndarray,
                    rng: np.random.Generator) -> tuple[np.ndarray, float, float, dict[str, Any]]:
    """Build ``model`` (defaults resolved on ``X_train``), fit it and predict ``X_test``.

    Returns the predictions, the fit and predict wall-clock seconds and the resolved
    parameters; ``rng`` is the model's ``random_state``.
    """
    resolved = resolve_params(model, params, X_train)
    estimator = model_spec(model).build(resolved, rng)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    predicted = np.asarray(estimator.predict(X_test))
    return predicted, fit_seconds, time.perf_counter() - start, resolved


def error_rows(errors: np.ndarray, n_train: float, n_test: float,
               alpha: float) -> list[dict[str, Any]]:
    """The summary metric rows of ``J`` test-fold errors (module docstring)."""
    errors = np.asarray(errors, dtype=float)
    if len(errors) >= 2:
        plain = t_interval(errors, alpha)
        mean, std, low, high = plain.mean, plain.std, plain.low, plain.high
        corrected = corrected_t_interval(errors, n_train=n_train, n_test=n_test, alpha=alpha)
        c_low, c_high = corrected
    else:
        mean, std = float(errors.mean()), np.nan
        low = high = c_low = c_high = np.nan
    return [{"metric": name, "value": float(value)} for name, value in (
        ("cv_error", mean), ("cv_std", std), ("ci_low", low), ("ci_high", high),
        ("ci_corrected_low", c_low), ("ci_corrected_high", c_high))]


def confusion_rows(y: np.ndarray, predicted: np.ndarray) -> list[dict[str, Any]]:
    """The ``confusion`` rows of true classes ``y`` and predicted labels (module docstring)."""
    classes = np.unique(y)
    predicted = np.asarray(predicted.tolist()) if predicted.dtype == object else predicted
    labels = np.union1d(classes, predicted)
    counts = confusion_matrix(y, predicted, labels)
    return [{"metric": "confusion", "true_class": str(labels[i]),
             "predicted_class": str(labels[j]), "value": float(counts[i, j])}
            for i in np.flatnonzero(np.isin(labels, classes)) for j in range(len(labels))]


def point_table(rows: list[dict[str, Any]], *, protocol: str, dataset: str, split: str | None,
                model: str, n_folds: int, n_repeats: int, group_duplicates: str, alpha: float,
                record: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of one (protocol, data set or split, model) job in the layout of
    :data:`COLUMNS` (``group_duplicates``: ``yes``, ``no`` or ``any``)."""
    if group_duplicates not in ("yes", "no", "any"):
        raise ValueError(f"group_duplicates must be 'yes', 'no' or 'any', "
                         f"got {group_duplicates!r}.")
    spec = model_spec(model)
    table = pd.DataFrame([{key: row.get(key) for key in _ROW} for row in rows], columns=_ROW)
    labels = {"protocol": protocol, "dataset": dataset, "split": split, "model": model,
              "approach": spec.approach, "family": spec.family, "n_folds": int(n_folds),
              "n_repeats": int(n_repeats), "group_duplicates": group_duplicates,
              "alpha": float(alpha),
              "params": json.dumps(dict(record), sort_keys=True, default=str)}
    for position, (column, value) in enumerate(labels.items()):
        table.insert(position, column, value)
    for column in ("repeat", "fold", "n_train", "n_test"):
        table[column] = table[column].astype("Int64")
    table["value"] = table["value"].astype(float)
    return table[COLUMNS]


def cv_folds(y: np.ndarray, groups: np.ndarray | None, n_folds: int, n_repeats: int,
             rng: np.random.Generator) -> Iterator[tuple[int, np.ndarray,
                                                         list[np.random.Generator]]]:
    """The folds of every CV repeat of :func:`comparison_point`, in its order of draws.

    Yields ``(repeat, folds, fold_rngs)``: the fold index of every row (stratified, and with
    ``groups`` keeping each group in one fold) and one generator per fold. Repeat 0 draws its
    folds from ``rng`` and spawns its folds' generators from it, then ``rng.spawn(n_repeats -
    1)`` gives each later repeat its own generator, which does the same. The generators are
    spawned, never advanced by a fit, so the pre-run checks replay the same folds.
    """
    streams: list[np.random.Generator] = [rng]
    for repeat in range(n_repeats):
        stream = streams[repeat]
        folds = (stratified_folds(y, n_folds, stream) if groups is None
                 else grouped_stratified_folds(y, groups, n_folds, stream))
        fold_rngs = stream.spawn(n_folds)
        if repeat == 0:
            streams += rng.spawn(n_repeats - 1)
        yield repeat, folds, fold_rngs


def fold_training_rows(folds: np.ndarray, k: int, max_train_rows: int | None,
                       fold_rng: np.random.Generator) -> np.ndarray:
    """The rows fold ``k`` is fitted on: every other fold's, or ``max_train_rows`` of them
    drawn uniformly without replacement by ``fold_rng`` (its first draw), sorted."""
    train_rows = np.flatnonzero(folds != k)
    if max_train_rows is not None and len(train_rows) > max_train_rows:
        train_rows = np.sort(fold_rng.choice(train_rows, max_train_rows, replace=False))
    return train_rows


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
    n_repeats: int = 1,
) -> pd.DataFrame:
    """``r``-times repeated stratified K-fold cross-validation of one model on one data set
    (one pipeline job).

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
        ``1 - alpha`` is the confidence level of the intervals.
    rng : int or numpy.random.Generator
        Build it with ``mixlib.core.seeding.generator(seed, "comparison", dataset)`` for EVERY
        model of a data set. CV repeat 0: the folds are the first draw,
        ``stratified_folds(y, n_folds, rng)``, then ``rng.spawn(n_folds)`` gives each fold its
        own generator (subsample, then the model's ``random_state``). Then
        ``rng.spawn(n_repeats - 1)`` gives CV repeat ``j >= 1`` its generator, which draws the
        repeat's folds and spawns its folds' generators the same way. All models get the same
        folds. A Generator passed in is advanced.
    standardise : bool, default False
        Re-standardise every fold with the mean and deviation of its training rows
        (:func:`mixlib.core.preprocessing.standardise`), so the test fold never influences them.
        Pass :func:`mixlib.experiments.data.uses_standardisation` of the data set.
    groups : ndarray of shape (n_samples,), optional
        Rows of one group always share a fold (:func:`mixlib.model_selection.splits.grouped_stratified_folds`),
        e.g. :func:`mixlib.model_selection.splits.duplicate_groups` so identical rows are never both trained
        and tested on. Without duplicates the folds equal the plain stratified ones.
    n_repeats : int, default 1
        ``r``, the number of seeded fold assignments.

    Returns
    -------
    pandas.DataFrame
        The tidy table of the module docstring: ``8 + r K + C^2`` rows for ``C`` classes.

    Notes
    -----
    Fold ``k`` of repeat ``i``: fit on the other folds, ``e_{ik}`` = misclassification rate on
    fold ``k`` (a prediction outside the classes, e.g. a reject label, counts as an error);
    the summaries pool the ``J = r K`` errors (:func:`error_rows`).
    """
    params, max_train_rows = split_protocol_params(params)
    check_params(model, params)
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an integer >= 1, got {n_repeats!r}.")
    X = check_array(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}.")
    rng = check_random_state(rng)
    rows: list[dict[str, Any]] = []
    errors, n_train, n_test, fit_seconds, predict_seconds = [], [], [], [], []
    predictions = []
    first_params: dict[str, Any] = {}
    for repeat, folds, fold_rngs in cv_folds(y, groups, n_folds, n_repeats, rng):
        predicted_all = np.empty(len(y), dtype=object)
        for k in range(n_folds):
            test = folds == k
            train_rows = fold_training_rows(folds, k, max_train_rows, fold_rngs[k])
            X_fold = X
            if standardise:
                fit_rows = np.zeros(len(y), dtype=bool)
                fit_rows[train_rows] = True
                X_fold, _, _ = standardise_rows(X, fit_rows)
            predicted, fit_s, predict_s, resolved = fit_and_predict(
                model, params, X_fold[train_rows], y[train_rows], X_fold[test], fold_rngs[k])
            if not first_params:
                first_params = resolved
            predicted_all[test] = predicted
            error = float(np.mean(predicted != y[test]))
            errors.append(error)
            n_train.append(len(train_rows))
            n_test.append(int(test.sum()))
            fit_seconds.append(fit_s)
            predict_seconds.append(predict_s)
            rows.append({"metric": "fold_error", "repeat": repeat, "fold": k,
                         "n_train": n_train[-1], "n_test": n_test[-1], "value": error})
            logger.info("%s %s repeat %d fold %d/%d: error %.4f, fit %.2f s, predict %.2f s",
                        dataset, model, repeat, k + 1, n_folds, error, fit_s, predict_s)
        predictions.append(predicted_all)
    summary = error_rows(np.array(errors), float(np.mean(n_train)), float(np.mean(n_test)),
                         alpha)
    logger.info("%s %s: CV error %.4f over %d x %d folds", dataset, model,
                summary[0]["value"], n_repeats, n_folds)
    summary += [{"metric": "fit_seconds", "value": float(np.mean(fit_seconds))},
                {"metric": "predict_seconds", "value": float(np.mean(predict_seconds))}]
    pooled = confusion_rows(np.tile(y, n_repeats), np.concatenate(predictions))
    return point_table(summary + rows + pooled, protocol="cv", dataset=dataset, split=None,
                       model=model, n_folds=n_folds, n_repeats=n_repeats,
                       group_duplicates="no" if groups is None else "yes", alpha=alpha,
                       record={**first_params, "max_train_rows": max_train_rows})


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
    n_repeats: int = 1,
) -> pd.DataFrame:
    """:func:`comparison_point` of several models of one data set, on the same folds.

    Parameters
    ----------
    X, y, dataset, n_folds, alpha, standardise, n_repeats
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
                         standardise=standardise, n_repeats=n_repeats)
        for name in models
    ]
    return pd.concat(tables, ignore_index=True)


def comparison_dataset_job(prepared: pd.DataFrame, *, dataset: str, model: str,
                           params: dict[str, Any] | None, n_folds: int, alpha: float, seed: int,
                           standardise: bool, impute_method: str, impute_components: int,
                           em: Mapping[str, Any] | None,
                           group_duplicates: bool = False, n_repeats: int = 1) -> pd.DataFrame:
    """The ``comparison_point`` rule: one model on one whole data set, by r x K-fold CV.

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

    params = with_em(model, params, em)
    X, y = feature_matrix(prepared)
    groups = duplicate_groups(X, y) if group_duplicates else None
    if np.isnan(X).any():
        imputer = make_imputer(impute_method, generator(seed, "comparison_impute", dataset),
                               n_components=impute_components, em=em)
        X = imputer.fit_transform(X)
    return comparison_point(X, y, dataset, model, params, n_folds, alpha,
                            generator(seed, "comparison", dataset), standardise=standardise,
                            groups=groups, n_repeats=n_repeats)


def with_em(model: str, params: Mapping[str, Any] | None,
            em: Mapping[str, Any] | None) -> dict[str, Any]:
    """A model's parameters with the EM settings ``em`` if it is of the mixture family
    (the model's own overrides win); raises if such a model gets no ``em``."""
    if model_spec(model).family != "mixture":
        return dict(params or {})
    if em is None:
        raise ValueError(f"model {model!r} fits a mixture: it needs the EM settings em.")
    return {**{key: em[key] for key in EM_KEYS if em.get(key) is not None}, **(params or {})}
