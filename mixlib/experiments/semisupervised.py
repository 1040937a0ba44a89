"""Experiments on unlabelled data (report ch. 5, figs. 5.1, 5.3-5.5).

Each experiment is a stage function of one repeat (:mod:`mixlib.experiments.contract`): the
repeat's ``labelled``, ``unlabelled`` and ``test`` rows, keyword parameters and a generator
in, a tidy :class:`pandas.DataFrame` out (no index; errors as fractions in [0, 1]). The
``*_stage`` functions describe the pipeline's stages (seed keys, label columns), which
:func:`~mixlib.experiments.contract.run_stages` runs on every repeat. The data are used as
given: isotropic kernels assume features on comparable scales, so pass standardised features
(statistics of the training rows) without NaN (impute first).

Error definitions (see :mod:`mixlib.semi_supervised.scoring`): on a set of labelled examples, the
*hard error* is the share classified into a wrong class, the *unknown error* the share the
model cannot classify (``MixtureClassifier.unclassifiable``), and the *error* their sum, the
share not classified correctly. The *training error* (report fig. 5.4, "erreur
d'apprentissage") is the error on the originally labelled training examples, the *test error*
(fig. 5.5) the error on the test examples.

Every stage takes two typed records (:mod:`mixlib.experiments.settings`): ``em``, the
:class:`~mixlib.experiments.settings.EMSettings` of every
:class:`~mixlib.mixture.MixtureClassifier` it fits, and ``settings``, the
:class:`~mixlib.experiments.settings.SemiSupervisedSettings` (the confidence threshold, the
rounds, ``restart``, ``finish`` and the unclassifiable rules). A method setting the record
leaves None takes the method's own default; the tables record the value each method ran with.

Tables are long: one row per (round,) metric and rule. Metrics that depend on the
unclassifiable rule (hard, unknown and total errors) have one row per rule, its name in the
``unclassifiable`` column; the others (``unknown``, ``flips``, ``n_rounds``, ...) have
``unclassifiable = "any"``. The per-round scores come from a callback of the semi-supervised
estimators (:class:`~mixlib.semi_supervised.RoundState`), which fit on training rows only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state, check_X_y
from mixlib.core.vocabulary import ANY
from mixlib.experiments.contract import RepeatData, RoleData, Stage
from mixlib.experiments.mixture_errors import collapsed_per_class, error_columns, seeded_classifier
from mixlib.experiments.settings import EMSettings, SemiSupervisedSettings
from mixlib.semi_supervised import (
    IterativeClassifier,
    PriorProbabilityClassifier,
    RoundState,
    ScoredExamples,
    iterative_classification,
    prior_probability_classification,
)

METHODS = ("labelled_only", "iterative", "prior")


def _given(**settings: Any) -> dict[str, Any]:
    """The keyword arguments of ``settings`` that are not None (None: the method's default)."""
    return {key: value for key, value in settings.items() if value is not None}


class _RoundScores:
    """Callback of the semi-supervised fits: errors of every round's model, one dict a round.

    ``moved`` marks the unlabelled examples whose argmax class under some round's model
    differed from that under the previous round's (the prior method's migrations). Round
    ``r`` adds ``round`` and, for every rule, ``hard_error_<rule>``,
    ``unknown_error_<rule>`` (on the originally labelled rows) and ``test_hard_error_<rule>``,
    ``test_unknown_error_<rule>`` (on the test rows) from
    :class:`~mixlib.semi_supervised.ScoredExamples` (each set's posteriors computed once a
    round, whatever the rules).
    """

    def __init__(self, labelled: RoleData, test: RoleData, rules: tuple[str, ...],
                 threshold: float, unlabelled: np.ndarray) -> None:
        self.sets = (("", labelled), ("test_", test))
        self.rules = rules
        self.threshold = threshold
        self.unlabelled = unlabelled
        self.rows: list[dict[str, float]] = []
        self.moved = np.zeros(len(unlabelled), dtype=bool)
        self._previous: np.ndarray | None = None

    def __call__(self, state: RoundState) -> None:
        if len(self.unlabelled):
            classes = state.estimator.predict_proba(self.unlabelled).argmax(axis=1)
            if self._previous is not None:
                self.moved |= classes != self._previous
            self._previous = classes
        row = {"round": state.round}
        scored = [(prefix, ScoredExamples(state.estimator, X, y)) for prefix, (X, y) in self.sets]
        for rule in self.rules:
            for prefix, examples in scored:
                hard, unknown = examples.errors(rule, self.threshold)
                row[f"{prefix}hard_error_{rule}"] = hard
                row[f"{prefix}unknown_error_{rule}"] = unknown
        self.rows.append(row)


def _fit_method(method: str, data: dict[str, RoleData], n_components: int, em: EMSettings,
                settings: SemiSupervisedSettings, rng: np.random.Generator, callback=None):
    """Fit one method on the labelled (and unlabelled) rows; the fitted object.

    ``labelled_only``: a MixtureClassifier; the others: the fitted wrapper, whose model of
    every round goes to ``callback``. ``settings.max_rounds`` is the wrapper's ``max_iter``.
    """
    estimator = seeded_classifier(n_components, em, rng)
    X_labelled, y_labelled = data["labelled"]
    X_unlabelled = data["unlabelled"].X
    if method == "labelled_only":
        return estimator.fit(X_labelled, y_labelled)
    if method == "iterative":
        return iterative_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator,
            threshold=settings.threshold, callback=callback,
            **_given(max_iter=settings.max_rounds, finish=settings.finish),
        )
    if method == "prior":
        return prior_probability_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator, callback=callback,
            **_given(max_iter=settings.max_rounds, restart=settings.restart),
        )
    raise ValueError(f"method must be one of {METHODS}, got {method!r}.")


def _last_round(fitted) -> int:
    """The round of a fitted wrapper's final model (rounds are numbered from 0)."""
    return len(next(iter(fitted.history_.values()))) - 1


def _own_metric(fitted, n_unlabelled: int) -> tuple[str, np.ndarray]:
    """The wrapper's own per-round metric: iterative ``unknown``, prior ``flips`` (shares).

    ``unknown``: unlabelled examples not yet assigned when the model was fit, over all
    unlabelled examples (0 without any); ``flips``: argmax classes changed since the
    previous round, over the unlabelled examples (NaN in round 0).
    """
    if isinstance(fitted, IterativeClassifier):
        counts = fitted.history_["n_unknown"]
        return "unknown", counts / n_unlabelled if n_unlabelled else np.zeros(len(counts))
    return "flips", fitted.history_["n_flips"] / n_unlabelled


def method_settings(fitted, threshold: float) -> dict[str, Any]:
    """The setting columns of a fitted method's rows: ``restart``, ``finish``, ``threshold``.

    ``restart`` (the prior method's) and ``finish`` (the iterative method's) are those the
    fitted wrapper ran with; a method without the setting (the other wrapper, or a
    labelled-only classifier) gets :data:`~mixlib.core.vocabulary.ANY`. The threshold the
    rows are scored at matters to every method (the ``confidence`` rule) and to the iterative
    method's assignments.
    """
    return {
        "restart": fitted.restart if isinstance(fitted, PriorProbabilityClassifier) else ANY,
        "finish": fitted.finish if isinstance(fitted, IterativeClassifier) else ANY,
        "threshold": float(threshold),
    }


def _check_inputs(data: RepeatData) -> dict[str, RoleData]:
    """The ``labelled``, ``unlabelled`` (classes hidden from the methods) and ``test`` rows, checked."""
    return {role: RoleData(*check_X_y(*data[role])) for role in ("labelled", "unlabelled", "test")}


def _pseudo_label_error(fitted, y_unlabelled_hidden: np.ndarray) -> float:
    """Share of wrongly labelled unlabelled examples among those given a class by the method.

    Iterative: the assigned examples (``labeled_iter_ > 0``; NaN if none); prior: every
    unlabelled example, by the argmax of its final ``q``.
    """
    n_labelled = len(fitted.transduction_) - len(y_unlabelled_hidden)
    labels = fitted.transduction_[n_labelled:]
    if isinstance(fitted, IterativeClassifier):
        assigned = fitted.labeled_iter_[n_labelled:] > 0
        if not assigned.any():
            return float("nan")
        return float(np.mean(labels[assigned] != y_unlabelled_hidden[assigned]))
    return float(np.mean(labels != y_unlabelled_hidden))


def effective_per_class(model) -> dict[str, float]:
    """``effective_components:<class>``: the kernels fit for each class of a fitted
    :class:`~mixlib.mixture.MixtureClassifier`, after the cap at the class's distinct
    training rows (and, under warm restarts, at round 0's count)."""
    return {f"effective_components:{label}": float(k)
            for label, k in zip(model.classes_, model.n_components_per_class_)}


def posterior_margin(model, X: np.ndarray) -> np.ndarray:
    """``p_(1)(x) - p_(2)(x)``, the top posterior minus the runner-up, shape (n_samples,).

    0 on a class boundary, 1 far inside a class: how close each example lies to the
    boundaries of ``model`` (0 with a single class).
    """
    proba = np.sort(model.predict_proba(X), axis=1)
    return proba[:, -1] - (proba[:, -2] if proba.shape[1] > 1 else 1.0)


def _run_metrics(fitted, scores: _RoundScores) -> dict[str, float]:
    """Once-per-run metrics of the migrations (prior) or of the margin's reach (iterative).

    Iterative: ``unassigned_by_margin``, the share of unlabelled examples the confidence
    margin never assigned (those a ``finish="argmax"`` round forced, or left unknown by
    ``finish="stop"``). Prior: ``migrant_share``, the share of unlabelled examples whose
    argmax class changed in some round; ``migrant_margin`` and ``resident_margin``, the
    mean :func:`posterior_margin` under the final model of those examples and of the others
    (NaN for an empty group).
    """
    n_unlabelled = len(scores.unlabelled)
    if isinstance(fitted, IterativeClassifier):
        left = fitted.n_assigned_by_argmax_ + int(fitted.history_["n_unknown"][-1])
        return {"unassigned_by_margin": left / n_unlabelled if n_unlabelled else 0.0}
    if not n_unlabelled:
        return {"migrant_share": np.nan, "migrant_margin": np.nan, "resident_margin": np.nan}
    moved = scores.moved
    margin = posterior_margin(fitted.estimator_, scores.unlabelled)
    return {"migrant_share": float(moved.mean()),
            "migrant_margin": float(margin[moved].mean()) if moved.any() else np.nan,
            "resident_margin": float(margin[~moved].mean()) if (~moved).any() else np.nan}


def _long_history(history: pd.DataFrame, rules: tuple[str, ...], free_metrics: list[str]) -> pd.DataFrame:
    """Wide per-round scores as long rows ``round, metric, unclassifiable, value``."""
    parts = []
    for rule in rules:
        wide = pd.DataFrame({"round": history["round"]})
        for base in ("hard_error", "unknown_error", "test_hard_error", "test_unknown_error"):
            wide[base] = history[f"{base}_{rule}"]
        wide["test_error"] = wide["test_hard_error"] + wide["test_unknown_error"]
        parts.append(wide.melt(id_vars="round", var_name="metric").assign(unclassifiable=rule))
    free = history.melt(id_vars="round", value_vars=free_metrics, var_name="metric")
    parts.append(free.dropna(subset=["value"]).assign(unclassifiable=ANY))
    return pd.concat(parts, ignore_index=True)[["round", "metric", "unclassifiable", "value"]]


def semisupervised_rounds(
    data: RepeatData,
    *,
    method: str,
    n_components: int,
    em: EMSettings,
    settings: SemiSupervisedSettings,
    setting_columns: Sequence[str] = (),
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Counters of every round of one semi-supervised run (figs. 5.1 and 5.3; one repeat).

    Parameters
    ----------
    data : RepeatData
        Roles ``labelled`` (the report: 36 labelled training examples, standardised, no
        NaN), ``unlabelled`` (training examples used without their class, the report: about
        100; their true classes are never shown to the method, only the final
        ``pseudo_label_error`` uses them) and ``test``.
    method : {"iterative", "prior"}
        :class:`~mixlib.semi_supervised.IterativeClassifier` (fig. 5.1) or
        :class:`~mixlib.semi_supervised.PriorProbabilityClassifier` (fig. 5.3).
    n_components : int
        Kernels per class (the report: 4).
    em : EMSettings
        The EM settings of every mixture classifier the method fits.
    settings : SemiSupervisedSettings
        The threshold, rounds, ``restart``, ``finish`` and unclassifiable rules.
    setting_columns : sequence of str
        EM settings (fields of ``em``) also written as setting columns (floats), after
        ``threshold``: those a sensitivity study varies, e.g. ``("relative_min_variance",)``.
    rng : numpy.random.Generator, int or None
        Drives the EM initialisations of every round.

    Returns
    -------
    pandas.DataFrame
        Long table, columns ``method``, ``n_components``, ``restart``, ``finish``,
        ``threshold`` (:func:`method_settings`), the ``setting_columns``, ``round`` (0: the
        model fit on the labelled examples only; ``r``: after ``r`` labelling rounds / soft-label refits; the last round
        is the final model: a repeat's rounds stop at convergence, so a figure should hold
        each repeat at its last value), ``metric``, ``unclassifiable`` and ``value``.
        Metrics of every round, one row per rule: ``hard_error``, ``unknown_error`` (on the
        labelled examples), ``test_hard_error``, ``test_unknown_error``, ``test_error`` (their
        sum); rule-free (``unclassifiable = "any"``): iterative ``unknown`` (share of the
        unlabelled examples not yet assigned when the model was fit), prior ``flips`` (share
        of the unlabelled examples whose argmax class changed since the previous round;
        rounds >= 1). Once per run, with ``round`` = the last round: ``pseudo_label_error``
        (see :func:`_pseudo_label_error`), ``n_rounds`` (the last round), iterative
        ``n_argmax`` (unknowns assigned by the final argmax round) and ``collapsed_kernels``
        (mean over classes of the final model's live kernels at the variance floor),
        ``effective_components:<class>`` (:func:`effective_per_class`) and the metrics of
        :func:`_run_metrics` (iterative ``unassigned_by_margin``; prior ``migrant_share``,
        ``migrant_margin``, ``resident_margin``).
    """
    if method not in ("iterative", "prior"):
        raise ValueError(f"method must be 'iterative' or 'prior', got {method!r}.")
    arrays = _check_inputs(data)
    rules = settings.unclassifiable
    scores = _RoundScores(arrays["labelled"], arrays["test"], rules, settings.threshold,
                          arrays["unlabelled"].X)
    fitted = _fit_method(method, arrays, n_components, em, settings, check_random_state(rng),
                         scores)
    history = pd.DataFrame(scores.rows)
    own, values = _own_metric(fitted, len(arrays["unlabelled"].y))
    history[own] = values
    table = _long_history(history, rules, [own])
    last = _last_round(fitted)
    final = {
        "pseudo_label_error": _pseudo_label_error(fitted, arrays["unlabelled"].y),
        "n_rounds": float(last),
        "collapsed_kernels": float(np.mean(collapsed_per_class(fitted.estimator_))),
        **effective_per_class(fitted.estimator_),
        **_run_metrics(fitted, scores),
    }
    if method == "iterative":
        final["n_argmax"] = float(fitted.n_assigned_by_argmax_)
    final_rows = pd.DataFrame({"round": last, "metric": list(final), "unclassifiable": ANY,
                               "value": list(final.values())})
    table = pd.concat([table, final_rows], ignore_index=True)
    columns = {"method": method, "n_components": int(n_components),
               **method_settings(fitted, settings.threshold),
               **{column: float(getattr(em, column)) for column in setting_columns}}
    return pd.concat([pd.DataFrame(columns, index=table.index), table], axis=1)


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
        As in :func:`semisupervised_rounds`.
    method : {"labelled_only", "iterative", "prior"}
        ``"labelled_only"``: a :class:`~mixlib.mixture.MixtureClassifier` fit on the labelled
        examples (the unlabelled ones unused); the others as in :func:`semisupervised_rounds`.
    n_components : int
        Kernels per class (the report: 1 to 32). A class with fewer distinct examples uses
        that many kernels (``MixtureClassifier`` warns).
    em, settings :
        As in :func:`semisupervised_rounds`.
    thresholds : sequence of float, optional
        Score the one fitted model under each of these confidence thresholds, one block of
        rows per threshold (its ``threshold`` column): for the methods whose fit does not use
        the threshold (``labelled_only``, ``prior``), so a grid of thresholds costs one fit.
        None: ``settings.threshold``.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    pandas.DataFrame
        One row per metric and rule (per threshold), columns ``method``, ``n_components``, ``restart``,
        ``finish``, ``threshold``, ``metric``, ``unclassifiable``, ``value``. Metrics of the
        final model, per rule: ``train_error`` (share of the labelled training examples not
        classified correctly, = ``train_hard_error + train_unknown_error``),
        ``train_hard_error``, ``train_unknown_error``, ``test_error``, ``test_hard_error``,
        ``test_unknown_error``; rule-free: ``effective_components`` (mean over classes of the
        kernels fit) and ``effective_components:<class>`` (:func:`effective_per_class`),
        ``collapsed_kernels`` (mean over classes of the live kernels at the
        variance floor), ``n_rounds`` (0 for labelled-only) and, for the two semi-supervised
        methods, ``pseudo_label_error`` (see :func:`semisupervised_rounds`).
    """
    arrays = _check_inputs(data)
    rules = settings.unclassifiable
    if thresholds is not None and method == "iterative":
        raise ValueError("thresholds scores a fit that does not use the threshold: not for the "
                         "iterative method, whose assignments depend on it.")
    fitted = _fit_method(method, arrays, n_components, em, settings, check_random_state(rng))
    wrapped = method != "labelled_only"
    model = fitted.estimator_ if wrapped else fitted
    free = {
        "effective_components": float(np.mean(model.n_components_per_class_)),
        **effective_per_class(model),
        "collapsed_kernels": float(np.mean(collapsed_per_class(model))),
        "n_rounds": float(_last_round(fitted)) if wrapped else 0.0,
    }
    if wrapped:
        free["pseudo_label_error"] = _pseudo_label_error(fitted, arrays["unlabelled"].y)
    scored = [ScoredExamples(model, *arrays[role]) for role in ("labelled", "test")]
    blocks = []
    for threshold in [settings.threshold] if thresholds is None else thresholds:
        rows = []
        for rule in rules:
            errors = error_columns(*(examples.errors(rule, threshold) for examples in scored))
            rows.extend((metric, rule, value) for metric, value in errors.items())
        rows.extend((metric, ANY, value) for metric, value in free.items())
        table = pd.DataFrame(rows, columns=["metric", "unclassifiable", "value"])
        columns = {"method": method, "n_components": int(n_components),
                   **method_settings(fitted, threshold)}
        blocks.append(pd.concat([pd.DataFrame(columns, index=table.index), table], axis=1))
    return pd.concat(blocks, ignore_index=True)


def rounds_stage(*, split: str, dataset: str, method: str, n_components: int, em: EMSettings,
                 settings: SemiSupervisedSettings) -> Stage:
    """The ``semisupervised_rounds`` rule (figs. 5.1, 5.3): :func:`semisupervised_rounds` of one method.

    Repeat ``r`` draws from ``generator(seed, "semisupervised_rounds", split, method, r)``;
    the table gets leading ``split`` and ``dataset`` columns and a last ``repeat`` column.
    """
    return Stage(semisupervised_rounds,
                 {"method": method, "n_components": n_components, "em": em, "settings": settings},
                 keys=("semisupervised_rounds", split, method),
                 leading={"split": split, "dataset": dataset})


def kernel_sweep_stage(*, split: str, dataset: str, method: str, n_components: int,
                       em: EMSettings, settings: SemiSupervisedSettings) -> Stage:
    """The ``kernel_sweep_point`` rule (figs. 5.4, 5.5): :func:`kernel_sweep_point` of one (method, K).

    Repeat ``r`` draws from ``generator(seed, "kernel_sweep", split, method, K, r)``; the
    table gets leading ``split`` and ``dataset`` columns and a last ``repeat`` column.
    """
    return Stage(kernel_sweep_point,
                 {"method": method, "n_components": n_components, "em": em, "settings": settings},
                 keys=("kernel_sweep", split, method, int(n_components)),
                 leading={"split": split, "dataset": dataset})
