"""The rows of the chapter-5 tables, from a fitted semi-supervised method (report ch. 5).

:mod:`mixlib.experiments.semisupervised` fits the methods; this module turns a fitted method
(and, for the rounds of figs. 5.1 and 5.3, the scores its callback collected round after
round) into the long tables described there: :func:`rounds_table` for
:func:`~mixlib.experiments.semisupervised.semisupervised_rounds`, :func:`sweep_table` for
:func:`~mixlib.experiments.semisupervised.kernel_sweep_point`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.vocabulary import ANY
from mixlib.experiments.contract import RoleData
from mixlib.experiments.mixture_errors import collapsed_per_class, error_columns
from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings
from mixlib.semi_supervised import (
    IterativeClassifier,
    PriorProbabilityClassifier,
    RoundState,
    ScoredExamples,
)


class RoundScores:
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


def last_round(fitted) -> int:
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


def _run_metrics(fitted, scores: RoundScores) -> dict[str, float]:
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


def _long_rows(rows: list[dict[str, float]], rules: tuple[str, ...], own: str,
               own_values: np.ndarray) -> tuple[list[int], list[str], list[str], list[float]]:
    """Per-round scores as long rows: columns ``round``, ``metric``, ``unclassifiable``,
    ``value``. For each rule, ``hard_error``, ``unknown_error``, ``test_hard_error``,
    ``test_unknown_error`` and ``test_error`` (the last two's sum), each over every round;
    then the wrapper's own metric over the rounds where it is not NaN (rule-free)."""
    rounds = [int(row["round"]) for row in rows]
    columns: tuple[list[int], list[str], list[str], list[float]] = ([], [], [], [])

    def extend(metric: str, rule: str, values: list[float]) -> None:
        columns[0].extend(rounds)
        columns[1].extend([metric] * len(values))
        columns[2].extend([rule] * len(values))
        columns[3].extend(values)

    for rule in rules:
        hard = [row[f"test_hard_error_{rule}"] for row in rows]
        unknown = [row[f"test_unknown_error_{rule}"] for row in rows]
        for base in ("hard_error", "unknown_error"):
            extend(base, rule, [row[f"{base}_{rule}"] for row in rows])
        extend("test_hard_error", rule, hard)
        extend("test_unknown_error", rule, unknown)
        extend("test_error", rule, [h + u for h, u in zip(hard, unknown)])
    for round_, value in zip(rounds, own_values.tolist()):
        if not np.isnan(value):
            columns[0].append(round_)
            columns[1].append(own)
            columns[2].append(ANY)
            columns[3].append(value)
    return columns


def rounds_table(fitted, scores: RoundScores, rows: list[dict[str, float]],
                  arrays: dict[str, RoleData], *, method: str, n_components: int, em: EMSettings,
                  settings: SemiSupervisedSettings, setting_columns: Sequence[str]) -> pd.DataFrame:
    """The table of :func:`semisupervised_rounds` from a fitted wrapper and its rounds' ``rows``.

    Built as columns of plain values and made a DataFrame once (pandas' reshaping per rule
    cost more than the fits of a round)."""
    own, own_values = _own_metric(fitted, len(arrays["unlabelled"].y))
    rounds, metrics, rules, values = _long_rows(rows, settings.unclassifiable, own,
                                                np.asarray(own_values, dtype=float))
    last = last_round(fitted)
    final = {
        "pseudo_label_error": _pseudo_label_error(fitted, arrays["unlabelled"].y),
        "n_rounds": float(last),
        "collapsed_kernels": float(np.mean(collapsed_per_class(fitted.estimator_))),
        **effective_per_class(fitted.estimator_),
        **_run_metrics(fitted, scores),
    }
    if method == "iterative":
        final["n_argmax"] = float(fitted.n_assigned_by_argmax_)
    rounds += [last] * len(final)
    metrics += list(final)
    rules += [ANY] * len(final)
    values += [float(value) for value in final.values()]
    columns = {"method": method, "n_components": int(n_components),
               **method_settings(fitted, settings.threshold),
               **{column: float(getattr(em, column)) for column in setting_columns}}
    return pd.DataFrame({**columns, "round": np.asarray(rounds, dtype=np.int64),
                         "metric": metrics, "unclassifiable": rules,
                         "value": np.asarray(values, dtype=float)},
                        index=pd.RangeIndex(len(values)))


def sweep_table(fitted, arrays: dict[str, RoleData], *, method: str, n_components: int,
                 settings: SemiSupervisedSettings,
                 thresholds: Sequence[float] | None) -> pd.DataFrame:
    """The table of :func:`kernel_sweep_point` from the fitted method."""
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
    # Built as columns of plain values and made a DataFrame once.
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
    return pd.DataFrame({**columns, "metric": metrics, "unclassifiable": rule_column,
                         "value": np.asarray(values, dtype=float)},
                        index=pd.RangeIndex(len(values)))
