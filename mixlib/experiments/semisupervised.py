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

``params`` keys (all optional):

- EM settings passed to every :class:`~mixlib.mixture.MixtureClassifier`: ``init``, ``tol``,
  ``max_iter`` (EM iterations), ``min_variance`` or ``relative_min_variance``;
- ``threshold`` (iterative method: an unknown is assigned when its top posterior is strictly
  greater; also the ``confidence`` unclassifiable rule; default 0.75);
- ``max_rounds`` (labelling rounds of the iterative method, default 10; soft-label refits of
  the prior method, default 20);
- ``restart`` (prior method: ``warm``, the default, or ``fresh``), ``finish`` (iterative
  method: ``argmax``, the default, or ``stop``);
- ``unclassifiable``: the rules the unknown error is measured under (default both,
  :data:`~mixlib.semi_supervised.UNCLASSIFIABLE_RULES`).

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
from mixlib.experiments.contract import RepeatData, RoleData, Stage
from mixlib.experiments.mixture_errors import collapsed_per_class, seeded_classifier, train_test_errors
from mixlib.semi_supervised import (
    UNCLASSIFIABLE_RULES,
    IterativeClassifier,
    RoundState,
    check_rules,
    iterative_classification,
    label_errors,
    prior_probability_classification,
)

METHODS = ("labelled_only", "iterative", "prior")
#: ``unclassifiable`` value of the metrics that do not depend on the unclassifiable rule.
ANY_RULE = "any"


def _rules(params: dict[str, Any]) -> tuple[str, ...]:
    """The unclassifiable rules of ``params`` (default: every rule), checked."""
    return check_rules(params.get("unclassifiable", UNCLASSIFIABLE_RULES))


class _RoundScores:
    """Callback of the semi-supervised fits: errors of every round's model, one dict a round.

    Round ``r`` adds ``round`` and, for every rule, ``hard_error_<rule>``,
    ``unknown_error_<rule>`` (on the originally labelled rows) and ``test_hard_error_<rule>``,
    ``test_unknown_error_<rule>`` (on the test rows) from
    :func:`~mixlib.semi_supervised.label_errors`.
    """

    def __init__(self, labelled: RoleData, test: RoleData, rules: tuple[str, ...],
                 threshold: float) -> None:
        self.sets = (("", labelled), ("test_", test))
        self.rules = rules
        self.threshold = threshold
        self.rows: list[dict[str, float]] = []

    def __call__(self, state: RoundState) -> None:
        row = {"round": state.round}
        for rule in self.rules:
            for prefix, (X, y) in self.sets:
                hard, unknown = label_errors(state.estimator, X, y, rule, self.threshold)
                row[f"{prefix}hard_error_{rule}"] = hard
                row[f"{prefix}unknown_error_{rule}"] = unknown
        self.rows.append(row)


def _fit_method(method: str, data: dict[str, RoleData], n_components: int, params: dict[str, Any],
                rng: np.random.Generator, callback=None):
    """Fit one method on the labelled (and unlabelled) rows; the fitted object.

    ``labelled_only``: a MixtureClassifier; the others: the fitted wrapper, whose model of
    every round goes to ``callback``.
    """
    estimator = seeded_classifier(n_components, params, rng)
    threshold = float(params.get("threshold", 0.75))
    X_labelled, y_labelled = data["labelled"]
    X_unlabelled = data["unlabelled"].X
    if method == "labelled_only":
        return estimator.fit(X_labelled, y_labelled)
    if method == "iterative":
        return iterative_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator, threshold=threshold,
            max_iter=int(params.get("max_rounds", 10)), finish=params.get("finish", "argmax"),
            callback=callback,
        )
    if method == "prior":
        return prior_probability_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator,
            max_iter=int(params.get("max_rounds", 20)), restart=params.get("restart", "warm"),
            callback=callback,
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


def method_settings(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The setting columns of a method's rows: ``restart``, ``finish``, ``threshold``.

    ``restart`` applies to the prior method only and ``finish`` to the iterative one; the
    other method gets :data:`ANY_RULE` ("any"). The threshold matters to both (assignment,
    and the ``confidence`` rule).
    """
    return {
        "restart": params.get("restart", "warm") if method == "prior" else ANY_RULE,
        "finish": params.get("finish", "argmax") if method == "iterative" else ANY_RULE,
        "threshold": float(params.get("threshold", 0.75)),
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
    parts.append(free.dropna(subset=["value"]).assign(unclassifiable=ANY_RULE))
    return pd.concat(parts, ignore_index=True)[["round", "metric", "unclassifiable", "value"]]


def semisupervised_rounds(
    data: RepeatData,
    *,
    method: str,
    n_components: int,
    params: dict[str, Any],
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
    params : dict
        See the module docstring.
    setting_columns : sequence of str
        Entries of ``params`` also written as setting columns (floats), after ``threshold``:
        the settings a sensitivity study varies, e.g. ``("relative_min_variance",)``.
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
        (mean over classes of the final model's live kernels at the variance floor).
    """
    if method not in ("iterative", "prior"):
        raise ValueError(f"method must be 'iterative' or 'prior', got {method!r}.")
    arrays = _check_inputs(data)
    rules = _rules(params)
    scores = _RoundScores(arrays["labelled"], arrays["test"], rules, float(params.get("threshold", 0.75)))
    fitted = _fit_method(method, arrays, n_components, params, check_random_state(rng), scores)
    history = pd.DataFrame(scores.rows)
    own, values = _own_metric(fitted, len(arrays["unlabelled"].y))
    history[own] = values
    table = _long_history(history, rules, [own])
    last = _last_round(fitted)
    final = {
        "pseudo_label_error": _pseudo_label_error(fitted, arrays["unlabelled"].y),
        "n_rounds": float(last),
        "collapsed_kernels": float(np.mean(collapsed_per_class(fitted.estimator_))),
    }
    if method == "iterative":
        final["n_argmax"] = float(fitted.n_assigned_by_argmax_)
    final_rows = pd.DataFrame({"round": last, "metric": list(final), "unclassifiable": ANY_RULE,
                               "value": list(final.values())})
    table = pd.concat([table, final_rows], ignore_index=True)
    settings = {"method": method, "n_components": int(n_components), **method_settings(method, params),
                **{column: float(params[column]) for column in setting_columns}}
    return pd.concat([pd.DataFrame(settings, index=table.index), table], axis=1)


def kernel_sweep_point(
    data: RepeatData,
    *,
    method: str,
    n_components: int,
    params: dict[str, Any],
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
    params : dict
        See the module docstring.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    pandas.DataFrame
        One row per metric and rule, columns ``method``, ``n_components``, ``restart``,
        ``finish``, ``threshold``, ``metric``, ``unclassifiable``, ``value``. Metrics of the
        final model, per rule: ``train_error`` (share of the labelled training examples not
        classified correctly, = ``train_hard_error + train_unknown_error``),
        ``train_hard_error``, ``train_unknown_error``, ``test_error``, ``test_hard_error``,
        ``test_unknown_error``; rule-free: ``effective_components`` (mean over classes of the
        kernels fit), ``collapsed_kernels`` (mean over classes of the live kernels at the
        variance floor), ``n_rounds`` (0 for labelled-only) and, for the two semi-supervised
        methods, ``pseudo_label_error`` (see :func:`semisupervised_rounds`).
    """
    arrays = _check_inputs(data)
    rules = _rules(params)
    fitted = _fit_method(method, arrays, n_components, params, check_random_state(rng))
    wrapped = method != "labelled_only"
    model = fitted.estimator_ if wrapped else fitted
    threshold = float(params.get("threshold", 0.75))
    rows = []
    for rule in rules:
        errors = train_test_errors(model, *arrays["labelled"], *arrays["test"], rule, threshold)
        rows.extend((metric, rule, value) for metric, value in errors.items())
    free = {
        "effective_components": float(np.mean(model.n_components_per_class_)),
        "collapsed_kernels": float(np.mean(collapsed_per_class(model))),
        "n_rounds": float(_last_round(fitted)) if wrapped else 0.0,
    }
    if wrapped:
        free["pseudo_label_error"] = _pseudo_label_error(fitted, arrays["unlabelled"].y)
    rows.extend((metric, ANY_RULE, value) for metric, value in free.items())
    table = pd.DataFrame(rows, columns=["metric", "unclassifiable", "value"])
    settings = {"method": method, "n_components": int(n_components), **method_settings(method, params)}
    return pd.concat([pd.DataFrame(settings, index=table.index), table], axis=1)


def rounds_stage(*, split: str, dataset: str, method: str, n_components: int,
                 params: dict[str, Any]) -> Stage:
    """The ``semisupervised_rounds`` rule (figs. 5.1, 5.3): :func:`semisupervised_rounds` of one method.

    Repeat ``r`` draws from ``generator(seed, "semisupervised_rounds", split, method, r)``;
    the table gets leading ``split`` and ``dataset`` columns and a last ``repeat`` column.
    """
    return Stage(semisupervised_rounds,
                 {"method": method, "n_components": n_components, "params": params},
                 keys=("semisupervised_rounds", split, method),
                 leading={"split": split, "dataset": dataset})


def sensitivity_stages(*, split: str, dataset: str, n_components: int, params: dict[str, Any],
                       restarts: Sequence[str]) -> list[Stage]:
    """The ``semisupervised_sensitivity`` rule: both methods at one grid point.

    ``params`` holds the grid point's ``threshold`` and ``relative_min_variance``; the
    iterative method runs once and the prior method once per ``restarts`` entry, each on
    every repeat with the generator of ``(seed, "semisupervised_sensitivity", split, method,
    r)`` (the same initialisations at every grid point, so the settings alone differ). The
    rows are those of :func:`semisupervised_rounds` with a ``relative_min_variance`` setting
    column, leading ``split`` and ``dataset`` columns and a last ``repeat`` column.
    """
    runs = [("iterative", params)] + [("prior", {**params, "restart": restart}) for restart in restarts]
    return [
        Stage(semisupervised_rounds,
              {"method": method, "n_components": n_components, "params": settings,
               "setting_columns": ("relative_min_variance",)},
              keys=("semisupervised_sensitivity", split, method),
              leading={"split": split, "dataset": dataset})
        for method, settings in runs
    ]


def kernel_sweep_stage(*, split: str, dataset: str, method: str, n_components: int,
                       params: dict[str, Any]) -> Stage:
    """The ``kernel_sweep_point`` rule (figs. 5.4, 5.5): :func:`kernel_sweep_point` of one (method, K).

    Repeat ``r`` draws from ``generator(seed, "kernel_sweep", split, method, K, r)``; the
    table gets leading ``split`` and ``dataset`` columns and a last ``repeat`` column.
    """
    return Stage(kernel_sweep_point,
                 {"method": method, "n_components": n_components, "params": params},
                 keys=("kernel_sweep", split, method, int(n_components)),
                 leading={"split": split, "dataset": dataset})


def sensitivity_point_paths(splits: list[str], grid: dict[str, Any] | None) -> list[str]:
    """The tables of every ``semisupervised_sensitivity`` grid point (none without a grid).

    One path per (split, threshold, relative variance floor):
    ``results/semisupervised_sensitivity/{split}.t{threshold}.v{floor}.tsv``, the numbers
    written exactly as Python writes them (``repr``: e.g. ``t0.75``, ``v1e-06``), so two grid
    values never share a file and a job reads back the very value of the config; the restarts
    run inside each job.
    """
    if not grid:
        return []
    return [
        f"results/semisupervised_sensitivity/{split}.t{threshold!r}.v{floor!r}.tsv"
        for split in splits for threshold in grid["thresholds"] for floor in grid["relative_min_variances"]
    ]


def sensitivity_settings(params: dict[str, Any], threshold: str, floor: str) -> dict[str, Any]:
    """The settings of one sensitivity grid point: ``params`` with its threshold and floor.

    The grid's variance floor is relative (``relative_min_variance``) and replaces the
    study's ``min_variance`` or ``relative_min_variance``; ``threshold`` and ``floor`` are the
    job's wildcards.
    """
    settings = {key: value for key, value in params.items()
                if key not in ("min_variance", "relative_min_variance")}
    return {**settings, "threshold": float(threshold), "relative_min_variance": float(floor)}
