"""The kernel sweep of the semi-supervised methods (report ch. 5, figs. 5.4 and 5.5).

:func:`kernel_sweep_point` is a stage function of one repeat (:mod:`mixlib.experiments.contract`)
like :func:`~mixlib.experiments.semisupervised.semisupervised_rounds`, whose module it builds
on: the same inputs and typed records, each method fit by
:func:`~mixlib.experiments.semisupervised._fit_method` (memoised fits), and the same setting
and final-model columns. :func:`sweep_columns` scores the final model only;
:func:`kernel_sweep_job` runs the stage at every method and kernel count of a pipeline job,
by its columnar twin :func:`kernel_sweep_columns` (:class:`~mixlib.experiments.contract.Columns`,
one DataFrame for the job's repeats).

The *training error* (report fig. 5.4, "erreur d'apprentissage") is the error (hard plus
unknown, :mod:`mixlib.semi_supervised.scoring`) on the originally labelled training examples,
the *test error* (fig. 5.5) the error on the test examples.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings
from mixlib.core.validation import check_random_state
from mixlib.core.vocabulary import ANY
from mixlib.experiments.contract import (Columns, RepeatData, RoleData, columnar, labelled,
                                         run_repeats)
from mixlib.experiments.mixture_errors import error_columns
from mixlib.experiments.semisupervised import (
    _check_inputs,
    _fit_method,
    _pseudo_label_error,
    collapsed_per_class,
    effective_per_class,
    last_round,
    method_settings,
)
from mixlib.semi_supervised import ScoredExamples


def kernel_sweep_columns(data: RepeatData, *, method: str, n_components: int, em: EMSettings,
                         settings: SemiSupervisedSettings,
                         thresholds: Sequence[float] | None = None,
                         rng: np.random.Generator | int | None = None) -> Columns:
    """:func:`kernel_sweep_point`'s table as :class:`~mixlib.experiments.contract.Columns`
    (its columnar twin, for :func:`~mixlib.experiments.contract.run_repeats`)."""
    if thresholds is not None and method == "iterative":
        raise ValueError("thresholds scores a fit that does not use the threshold: not for the "
                         "iterative method, whose assignments depend on it.")
    arrays = _check_inputs(data)
    fitted = _fit_method(method, arrays, n_components, em, settings, check_random_state(rng))
    return sweep_columns(fitted, arrays, method=method, n_components=n_components,
                         settings=settings, thresholds=thresholds)


@columnar(kernel_sweep_columns)
def kernel_sweep_point(
    data: RepeatData,
    *,
    method: str,
    n_components: int,
    em: EMSettings,
    settings: SemiSupervisedSettings,
    thresholds: Sequence[float] | None = None,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Training and test error of one method at one kernel count, one repeat (figs. 5.4, 5.5).

    Parameters
    ----------
    data : RepeatData
        As in :func:`~mixlib.experiments.semisupervised.semisupervised_rounds`.
    method : {"labelled_only", "iterative", "prior"}
        ``"labelled_only"``: a :class:`~mixlib.mixture.MixtureClassifier` fit on the labelled
        examples (the unlabelled ones unused); the others as in
        :func:`~mixlib.experiments.semisupervised.semisupervised_rounds`.
    n_components : int
        Kernels per class (the report: 1 to 32). A class with fewer distinct examples uses
        that many kernels (``MixtureClassifier`` warns).
    em, settings :
        As in :func:`~mixlib.experiments.semisupervised.semisupervised_rounds`.
    thresholds : sequence of float, optional
        Score the one fitted model under each of these confidence thresholds, one block of
        rows per threshold (its ``threshold`` column): for the methods whose fit does not use
        the threshold (``labelled_only``, ``prior``), so a grid of thresholds costs one fit.
        None: ``settings.threshold``.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    pandas.DataFrame
        One row per metric and rule (per threshold), columns ``method``, ``n_components``,
        ``restart``, ``finish``, ``threshold``, ``metric``, ``unclassifiable``, ``value``.
        Metrics of the final model, per rule: ``train_error`` (share of the labelled training
        examples not classified correctly, = ``train_hard_error + train_unknown_error``),
        ``train_hard_error``, ``train_unknown_error``, ``test_error``, ``test_hard_error``,
        ``test_unknown_error``; rule-free: ``effective_components`` (mean over classes of the
        kernels fit) and ``effective_components:<class>``
        (:func:`~mixlib.experiments.semisupervised.effective_per_class`), ``collapsed_kernels``
        (mean over classes of the live kernels at the variance floor), ``n_rounds`` (0 for
        labelled-only) and, for the two semi-supervised methods, ``pseudo_label_error`` (see
        :func:`~mixlib.experiments.semisupervised.semisupervised_rounds`).
    """
    return kernel_sweep_columns(data, method=method, n_components=n_components, em=em,
                                settings=settings, thresholds=thresholds, rng=rng).frame()


def sweep_columns(fitted, arrays: dict[str, RoleData], *, method: str, n_components: int,
                  settings: SemiSupervisedSettings, thresholds: Sequence[float] | None) -> Columns:
    """The table of :func:`kernel_sweep_point` from the fitted method, as
    :class:`~mixlib.experiments.contract.Columns`: the final model scored only."""
    rules = settings.unclassifiable
    wrapped = method != "labelled_only"
    model = fitted.estimator_ if wrapped else fitted
    free = {
        "effective_components": float(np.mean(model.n_components_per_class_)),
        **effective_per_class(model),
        "collapsed_kernels": float(np.mean(collapsed_per_class(model))),
        "n_rounds": float(last_round(fitted)) if wrapped else 0.0,
    }
    if wrapped:
        free["pseudo_label_error"] = _pseudo_label_error(fitted, arrays["unlabelled"].y)
    scored = [ScoredExamples(model, *arrays[role]) for role in ("labelled", "test")]
    thresholds_, metrics, rule_column, values = [], [], [], []
    for threshold in [settings.threshold] if thresholds is None else thresholds:
        rows = []
        for rule in rules:
            errors = error_columns(*(examples.errors(rule, threshold) for examples in scored))
            rows.extend((metric, rule, value) for metric, value in errors.items())
        rows.extend((metric, ANY, value) for metric, value in free.items())
        thresholds_ += [float(threshold)] * len(rows)
        metrics += [metric for metric, _, _ in rows]
        rule_column += [rule for _, rule, _ in rows]
        values += [value for _, _, value in rows]
    columns = {"method": method, "n_components": int(n_components),
               **method_settings(fitted, settings.threshold)}
    columns["threshold"] = np.asarray(thresholds_, dtype=float)
    return Columns({**columns, "metric": metrics, "unclassifiable": rule_column,
                    "value": np.asarray(values, dtype=float)}, len(values))


def kernel_sweep_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                     methods: Sequence[str], kernel_counts: Sequence[int], em: EMSettings,
                     settings: SemiSupervisedSettings) -> pd.DataFrame:
    """The ``kernel_sweep_curve`` rule (figs. 5.4, 5.5): :func:`kernel_sweep_point` of every
    method of ``methods`` at every kernel count ``K`` of ``kernel_counts``, in that order
    (method, then count).

    Repeat ``r`` of method ``m`` at ``K`` draws from ``generator(seed, "kernel_sweep", split, m,
    K, r)``, whatever the other methods and counts; the table gets leading ``split`` and
    ``dataset`` columns and a last ``repeat`` column.
    """
    return pd.concat([
        labelled(run_repeats(kernel_sweep_point, repeats,
                             {"method": method, "n_components": int(k), "em": em,
                              "settings": settings},
                             seed=seed, keys=("kernel_sweep", split, method, int(k))),
                 split=split, dataset=dataset)
        for method in methods for k in kernel_counts], ignore_index=True)
