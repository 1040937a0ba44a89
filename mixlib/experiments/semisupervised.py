"""Experiments on unlabelled data (report ch. 5, figs. 5.1, 5.3-5.5).

Each experiment is a stage function of one repeat (:mod:`mixlib.experiments.contract`): the
repeat's ``labelled``, ``unlabelled`` and ``test`` rows, keyword parameters and a generator
in, a tidy :class:`pandas.DataFrame` out (no index; errors as fractions in [0, 1]). The
``*_job`` functions run them on a pipeline job's repeats
(:func:`~mixlib.experiments.contract.run_repeats`, with the seed keys) and add the label
columns. The data are used as
given: isotropic kernels assume features on comparable scales, so pass standardised features
(statistics of the training rows) without NaN (impute first).

Error definitions (see :mod:`mixlib.semi_supervised.scoring`): on a set of labelled examples, the
*hard error* is the share classified into a wrong class, the *unknown error* the share the
model cannot classify (``MixtureClassifier.unclassifiable``), and the *error* their sum, the
share not classified correctly. The *training error* (report fig. 5.4, "erreur
d'apprentissage") is the error on the originally labelled training examples, the *test error*
(fig. 5.5) the error on the test examples.

Every stage takes two typed records (:mod:`mixlib.catalogue.settings`): ``em``, the
:class:`~mixlib.catalogue.settings.EMSettings` of every
:class:`~mixlib.mixture.MixtureClassifier` it fits, and ``settings``, the
:class:`~mixlib.catalogue.settings.SemiSupervisedSettings` (the confidence threshold, the
rounds, ``restart``, ``finish`` and the unclassifiable rules). A method setting the record
leaves None takes the method's own default; the tables record the value each method ran with.
Every classifier a stage fits is :func:`memoised_classifier`: the study's seeded mixture
classifier whose fits are computed once per job (:class:`FitMemo`).

Tables are long: one row per (round,) metric and rule. Metrics that depend on the
unclassifiable rule (hard, unknown and total errors) have one row per rule, its name in the
``unclassifiable`` column; the others (``unknown``, ``flips``, ``n_rounds``, ...) have
``unclassifiable = "any"``. The per-round scores come from a callback of the semi-supervised
estimators (:class:`~mixlib.semi_supervised.RoundState`), which fit on training rows only.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state, check_X_y
from mixlib.experiments.contract import RepeatData, RoleData, labelled, run_repeats
from mixlib.experiments.semisupervised_tables import (
    RoundScores,
    last_round,
    rounds_table,
    sweep_table,
)
from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings
from mixlib.catalogue.registry import seeded_classifier
from mixlib.mixture import MixtureClassifier
from mixlib.semi_supervised import (
    IterativeClassifier,
    iterative_classification,
    iterative_classification_finishes,
    prior_probability_classification,
)

METHODS = ("labelled_only", "iterative", "prior")


def _given(**settings: Any) -> dict[str, Any]:
    """The keyword arguments of ``settings`` that are not None (None: the method's default)."""
    return {key: value for key, value in settings.items() if value is not None}


def memoised_classifier(n_components: int, em: EMSettings,
                        rng: np.random.Generator) -> MixtureClassifier:
    """:func:`~mixlib.catalogue.registry.seeded_classifier` whose fits are looked up in
    :data:`FITS` first.

    The semi-supervised stages refit with the same seed on the same rows again and again:
    every threshold of the iterative method starts from the same labelled-only fit (and
    goes on alike while the thresholds assign the same rows), the prior method's warm and
    fresh restarts share theirs. Such a fit is a function of what :meth:`FitMemo.key` reads,
    so it is computed once per job and its fitted attributes are shared (they are read,
    never changed in place, by the stages). A fit found in the memo raises none of the
    warnings the first one raised.
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
            **_given(max_iter=settings.max_rounds, finish=settings.finish),
        )
    if method == "prior":
        return prior_probability_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator, callback=callback,
            **_given(max_iter=settings.max_rounds, restart=settings.restart),
        )
    raise ValueError(f"method must be one of {METHODS}, got {method!r}.")


def _fit_iterative_finishes(data: dict[str, RoleData], n_components: int, em: EMSettings,
                            settings: SemiSupervisedSettings, rng: np.random.Generator,
                            callback=None) -> dict[str, IterativeClassifier]:
    """The iterative method under both finishes from one fit
    (:meth:`~mixlib.semi_supervised.IterativeClassifier.fit_finishes`): ``{"argmax": ...,
    "stop": ...}``, each what :func:`_fit_method` gives with that ``settings.finish``."""
    return iterative_classification_finishes(
        *data["labelled"], data["unlabelled"].X, estimator=memoised_classifier(n_components, em, rng),
        threshold=settings.threshold, callback=callback, **_given(max_iter=settings.max_rounds))


def _check_inputs(data: RepeatData) -> dict[str, RoleData]:
    """The ``labelled``, ``unlabelled`` (classes hidden from the methods) and ``test`` rows, checked."""
    return {role: RoleData(*check_X_y(*data[role])) for role in ("labelled", "unlabelled", "test")}


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
    scores = RoundScores(arrays["labelled"], arrays["test"], settings.unclassifiable,
                          settings.threshold, arrays["unlabelled"].X)
    fitted = _fit_method(method, arrays, n_components, em, settings, check_random_state(rng),
                         scores)
    return rounds_table(fitted, scores, scores.rows, arrays, method=method,
                         n_components=n_components, em=em, settings=settings,
                         setting_columns=setting_columns)


def iterative_rounds_by_finish(
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    settings: SemiSupervisedSettings,
    setting_columns: Sequence[str] = (),
    rng: np.random.Generator | int | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`semisupervised_rounds` of the iterative method under both finishes, from one fit.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``{"argmax": ..., "stop": ...}``: the table of
        ``semisupervised_rounds(data, method="iterative", settings=settings.replaced(finish=f),
        ...)`` for each finish ``f`` (``settings.finish`` is not used), value for value: the
        ``"stop"`` fit is the ``"argmax"`` fit cut before its argmax round
        (:meth:`~mixlib.semi_supervised.IterativeClassifier.fit_finishes`), so its rounds
        are the first rounds of the ``"argmax"`` fit.
    """
    arrays = _check_inputs(data)
    scores = RoundScores(arrays["labelled"], arrays["test"], settings.unclassifiable,
                          settings.threshold, arrays["unlabelled"].X)
    fits = _fit_iterative_finishes(arrays, n_components, em, settings, check_random_state(rng),
                                   scores)
    return {finish: rounds_table(fitted, scores, scores.rows[:last_round(fitted) + 1], arrays,
                                  method="iterative", n_components=n_components, em=em,
                                  settings=settings, setting_columns=setting_columns)
            for finish, fitted in fits.items()}


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
    if thresholds is not None and method == "iterative":
        raise ValueError("thresholds scores a fit that does not use the threshold: not for the "
                         "iterative method, whose assignments depend on it.")
    arrays = _check_inputs(data)
    fitted = _fit_method(method, arrays, n_components, em, settings, check_random_state(rng))
    return sweep_table(fitted, arrays, method=method, n_components=n_components,
                        settings=settings, thresholds=thresholds)


def iterative_sweep_by_finish(
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    settings: SemiSupervisedSettings,
    rng: np.random.Generator | int | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`kernel_sweep_point` of the iterative method under both finishes, from one fit.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``{"argmax": ..., "stop": ...}``: the table of ``kernel_sweep_point(data,
        method="iterative", settings=settings.replaced(finish=f), ...)`` for each finish
        ``f``, value for value (see :func:`iterative_rounds_by_finish`).
    """
    arrays = _check_inputs(data)
    fits = _fit_iterative_finishes(arrays, n_components, em, settings, check_random_state(rng))
    return {finish: sweep_table(fitted, arrays, method="iterative", n_components=n_components,
                                 settings=settings, thresholds=None)
            for finish, fitted in fits.items()}


def rounds_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
               method: str, n_components: int, em: EMSettings,
               settings: SemiSupervisedSettings, first: int, needed: int) -> pd.DataFrame:
    """The ``semisupervised_rounds`` rule (figs. 5.1, 5.3): :func:`semisupervised_rounds` of one method.

    The first ``first`` repeats run, then more until ``needed`` of them count
    (:func:`counted_repeats`; :func:`~mixlib.experiments.contract.run_repeats`). Repeat ``r``
    draws from ``generator(seed, "semisupervised_rounds", split, method, r)``; the table gets
    leading ``split`` and ``dataset`` columns and a last ``repeat`` column.
    """
    table = run_repeats(semisupervised_rounds, repeats,
                        {"method": method, "n_components": n_components, "em": em,
                         "settings": settings},
                        seed=seed, keys=("semisupervised_rounds", split, method), first=first,
                        needed=needed, counts=counted_repeats(method))
    return labelled(table, split=split, dataset=dataset)


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


def kernel_sweep_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                     method: str, kernel_counts: Sequence[int], em: EMSettings,
                     settings: SemiSupervisedSettings) -> pd.DataFrame:
    """The ``kernel_sweep_curve`` rule (figs. 5.4, 5.5): :func:`kernel_sweep_point` of one
    method at every kernel count ``K`` of ``kernel_counts``, in order.

    Repeat ``r`` at ``K`` draws from ``generator(seed, "kernel_sweep", split, method, K, r)``,
    whatever the other kernel counts; the table gets leading ``split`` and ``dataset``
    columns and a last ``repeat`` column.
    """
    return pd.concat([
        labelled(run_repeats(kernel_sweep_point, repeats,
                             {"method": method, "n_components": int(k), "em": em,
                              "settings": settings},
                             seed=seed, keys=("kernel_sweep", split, method, int(k))),
                 split=split, dataset=dataset)
        for k in kernel_counts], ignore_index=True)
