"""Chapter 5 under every reading of the settings the report leaves open (the sensitivity grid).

The report never states the confidence threshold, the variance floor, whether each round of
the prior method restarts EM (``restart``: ``warm`` or ``fresh``) or whether the iterative
method forces a last argmax round (``finish``: ``argmax`` or ``stop``); the unclassifiable
rule is a reading too (every table carries each rule). The grid runs both methods of
:mod:`mixlib.experiments.semisupervised` (the rounds) and
:mod:`mixlib.experiments.semisupervised_sweep` (the kernel sweep) at every combination, so that each chapter-5 claim
can be judged under each reading (:mod:`mixlib.analysis.claims`):

- :func:`sensitivity_job`: the rounds of figs. 5.1 and 5.3, one job per split, every
  floor, threshold, finish and restart inside. The prior method does not use the threshold
  to fit (only to score), so its fits are made once and found in the job's memo
  (:data:`~mixlib.experiments.semisupervised.FITS`) at every other threshold; the iterative
  method's thresholds share their labelled-only start the same way;
- :func:`kernel_sweep_reading_job`: the kernel sweep of figs. 5.4 and 5.5, one job per
  split, every floor inside. The labelled-only and prior fits do not use the threshold, so
  each is fit once and scored at every threshold; the iterative method runs once per
  threshold.

The iterative method's two finishes share one fit per repeat (:class:`FinishPair`, with
:func:`iterative_rounds_by_finish` and :func:`iterative_sweep_by_finish`): the ``"stop"``
fit is the ``"argmax"`` fit cut before its argmax round.

Every grid point of a job draws from the same generators (the keys hold no setting), so the
settings alone differ between readings. A job gets the study's settings and the grid's values:
each floor replaces the relative variance floor of ``em``
(:meth:`~mixlib.catalogue.settings.EMSettings.with_relative_floor`), each threshold that of
``settings``. The grid's points run in one process per split because each is a few seconds of
small fits, less than a pipeline job's start-up (imports and the compiled code's load).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings
from mixlib.core.validation import check_random_state
from mixlib.experiments.contract import RepeatData, RoleData, labelled, run_repeats
from mixlib.experiments.semisupervised import (
    RoundScores,
    _check_inputs,
    _given,
    last_round,
    memoised_classifier,
    rounds_table,
    semisupervised_rounds,
)
from mixlib.experiments.semisupervised_sweep import kernel_sweep_point, sweep_columns
from mixlib.semi_supervised import IterativeClassifier, iterative_classification_finishes

#: The relative variance floor's column in the grid's tables.
FLOOR_COLUMN = "relative_min_variance"


def sensitivity_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                    n_components: int, em: EMSettings, settings: SemiSupervisedSettings,
                    floors: Sequence[float], thresholds: Sequence[float],
                    restarts: Sequence[str], finishes: Sequence[str]) -> pd.DataFrame:
    """The ``semisupervised_sensitivity`` rule: both methods at every variance floor and threshold.

    Each of ``floors`` replaces the relative variance floor of ``em``
    (:meth:`~mixlib.catalogue.settings.EMSettings.with_relative_floor`); the floors' blocks
    are stacked in the order of ``floors``, each the table :func:`floor_sensitivity` gives at
    that floor alone.
    """
    return _at_every_floor(floor_sensitivity, em, floors, repeats, seed=seed, split=split,
                           dataset=dataset, n_components=n_components, settings=settings,
                           thresholds=thresholds, restarts=restarts, finishes=finishes)


def floor_sensitivity(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                      n_components: int, em: EMSettings, settings: SemiSupervisedSettings,
                      thresholds: Sequence[float], restarts: Sequence[str],
                      finishes: Sequence[str]) -> pd.DataFrame:
    """Both methods of :func:`sensitivity_job` at the variance floor of ``em``, every threshold.

    ``em`` holds the floor (its ``relative_min_variance``); ``settings`` are the study's, run
    at each of ``thresholds`` in turn. At a threshold, the iterative method runs under every
    ``finishes`` entry (one fit for all, :class:`FinishPair`) and the prior method once per
    ``restarts`` entry, each on every repeat with the generator of
    ``(seed, "semisupervised_sensitivity", split, method, r)`` (the same initialisations for
    every reading, so the settings alone differ). A threshold's rows are those of
    :func:`~mixlib.experiments.semisupervised.semisupervised_rounds` with a
    ``relative_min_variance`` setting column, leading ``split`` and ``dataset`` columns and a
    last ``repeat`` column, stacked in that order (finishes, then restarts); the thresholds'
    blocks follow in the order of ``thresholds``. Each block is the table this function gives
    with that threshold alone: a fit another threshold already made is read from the job's
    memo, not made again.
    """
    common = {"n_components": n_components, "em": em, "setting_columns": (FLOOR_COLUMN,)}
    tables = []
    for threshold in thresholds:
        at_threshold = settings.replaced(threshold=float(threshold))
        iterative = FinishPair.of(finishes, iterative_rounds_by_finish)
        runs = ([(iterative, "iterative", at_threshold.replaced(finish=finish))
                 for finish in finishes]
                + [(None, "prior", at_threshold.replaced(restart=restart))
                   for restart in restarts])
        tables += [
            labelled(run_repeats(pair or semisupervised_rounds, repeats,
                                 {**({} if pair else {"method": method}), **common,
                                  "settings": reading},
                                 seed=seed, keys=("semisupervised_sensitivity", split, method)),
                     split=split, dataset=dataset)
            for pair, method, reading in runs
        ]
    return pd.concat(tables, ignore_index=True)


def kernel_sweep_reading_job(repeats: Sequence[RepeatData], *, seed: int, split: str,
                             dataset: str, kernel_counts: Sequence[int], em: EMSettings,
                             settings: SemiSupervisedSettings, floors: Sequence[float],
                             thresholds: Sequence[float], restarts: Sequence[str],
                             finishes: Sequence[str]) -> pd.DataFrame:
    """The ``kernel_sweep_sensitivity`` rule: figs. 5.4 and 5.5 at every variance floor and reading.

    Each of ``floors`` replaces the relative variance floor of ``em``; the floors' blocks are
    stacked in the order of ``floors``, each the table :func:`floor_kernel_sweep` gives at that
    floor alone.
    """
    return _at_every_floor(floor_kernel_sweep, em, floors, repeats, seed=seed, split=split,
                           dataset=dataset, kernel_counts=kernel_counts, settings=settings,
                           thresholds=thresholds, restarts=restarts, finishes=finishes)


def _at_every_floor(job: Callable[..., pd.DataFrame], em: EMSettings, floors: Sequence[float],
                    repeats: Sequence[RepeatData], **params: Any) -> pd.DataFrame:
    """``job(repeats, em=em at floor f, **params)`` for every ``f`` of ``floors``, stacked in
    that order (:meth:`~mixlib.catalogue.settings.EMSettings.with_relative_floor`)."""
    return pd.concat([job(repeats, em=em.with_relative_floor(float(floor)), **params)
                      for floor in floors], ignore_index=True)


def floor_kernel_sweep(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                       kernel_counts: Sequence[int], em: EMSettings,
                       settings: SemiSupervisedSettings, thresholds: Sequence[float],
                       restarts: Sequence[str], finishes: Sequence[str]) -> pd.DataFrame:
    """Figs. 5.4 and 5.5 of :func:`kernel_sweep_reading_job` at the variance floor of ``em``.

    ``em`` holds the floor (its ``relative_min_variance``). For every kernel count ``K``: the
    labelled-only classifier and the prior method (once per ``restarts`` entry), each fit once
    and scored at every threshold; the iterative method once per threshold, under every
    ``finishes`` entry (one fit for all, :class:`FinishPair`). Method ``m`` at ``K`` draws from
    ``generator(seed, "kernel_sweep_sensitivity", split, m, K, r)`` on repeat ``r``.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`~mixlib.experiments.semisupervised_sweep.kernel_sweep_point`, leading
        ``split`` and ``dataset``, then ``repeat`` and the floor's ``relative_min_variance``.
    """
    floor = float(getattr(em, FLOOR_COLUMN))
    thresholds = [float(t) for t in thresholds]

    def run(method: str, k: int, reading: SemiSupervisedSettings, scored: list[float] | None,
            pair: "FinishPair | None" = None) -> pd.DataFrame:
        params = {"n_components": int(k), "em": em, "settings": reading}
        if pair is None:
            params.update(method=method, thresholds=scored)
        table = run_repeats(pair or kernel_sweep_point, repeats, params, seed=seed,
                            keys=("kernel_sweep_sensitivity", split, method, int(k)))
        return labelled(table, split=split, dataset=dataset).assign(**{FLOOR_COLUMN: floor})

    tables = []
    for k in kernel_counts:
        tables.append(run("labelled_only", k, settings, thresholds))
        tables += [run("prior", k, settings.replaced(restart=restart), thresholds)
                   for restart in restarts]
        pairs = {threshold: FinishPair.of(finishes, iterative_sweep_by_finish)
                 for threshold in thresholds}
        tables += [run("iterative", k, settings.replaced(finish=finish, threshold=threshold),
                       None, pairs[threshold])
                   for finish in finishes for threshold in thresholds]
    return pd.concat(tables, ignore_index=True)


class FinishPair:
    """The stage function of the iterative runs that differ only by their ``finish``.

    Every finish of a grid point draws from the same generator (its keys hold no setting),
    and the ``"stop"`` fit is the ``"argmax"`` fit cut before its argmax round
    (:meth:`~mixlib.semi_supervised.IterativeClassifier.fit_finishes`). So the first of
    these stages to run on a repeat computes every finish's table from one fit
    (``by_finish``, e.g. :func:`iterative_sweep_by_finish`)
    and keeps the others' tables; their stages, run later on the same repeat, take them
    without fitting. The stacked tables are those of one run per finish, value for value
    and in the same order, for one fit per repeat.

    Parameters
    ----------
    by_finish : callable
        ``by_finish(data, *, settings, rng, **params) -> {finish: table}``; the stage's
        ``settings.finish`` says which table it returns.
    """

    def __init__(self, by_finish: Callable[..., dict[str, pd.DataFrame]]) -> None:
        self.by_finish = by_finish
        self.__name__ = by_finish.__name__
        self._kept: dict[tuple[int, str], pd.DataFrame] = {}

    @classmethod
    def of(cls, finishes: Sequence[str], by_finish: Callable[..., dict[str, pd.DataFrame]]
           ) -> "FinishPair | None":
        """A pair for these ``finishes``, or None for a single finish (nothing to share)."""
        return cls(by_finish) if len(set(finishes)) > 1 else None

    def __call__(self, data: RepeatData, *, settings: SemiSupervisedSettings,
                 rng: np.random.Generator, **params) -> pd.DataFrame:
        kept = self._kept.pop((data.repeat, settings.finish), None)
        if kept is not None:
            return kept
        tables = self.by_finish(data, settings=settings, rng=rng, **params)
        self._kept.update({(data.repeat, finish): table for finish, table in tables.items()
                           if finish != settings.finish})
        return tables[settings.finish]


def _fit_iterative_finishes(data: dict[str, RoleData], n_components: int, em: EMSettings,
                            settings: SemiSupervisedSettings, rng: np.random.Generator,
                            callback=None) -> dict[str, IterativeClassifier]:
    """The iterative method under both finishes from one fit
    (:meth:`~mixlib.semi_supervised.IterativeClassifier.fit_finishes`): ``{"argmax": ...,
    "stop": ...}``, each what :func:`~mixlib.experiments.semisupervised._fit_method` gives
    with that ``settings.finish``."""
    return iterative_classification_finishes(
        *data["labelled"], data["unlabelled"].X, estimator=memoised_classifier(n_components, em, rng),
        threshold=settings.threshold, callback=callback, **_given(max_iter=settings.max_rounds))



def iterative_rounds_by_finish(
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    settings: SemiSupervisedSettings,
    setting_columns: Sequence[str] = (),
    rng: np.random.Generator | int | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`~mixlib.experiments.semisupervised.semisupervised_rounds` of the iterative method
    under both finishes, from one fit.

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



def iterative_sweep_by_finish(
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    settings: SemiSupervisedSettings,
    rng: np.random.Generator | int | None = None,
) -> dict[str, pd.DataFrame]:
    """:func:`~mixlib.experiments.semisupervised_sweep.kernel_sweep_point` of the iterative method under both finishes, from one fit.

    Returns
    -------
    dict of str to Columns
        ``{"argmax": ..., "stop": ...}``: the table (as columns) of ``kernel_sweep_point(data,
        method="iterative", settings=settings.replaced(finish=f), ...)`` for each finish
        ``f``, value for value (see :func:`iterative_rounds_by_finish`).
    """
    arrays = _check_inputs(data)
    fits = _fit_iterative_finishes(arrays, n_components, em, settings, check_random_state(rng))
    return {finish: sweep_columns(fitted, arrays, method="iterative", n_components=n_components,
                                   settings=settings, thresholds=None)
            for finish, fitted in fits.items()}
