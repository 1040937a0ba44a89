"""The hold-out protocol of the comparison: every model trained on a split's ``train`` rows and
tested on its ``test`` rows, on every repeat of the split (a random split has ``repeats``, a
split fixed by the data one), beside the cross-validation of
:mod:`mixlib.experiments.comparison`.

The arrays come through the experiment contract (:mod:`mixlib.experiments.contract`): in the
pipeline :func:`mixlib.pipeline.workflow.load_repeats` gives one
:class:`~mixlib.experiments.contract.RepeatData` per repeat, imputed with the split's
substitutes (fit on the repeat's training rows) and, for numeric data, standardised with the
mean and deviation of the training rows. One job per (split, model) runs
:func:`comparison_holdout_job`; its table has the layout of
:data:`mixlib.experiments.comparison.COLUMNS` with ``protocol = "holdout"``, ``n_folds = 1``
and ``n_repeats`` the split's repeats; its ``fold_error`` rows are the test errors of the
repeats (``repeat`` = the split's repeat, ``fold`` = 0).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.experiments.comparison import (
    confusion_rows,
    error_rows,
    fit_and_predict,
    point_table,
    split_protocol_params,
    with_em,
)
from mixlib.experiments.contract import RepeatData, Stage, run_stages
from mixlib.experiments.registry import check_params

logger = logging.getLogger(__name__)


def holdout_fit(data: RepeatData, *, rng: np.random.Generator, model: str,
                params: Mapping[str, Any], max_train_rows: int | None) -> pd.DataFrame:
    """Stage function: ``model`` fit on the repeat's ``train`` rows, tested on its ``test`` rows.

    Parameters
    ----------
    data : RepeatData
        One repeat of a split with the roles ``train`` and ``test``.
    rng : numpy.random.Generator
        The repeat's generator: first the subsample of ``max_train_rows`` training rows (if
        set and smaller than the training rows), then the model's ``random_state``.
    model, params : str, mapping
        A registry model and its (checked) parameters.
    max_train_rows : int or None
        Fit on at most this many training rows, drawn without replacement.

    Returns
    -------
    pandas.DataFrame
        Columns ``metric, repeat, fold, n_train, n_test, true_class, predicted_class, value,
        params``: one ``fold_error`` row (``fold`` 0; the test error), ``fit_seconds``,
        ``predict_seconds`` and the ``confusion`` rows of the test rows; ``params`` is the JSON
        text of the resolved parameters.
    """
    X, y = data["train"]
    X_test, y_test = data["test"]
    if max_train_rows is not None and len(y) > max_train_rows:
        rows = np.sort(rng.choice(len(y), max_train_rows, replace=False))
        X, y = X[rows], y[rows]
    predicted, fit_s, predict_s, resolved = fit_and_predict(model, params, X, y, X_test, rng)
    error = float(np.mean(predicted != y_test))
    logger.info("%s repeat %d: test error %.4f, fit %.2f s", model, data.repeat, error, fit_s)
    rows = [{"metric": "fold_error", "fold": 0, "n_train": len(y), "n_test": len(y_test),
             "value": error},
            {"metric": "fit_seconds", "value": fit_s},
            {"metric": "predict_seconds", "value": predict_s}]
    rows += confusion_rows(np.asarray(y_test), predicted)
    table = pd.DataFrame(rows, columns=["metric", "fold", "n_train", "n_test", "true_class",
                                        "predicted_class", "value"])
    table.insert(1, "repeat", data.repeat)
    table["params"] = json.dumps({**resolved, "max_train_rows": max_train_rows},
                                 sort_keys=True, default=str)
    return table


def comparison_holdout_job(repeats: Sequence[RepeatData], *, split: str, dataset: str,
                           model: str, params: Mapping[str, Any] | None, alpha: float,
                           seed: int, em: Mapping[str, Any] | None) -> pd.DataFrame:
    """The ``comparison_holdout_point`` rule: one model on every repeat of one split.

    Parameters
    ----------
    repeats : sequence of RepeatData
        Every repeat of the split (roles ``train`` and ``test``), imputed and standardised.
    split, dataset : str
        The split's name and its data set (the ``split`` and ``dataset`` columns).
    model : str
        A key of :data:`mixlib.experiments.registry.MODELS`.
    params : mapping or None
        The model's overrides (``comparison.params.<model>``), ``max_train_rows`` included.
    alpha : float
        ``1 - alpha`` is the confidence level of the intervals.
    seed : int
        The study's seed: repeat ``i`` draws from ``generator(seed, "comparison_holdout",
        split, i)``, the same for every model of the split.
    em : mapping or None
        EM settings, required by a model of the mixture family.

    Returns
    -------
    pandas.DataFrame
        The layout of :data:`mixlib.experiments.comparison.COLUMNS`: the ``J`` test errors
        (``fold_error``), their summary (:func:`mixlib.experiments.comparison.error_rows`;
        with one repeat ``cv_std`` and the intervals are NaN), the mean fit and predict
        seconds, and the confusion matrix summed over the repeats.
    """
    params, max_train_rows = split_protocol_params(with_em(model, params, em))
    check_params(model, params)
    stage = Stage(holdout_fit, {"model": model, "params": params,
                                "max_train_rows": max_train_rows},
                  keys=("comparison_holdout", split), repeat_column=None)
    runs = run_stages(stage, list(repeats), seed=seed)
    folds = runs[runs["metric"] == "fold_error"]
    summary = error_rows(folds["value"].to_numpy(), float(folds["n_train"].mean()),
                         float(folds["n_test"].mean()), alpha)
    summary += [{"metric": name, "value": float(runs.loc[runs["metric"] == name,
                                                          "value"].mean())}
                for name in ("fit_seconds", "predict_seconds")]
    confusion = (runs[runs["metric"] == "confusion"]
                 .groupby(["true_class", "predicted_class"], sort=True)["value"].sum()
                 .reset_index().assign(metric="confusion"))
    rows = (summary + folds.drop(columns="params").to_dict("records")
            + confusion.to_dict("records"))
    return point_table(rows, protocol="holdout", dataset=dataset, split=split, model=model,
                       n_folds=1, n_repeats=len(folds), group_duplicates="any", alpha=alpha,
                       record=json.loads(runs["params"].iloc[0]))
