"""The rounds of the semi-supervised methods (report ch. 5, figs. 5.1 and 5.3), and the fitting
every chapter-5 stage shares.

:func:`semisupervised_rounds` is a stage function of one repeat (:mod:`mixlib.experiments.contract`):
the repeat's ``labelled``, ``unlabelled`` and ``test`` rows in, a tidy :class:`pandas.DataFrame`
out (no index); :func:`rounds_job` runs it on a job's repeats
(:func:`~mixlib.experiments.contract.run_repeats`) and adds the label columns. All it reads is
here: the fit of a method (:func:`_fit_method`; its mixture classifiers are
:func:`memoised_classifier`, whose fits are computed once per job, :class:`FitMemo`), the scores
of every round (:class:`RoundScores`, a callback of the semi-supervised estimators, which fit on
training rows only) and the table (:func:`rounds_table`). The kernel sweep of figs. 5.4 and 5.5
(:mod:`mixlib.experiments.semisupervised_sweep`) fits with the same functions and shares the
setting and final-model columns. The data are used as given: isotropic kernels assume features
on comparable scales, so pass standardised features (training-row statistics) without NaN.

Errors are fractions in [0, 1] (:mod:`mixlib.semi_supervised.scoring`): on a set of labelled
examples, the *hard error* is the share classified into a wrong class, the *unknown error* the
share the model cannot classify (``MixtureClassifier.unclassifiable``), and the *error* their
sum. Every stage takes two typed records (:mod:`mixlib.catalogue.settings`): ``em``, the
:class:`~mixlib.catalogue.settings.EMSettings` of every mixture classifier it fits, and
``settings``, the :class:`~mixlib.catalogue.settings.SemiSupervisedSettings` (the confidence
threshold, the rounds, ``restart``, ``finish`` and the unclassifiable rules). A setting the
record leaves None takes the method's own default; the tables record the value each method ran
with. Tables are long: a rule-dependent metric has one row per rule (``unclassifiable``), the
others ``unclassifiable = "any"``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.catalogue.registry import seeded_classifier
from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings
from mixlib.core.validation import check_random_state, check_X_y
from mixlib.core.vocabulary import ANY
from mixlib.experiments.contract import RepeatData, RoleData, labelled, run_repeats
from mixlib.mixture import MixtureClassifier, kernel_counts
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


def memoised_classifier(n_components: int, em: EMSettings,
                        rng: np.random.Generator) -> MixtureClassifier:
    """:func:`~mixlib.catalogue.registry.seeded_classifier` whose fits are looked up in :data:`FITS` first.

    The stages refit with the same seed on the same rows again and again: every threshold of
    the iterative method starts from the same labelled-only fit (and goes on alike while the
    thresholds assign the same rows), the prior method's warm and fresh restarts share theirs.
    Such a fit (a function of what :meth:`FitMemo.key` reads) is computed once per job, its
    fitted attributes shared (read, never changed in place, by the stages); a fit found in the
    memo raises none of the warnings the first one raised.
    """
    return FITS.classifier(seeded_classifier(n_components, em, rng))


def _digest(array: Any) -> Hashable:
    if array is None:
        return None
    array = np.ascontiguousarray(array)
    if array.dtype == object:
        raise TypeError("object array")
    return (array.shape, array.dtype.str, hashlib.blake2b(array.view(np.uint8).ravel(),
                                                          digest_size=16).digest())


class FitMemo:
    """Fitted :class:`~mixlib.mixture.MixtureClassifier` attributes by what determines them.

    A fit of the classifier with an integer ``random_state`` is a function of its parameters,
    of ``X``, the labels (hard or soft), ``classes`` and ``sample_weight`` and, under
    ``warm_start``, of the fit it continues from (its own key). The memo keeps the fitted
    attributes of the last ``capacity`` fits under that key.
    """

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._fits: OrderedDict[Hashable, dict[str, Any]] = OrderedDict()
        self.hits = self.misses = 0
        # The parameter names, read once (get_params inspects the signature at every call).
        self._names = tuple(MixtureClassifier._param_names())
        memo = self

        class Memoised(MixtureClassifier):
            def fit(self, X, y=None, sample_weight=None, *, soft_labels=None, classes=None):
                key = memo.key(self, X, y, sample_weight, soft_labels, classes)
                fitted = None if key is None else memo._fits.get(key)
                if fitted is not None:
                    memo.hits += 1
                    memo._fits.move_to_end(key)
                    self.__dict__.update(fitted)
                    return self
                super().fit(X, y, sample_weight, soft_labels=soft_labels, classes=classes)
                self._fit_key = key
                if key is not None:
                    memo.misses += 1
                    memo._fits[key] = {name: value for name, value in vars(self).items()
                                       if name.endswith("_") or name == "_fit_key"}
                    if len(memo._fits) > memo.capacity:
                        memo._fits.popitem(last=False)
                return self

        Memoised.__name__ = Memoised.__qualname__ = "MixtureClassifier"
        self._type = Memoised

    def classifier(self, estimator: MixtureClassifier) -> MixtureClassifier:
        """An unfitted classifier with ``estimator``'s parameters whose fits use this memo."""
        return self._type(**estimator.get_params())

    def key(self, estimator: MixtureClassifier, X, y, sample_weight, soft_labels,
            classes) -> Hashable | None:
        """What a fit depends on; None when it cannot be memoised (a random generator, object
        labels, or a warm start from a fit the memo did not make)."""
        params = {name: getattr(estimator, name) for name in self._names}
        if not isinstance(params["random_state"], (int, np.integer)):
            return None
        previous = None
        if params["warm_start"] and hasattr(estimator, "mixtures_"):
            previous = getattr(estimator, "_fit_key", None)
            if previous is None:
                return None
        try:
            return (tuple(params.items()), previous,
                    *(_digest(a) for a in (X, y, sample_weight, soft_labels, classes)))
        except TypeError:
            return None


#: The memo of :func:`memoised_classifier`: one per process, i.e. per job.
FITS = FitMemo()


def _fit_method(method: str, data: dict[str, RoleData], n_components: int, em: EMSettings,
                settings: SemiSupervisedSettings, rng: np.random.Generator, callback=None):
    """Fit one method on the labelled (and unlabelled) rows; the fitted object.

    ``labelled_only``: a MixtureClassifier; the others: the fitted wrapper, whose model of
    every round goes to ``callback``. ``settings.max_rounds`` is the wrapper's ``max_iter``.
    """
    estimator = memoised_classifier(n_components, em, rng)
    X_labelled, y_labelled = data["labelled"]
    X_unlabelled = data["unlabelled"].X
    if method == "labelled_only":
        return estimator.fit(X_labelled, y_labelled)
    if method == "iterative":
        return iterative_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator,
            threshold=settings.threshold, callback=callback,
            **_given(max_iter=settings.max_rounds, finish=settings.finish))
    if method == "prior":
        return prior_probability_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator, callback=callback,
            **_given(max_iter=settings.max_rounds, restart=settings.restart))
    raise ValueError(f"method must be one of {METHODS}, got {method!r}.")


def _check_inputs(data: RepeatData) -> dict[str, RoleData]:
    """The ``labelled``, ``unlabelled`` (classes hidden from the methods) and ``test`` rows, checked."""
    return {role: RoleData(*check_X_y(*data[role])) for role in ("labelled", "unlabelled", "test")}


class RoundScores:
    """Callback of the semi-supervised fits: errors of every round's model, one dict a round.

    ``moved`` marks the unlabelled examples whose argmax class under some round's model
    differed from that under the previous round's (the prior method's migrations). Round ``r``
    adds ``round`` and, for every rule, ``hard_error_<rule>``, ``unknown_error_<rule>`` (on the
    originally labelled rows), ``test_hard_error_<rule>``, ``test_unknown_error_<rule>`` (on the
    test rows) from :class:`~mixlib.semi_supervised.ScoredExamples` (posteriors once a round).
    """

    def __init__(self, labelled: RoleData, test: RoleData, rules: tuple[str, ...],
                 threshold: float, unlabelled: np.ndarray) -> None:
        self.sets = (("", labelled), ("test_", test))
        self.rules, self.threshold, self.unlabelled = rules, threshold, unlabelled
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

    ``unknown``: unlabelled examples not yet assigned when the model was fit, over all unlabelled
    examples (0 without any); ``flips``: argmax classes changed since the previous round, over
    the unlabelled examples (NaN in round 0).
    """
    if isinstance(fitted, IterativeClassifier):
        counts = fitted.history_["n_unknown"]
        return "unknown", counts / n_unlabelled if n_unlabelled else np.zeros(len(counts))
    return "flips", fitted.history_["n_flips"] / n_unlabelled


def method_settings(fitted, threshold: float) -> dict[str, Any]:
    """The setting columns of a fitted method's rows: ``restart``, ``finish``, ``threshold``.

    ``restart`` (the prior method's) and ``finish`` (the iterative method's) are those the fitted
    wrapper ran with; a method without the setting (the other wrapper, or a labelled-only
    classifier) gets :data:`~mixlib.core.vocabulary.ANY`. The threshold the rows are scored at
    matters to every method (the ``confidence`` rule) and to the iterative method's assignments.
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


def collapsed_per_class(model: MixtureClassifier) -> np.ndarray:
    """Collapsed (live, at the variance floor) kernels of each class mixture of ``model``."""
    return np.array([kernel_counts(mixture)[1] for mixture in model.mixtures_], dtype=float)


def posterior_margin(model, X: np.ndarray) -> np.ndarray:
    """``p_(1)(x) - p_(2)(x)``, the top posterior minus the runner-up, shape (n_samples,).

    0 on a class boundary, 1 far inside a class: how close each example lies to the
    boundaries of ``model`` (0 with a single class).
    """
    proba = np.sort(model.predict_proba(X), axis=1)
    return proba[:, -1] - (proba[:, -2] if proba.shape[1] > 1 else 1.0)


def _run_metrics(fitted, scores: RoundScores) -> dict[str, float]:
    """Once-per-run metrics of the migrations (prior) or of the margin's reach (iterative).

    Iterative: ``unassigned_by_margin``, the share of unlabelled examples the confidence margin
    never assigned (those a ``finish="argmax"`` round forced, or left unknown by ``finish="stop"``).
    Prior: ``migrant_share``, the share of unlabelled examples whose argmax class changed in some
    round; ``migrant_margin`` and ``resident_margin``, the mean :func:`posterior_margin` under the
    final model of those examples and of the others (NaN for an empty group).
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

    def extend(metric: str, rule: str, values: list[float], at: list[int] = rounds) -> None:
        for column, added in zip(columns, (at, [metric] * len(values), [rule] * len(values), values)):
            column.extend(added)

    for rule in rules:
        for metric in ("hard_error", "unknown_error", "test_hard_error", "test_unknown_error"):
            extend(metric, rule, [row[f"{metric}_{rule}"] for row in rows])
        extend("test_error", rule, [row[f"test_hard_error_{rule}"] + row[f"test_unknown_error_{rule}"]
                                    for row in rows])
    kept = [(round_, value) for round_, value in zip(rounds, own_values.tolist()) if not np.isnan(value)]
    extend(own, ANY, [value for _, value in kept], [round_ for round_, _ in kept])
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


def semisupervised_rounds(data: RepeatData, *, method: str, n_components: int, em: EMSettings,
                          settings: SemiSupervisedSettings, setting_columns: Sequence[str] = (),
                          rng: np.random.Generator | int | None = None) -> pd.DataFrame:
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
    em, settings : EMSettings, SemiSupervisedSettings
        The typed records (see the module's docstring).
    setting_columns : sequence of str
        EM settings (fields of ``em``) also written as setting columns (floats), after
        ``threshold``: those a sensitivity study varies, e.g. ``("relative_min_variance",)``.
    rng : numpy.random.Generator, int or None
        Drives the EM initialisations of every round.

    Returns
    -------
    pandas.DataFrame
        Long table, columns ``method``, ``n_components``, ``restart``, ``finish``,
        ``threshold`` (:func:`method_settings`), the ``setting_columns``, ``round`` (0: the model
        fit on the labelled examples only; ``r``: after ``r`` labelling rounds / soft-label
        refits; the last round is the final model: a repeat's rounds stop at convergence, so a
        figure should hold each repeat at its last value), ``metric``, ``unclassifiable``,
        ``value``.
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
    scores = RoundScores(arrays["labelled"], arrays["test"], settings.unclassifiable,
                          settings.threshold, arrays["unlabelled"].X)
    fitted = _fit_method(method, arrays, n_components, em, settings, check_random_state(rng), scores)
    return rounds_table(fitted, scores, scores.rows, arrays, method=method, n_components=n_components,
                        em=em, settings=settings, setting_columns=setting_columns)


def rounds_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
               methods: Sequence[str], n_components: int, em: EMSettings,
               settings: SemiSupervisedSettings, first: int, needed: int) -> pd.DataFrame:
    """The ``semisupervised_rounds`` rule (figs. 5.1, 5.3): :func:`semisupervised_rounds` of
    each of ``methods`` in turn: its first ``first`` repeats, then more until ``needed`` count
    (:func:`counted_repeats`; :func:`~mixlib.experiments.contract.run_repeats`). Repeat ``r``
    draws from ``generator(seed, "semisupervised_rounds", split, method, r)``; the table gets
    leading ``split`` and ``dataset`` columns and a last ``repeat`` column."""
    return pd.concat([labelled(run_repeats(
        semisupervised_rounds, repeats,
        {"method": method, "n_components": n_components, "em": em, "settings": settings},
        seed=seed, keys=("semisupervised_rounds", split, method), first=first, needed=needed,
        counts=counted_repeats(method)), split=split, dataset=dataset) for method in methods],
        ignore_index=True)


def has_migrants(table: pd.DataFrame) -> bool:
    """Whether one repeat's prior-method :func:`semisupervised_rounds` table has, at its last
    round, both a migrant and a resident margin: the repeats the "zones frontières" claim
    is measured on (:func:`mixlib.analysis.claims_measures.migrants_margin_gap`)."""
    last = table[table["round"].to_numpy() == table["round"].max()]
    margins = last[last["metric"].isin(["migrant_margin", "resident_margin"])].dropna(subset=["value"])
    return set(margins["metric"]) == {"migrant_margin", "resident_margin"}


def counted_repeats(method: str) -> Callable[[pd.DataFrame], bool]:
    """Which repeats of ``method``'s rounds table a claim counts: for the prior method those
    with migrants (:func:`has_migrants`), for the others every one."""
    return has_migrants if method == "prior" else (lambda table: True)
