"""Every classifier of the project under one protocol, for the report's ch. 6 comparison of the
probabilistic and the deterministic approaches (extended to the course's classifiers).

Two splitters feed one runner (:mod:`mixlib.model_selection.resampling`): ``r``-times repeated
stratified K-fold cross-validation on a whole data set (:func:`comparison_point`, the pipeline's
``comparison_point`` jobs: :func:`comparison_dataset_job`), and the hold-out protocol on a
split's train and test rows, one unit per repeat of the split
(:func:`comparison_holdout_job`). Each unit is standardised from its own training rows when
the data set is (numeric data; one-hot splice keeps the 0/1 coding the isotropic mixtures are
meant to see), its model built by the catalogue (:func:`mixlib.catalogue.registry.make_model`,
data-dependent values resolved on the unit's training rows), fitted and scored; both protocols
give the same tables.

Pipeline granularity: ONE JOB PER (data set or split, model). The CV jobs of a data set share
their folds because each builds its generator from the same ``(seed, "comparison", dataset)``
(:func:`mixlib.core.seeding.generator`; see
:func:`mixlib.model_selection.resampling.repeated_kfold_units`); the hold-out jobs of a split
share the generator of ``(seed, "comparison_holdout", split, repeat)`` per repeat. Run the jobs
with one BLAS thread: with several on a busy machine the L-BFGS of logistic regression ran 16
times slower.

The scores table (long, tidy, no index)
---------------------------------------
Columns :data:`mixlib.core.vocabulary.COMPARISON_COLUMNS`: ``protocol, dataset, split, model,
approach, family, n_folds, n_repeats, group_duplicates, alpha, metric, repeat, fold, n_train,
n_test, true_class, predicted_class, value``. ``protocol`` is ``cv`` (``split`` empty) or
``holdout`` (``split`` the split's name, ``n_folds`` 1); ``n_repeats`` is ``r`` (CV) or the
split's number of repeats (hold-out); ``group_duplicates`` says whether the CV folds kept
identical rows together (``yes``/``no``; ``any`` for the hold-out protocol); ``alpha`` is the
comparison's significance level. With ``J`` units (``r K`` folds, or the hold-out repeats) of
errors ``e_j`` and mean sizes ``n_train``, ``n_test``, the metrics are:

- ``cv_error``: ``e``, the mean of the ``J`` unit errors (hold-out: the mean test error);
- ``cv_std``: ``s``, their standard deviation (``ddof=1``; NaN when ``J = 1``);
- ``ci_low``, ``ci_high``: the plain t-interval ``e -/+ t_{alpha/2, J-1} s / sqrt(J)``
  (:func:`mixlib.model_selection.evaluation.t_interval`; with ``r = 1`` the course notes'
  interval). The folds share training rows, so the ``e_j`` are correlated and for ``r > 1`` it
  is too narrow: it shrinks like ``1/sqrt(r)`` while the information does not grow as fast;
- ``ci_corrected_low``, ``ci_corrected_high``: ``e -/+ t_{alpha/2, J-1}
  sqrt((1/J + n_test/n_train) s^2)``, the interval of Nadeau and Bengio's corrected variance
  (:func:`mixlib.core.statistics.corrected_t_interval`), the one to read;
- ``fit_seconds``, ``predict_seconds``: mean wall-clock seconds per unit;
- ``fold_error``: the error of unit (``repeat``, ``fold``) with its ``n_train`` (rows fitted)
  and ``n_test``; the same units for every model, so models pair up unit by unit;
- ``confusion``: the confusion matrix pooled over the units, ``value`` = number of test rows of
  ``true_class`` predicted ``predicted_class`` (every pair of classes, zeros included, plus a
  column for any predicted label that is not a class, e.g. a reject label).

The settings table
------------------
Columns :data:`mixlib.core.vocabulary.SETTINGS_COLUMNS`: every parameter of every fitted
estimator (its ``get_params(deep=True)`` but the random state and nested estimators), per
unit, its value as text: what ran, data-dependent values resolved, defaults included.
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator
from mixlib.core.statistics import corrected_t_interval
from mixlib.core.validation import check_array
from mixlib.core.vocabulary import (
    ANY, COMPARISON_COLUMNS, COMPARISON_ROW, CV, GROUPED, HOLDOUT, SETTINGS_COLUMNS, UNGROUPED,
)
from mixlib.experiments.contract import RepeatData
from mixlib.catalogue.registry import make_imputer, make_model, model_spec, unknown_parameters
from mixlib.catalogue.settings import ComparisonProtocol, EMSettings
from mixlib.model_selection.evaluation import confusion_matrix, t_interval
from mixlib.model_selection.resampling import (
    EvaluationUnit, UnitScore, repeated_kfold_units, score_units,
)
from mixlib.model_selection.splits import duplicate_groups

logger = logging.getLogger(__name__)

#: Parameters of a comparison job beside the model's own (``comparison.params.<model>``).
PROTOCOL_KEYS = ("max_train_rows",)


class ComparisonRun(NamedTuple):
    """The two tables of one comparison job (module docstring): scores and settings."""

    scores: pd.DataFrame
    settings: pd.DataFrame


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


def error_rows(errors: np.ndarray, n_train: float, n_test: float,
               significance: float) -> list[dict[str, Any]]:
    """The summary metric rows of ``J`` unit errors (module docstring)."""
    errors = np.asarray(errors, dtype=float)
    if len(errors) >= 2:
        plain = t_interval(errors, significance)
        mean, std, low, high = plain.mean, plain.std, plain.low, plain.high
        c_low, c_high = corrected_t_interval(errors, n_train=n_train, n_test=n_test,
                                             significance_level=significance)
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


def estimator_settings(estimator: Any) -> dict[str, str]:
    """Every parameter of ``estimator`` (nested ones as ``outer__inner``) but its random state
    and nested estimators, each value as text; a parameter the estimator resolves itself when
    it fits (a text value such as ``reg_param="auto"`` with a fitted ``reg_param_``) as the
    text and the value that ran, ``"auto (0.2)"``."""
    values = {}
    for name, value in sorted(estimator.get_params(deep=True).items()):
        if name.rsplit("__", 1)[-1] == "random_state" or hasattr(value, "get_params"):
            continue
        fitted = getattr(estimator, f"{name}_", None) if isinstance(value, str) else None
        values[name] = str(value) if fitted is None else f"{value} ({fitted:g})" \
            if isinstance(fitted, numbers.Real) else f"{value} ({fitted})"
    return values


def _tables(scores: list[UnitScore], *, protocol: str, dataset: str, split: str | None,
            model: str, n_folds: int, n_repeats: int, group_duplicates: str,
            significance: float) -> ComparisonRun:
    """The scores and settings tables of one job from its units' scores."""
    errors = np.array([score.error for score in scores])
    rows = error_rows(errors, float(np.mean([s.n_train for s in scores])),
                      float(np.mean([s.n_test for s in scores])), significance)
    logger.info("%s %s: %s error %.4f over %d unit(s)", dataset or split, model, protocol,
                rows[0]["value"], len(scores))
    rows += [{"metric": "fit_seconds", "value": float(np.mean([s.fit_seconds for s in scores]))},
             {"metric": "predict_seconds",
              "value": float(np.mean([s.predict_seconds for s in scores]))}]
    rows += [{"metric": "fold_error", "repeat": s.repeat, "fold": s.fold, "n_train": s.n_train,
              "n_test": s.n_test, "value": s.error} for s in scores]
    rows += confusion_rows(np.concatenate([s.y_test for s in scores]),
                           np.concatenate([np.asarray(s.predicted, dtype=object)
                                           for s in scores]))
    spec = model_spec(model)
    labels = {"protocol": protocol, "dataset": dataset, "split": split, "model": model,
              "approach": spec.approach, "family": spec.family, "n_folds": int(n_folds),
              "n_repeats": int(n_repeats), "group_duplicates": group_duplicates,
              "alpha": float(significance)}
    table = pd.DataFrame([{key: row.get(key) for key in COMPARISON_ROW} for row in rows],
                         columns=list(COMPARISON_ROW))
    for position, (column, value) in enumerate(labels.items()):
        # object columns, whether the value is text or missing (``split`` of a CV row)
        table.insert(position, column, value if not isinstance(value, str | None)
                     else pd.Series(value, index=table.index, dtype=object))
    for column in ("repeat", "fold", "n_train", "n_test"):
        table[column] = table[column].astype("Int64")
    table["value"] = table["value"].astype(float)
    settings = pd.DataFrame(
        [(protocol, dataset, split, model, s.repeat, s.fold, name, value)
         for s in scores for name, value in estimator_settings(s.estimator).items()],
        columns=list(SETTINGS_COLUMNS))
    # ``split`` is missing on CV rows: an object column in both protocols' tables
    settings["split"] = settings["split"].astype(object)
    return ComparisonRun(table[list(COMPARISON_COLUMNS)], settings)


def _score(units, model: str, params: Mapping[str, Any] | None, *, standardise: bool,
           em: EMSettings | None) -> list[UnitScore]:
    """The runner on ``units`` for ``model`` (its parameters and ``max_train_rows`` checked)."""
    params, max_train_rows = split_protocol_params(params)
    unknown = unknown_parameters(model, params)
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} for model {model!r}; it takes "
                         f"{sorted(model_spec(model).accepted | set(PROTOCOL_KEYS))}.")
    return score_units(units, lambda X, rng: make_model(model, params, rng, X=X, em=em),
                       standardise_features=standardise, max_train_rows=max_train_rows)


def comparison_point(X: np.ndarray, y: np.ndarray, dataset: str, model: str,
                     params: Mapping[str, Any] | None, n_folds: int, significance: float,
                     rng: int | np.random.Generator, *, standardise: bool = False,
                     groups: np.ndarray | None = None, n_repeats: int = 1,
                     em: EMSettings | None = None) -> ComparisonRun:
    """``r``-times repeated stratified K-fold cross-validation of one model on one data set.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The whole data set, imputed (NaN raises).
    y : ndarray of shape (n_samples,)
        Class labels.
    dataset : str
        Value of the ``dataset`` column.
    model : str
        A classifier of :data:`mixlib.catalogue.registry.MODELS`.
    params : mapping or None
        The model's parameters, plus the protocol key ``max_train_rows`` (fit every fold on
        at most this many of its training rows).
    n_folds : int
        ``K``.
    significance : float
        The significance level: ``1 - significance`` is the confidence level of the intervals.
    rng : int or numpy.random.Generator
        Build it with ``generator(seed, "comparison", dataset)`` for every model of a data set
        (:func:`mixlib.model_selection.resampling.repeated_kfold_units`).
    standardise : bool, default False
        Standardise every fold from its training rows.
    groups : ndarray of shape (n_samples,), optional
        Rows of one group always share a fold (e.g.
        :func:`mixlib.model_selection.splits.duplicate_groups`).
    n_repeats : int, default 1
        ``r``.
    em : EMSettings, optional
        The EM settings of a model of the mixture family.

    Returns
    -------
    ComparisonRun
        Its ``scores`` table has ``8 + r K + C^2`` rows for ``C`` classes.
    """
    X = check_array(X)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}.")
    units = repeated_kfold_units(X, y, n_folds, n_repeats, rng, groups=groups)
    scores = _score(units, model, params, standardise=standardise, em=em)
    return _tables(scores, protocol=CV, dataset=dataset, split=None, model=model,
                   n_folds=n_folds, n_repeats=n_repeats,
                   group_duplicates=UNGROUPED if groups is None else GROUPED,
                   significance=significance)


def comparison_dataset_job(prepared: pd.DataFrame, *, dataset: str, model: str,
                           params: Mapping[str, Any] | None, protocol: ComparisonProtocol,
                           seed: int, standardise: bool, impute: Mapping[str, Any],
                           em: EMSettings | None) -> ComparisonRun:
    """The ``comparison_point`` rule: one model on one whole data set, by r x K-fold CV.

    Missing cells are filled first by the configured imputer (``impute``: its ``method`` and
    ``kernels_per_feature``) fit on all rows *without their classes*, so no label of any fold
    reaches the imputation. Every mixture, the kernel-mode imputer's and a model of the mixture
    family's, is fitted with the EM settings ``em`` (None when the job fits no mixture: then a
    mixture to fit is an error, not a silent default). Then :func:`comparison_point` runs
    with the generator of ``(seed, "comparison", dataset)``; with ``group_duplicates``, rows
    identical in features (missing cells included) and class share a fold.
    """
    from mixlib.datasets import feature_matrix

    X, y = feature_matrix(prepared)
    groups = duplicate_groups(X, y) if protocol.group_duplicates else None
    if np.isnan(X).any():
        imputer = make_imputer(impute["method"], em=em,
                               kernels_per_feature=impute.get("kernels_per_feature"),
                               random_state=generator(seed, "comparison_impute", dataset))
        X = imputer.fit_transform(X)
    return comparison_point(X, y, dataset, model, params, protocol.n_folds,
                            protocol.significance_level, generator(seed, "comparison", dataset),
                            standardise=standardise, groups=groups,
                            n_repeats=protocol.cv_repeats, em=em)


def comparison_holdout_job(repeats: Sequence[RepeatData], *, split: str, dataset: str,
                           model: str, params: Mapping[str, Any] | None,
                           protocol: ComparisonProtocol, seed: int, standardise: bool,
                           em: EMSettings | None) -> ComparisonRun:
    """The ``comparison_holdout_point`` rule: one model on every repeat of one split.

    Parameters
    ----------
    repeats : sequence of RepeatData
        Every repeat of the split (roles ``train`` and ``test``), imputed, not standardised:
        each is one unit, standardised from its training rows when ``standardise``.
    split, dataset : str
        The split's name and its data set (the ``split`` and ``dataset`` columns).
    model, params, em
        As in :func:`comparison_dataset_job`.
    protocol : ComparisonProtocol
        Its significance level sets the intervals.
    seed : int
        The study's seed: repeat ``i`` draws from ``generator(seed, "comparison_holdout",
        split, i)``, the same for every model of the split.

    Returns
    -------
    ComparisonRun
        With ``protocol = "holdout"``, ``n_folds = 1``, ``n_repeats`` the repeats and
        ``group_duplicates = "any"``; with one repeat ``cv_std`` and the intervals are NaN.
    """
    units = [EvaluationUnit(data.repeat, 0, *data["train"], *data["test"],
                            generator(seed, "comparison_holdout", split, data.repeat))
             for data in repeats]
    scores = _score(units, model, params, standardise=standardise, em=em)
    return _tables(scores, protocol=HOLDOUT, dataset=dataset, split=split, model=model,
                   n_folds=1, n_repeats=len(units), group_duplicates=ANY,
                   significance=protocol.significance_level)
