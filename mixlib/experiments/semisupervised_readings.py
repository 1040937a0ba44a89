"""Chapter 5 under every reading of the settings the report leaves open (the sensitivity grid).

The report never states the confidence threshold, the variance floor, whether each round of
the prior method restarts EM (``restart``: ``warm`` or ``fresh``) or whether the iterative
method forces a last argmax round (``finish``: ``argmax`` or ``stop``); the unclassifiable
rule is a reading too (every table carries each rule). The grid runs both methods of
:mod:`mixlib.experiments.semisupervised` at every combination, so that each chapter-5 claim
can be judged under each reading (:mod:`mixlib.experiments.claims`):

- :func:`sensitivity_stages`: the rounds of figs. 5.1 and 5.3, one job per (split,
  threshold, floor), every finish and restart inside;
- :func:`kernel_sweep_reading_stages`: the kernel sweep of figs. 5.4 and 5.5, one job per
  (split, floor). The labelled-only and prior fits do not use the threshold, so each is fit
  once and scored at every threshold; the iterative method runs once per threshold.

Every grid point of a job draws from the same generators (the keys hold no setting), so the
settings alone differ between readings. A job gets the study's settings with its grid point in
them: ``em`` with the point's relative variance floor
(:meth:`~mixlib.experiments.settings.EMSettings.with_relative_floor`) and, for the rounds,
``settings`` with the point's threshold; the workflow names the job's files and reads the point
from them.
"""

from __future__ import annotations

from collections.abc import Sequence

from mixlib.experiments.contract import Stage
from mixlib.experiments.semisupervised import kernel_sweep_point, semisupervised_rounds
from mixlib.experiments.settings import EMSettings, SemiSupervisedSettings

#: The relative variance floor's column in the grid's tables.
FLOOR_COLUMN = "relative_min_variance"


def sensitivity_stages(*, split: str, dataset: str, n_components: int, em: EMSettings,
                       settings: SemiSupervisedSettings, restarts: Sequence[str],
                       finishes: Sequence[str]) -> list[Stage]:
    """The ``semisupervised_sensitivity`` rule: both methods at one (threshold, floor) point.

    ``em`` holds the grid point's ``relative_min_variance`` and ``settings`` its
    ``threshold``; the iterative method runs once per ``finishes`` entry and the prior method
    once per ``restarts`` entry, each on every repeat with the generator of
    ``(seed, "semisupervised_sensitivity", split, method, r)`` (the same initialisations for
    every reading, so the settings alone differ). The rows are those of
    :func:`~mixlib.experiments.semisupervised.semisupervised_rounds` with a
    ``relative_min_variance`` setting column, leading ``split`` and ``dataset`` columns and a
    last ``repeat`` column.
    """
    runs = ([("iterative", settings.replaced(finish=finish)) for finish in finishes]
            + [("prior", settings.replaced(restart=restart)) for restart in restarts])
    return [
        Stage(semisupervised_rounds,
              {"method": method, "n_components": n_components, "em": em, "settings": reading,
               "setting_columns": (FLOOR_COLUMN,)},
              keys=("semisupervised_sensitivity", split, method),
              leading={"split": split, "dataset": dataset})
        for method, reading in runs
    ]


def kernel_sweep_reading_stages(*, split: str, dataset: str, kernel_counts: Sequence[int],
                                em: EMSettings, settings: SemiSupervisedSettings,
                                thresholds: Sequence[float], restarts: Sequence[str],
                                finishes: Sequence[str]) -> list[Stage]:
    """The ``kernel_sweep_sensitivity`` rule: figs. 5.4 and 5.5 at one variance floor, every reading.

    ``em`` holds the floor (its ``relative_min_variance``). For every kernel count ``K``: the
    labelled-only classifier and the prior method (once per ``restarts`` entry), each fit once
    and scored at every threshold; the iterative method once per (``finishes`` entry,
    threshold). Method ``m`` at ``K`` draws from
    ``generator(seed, "kernel_sweep_sensitivity", split, m, K, r)`` on repeat ``r``.

    Returns
    -------
    list of Stage
        Their stacked table has the columns of
        :func:`~mixlib.experiments.semisupervised.kernel_sweep_point`, leading ``split`` and
        ``dataset``, then ``repeat`` and the floor's ``relative_min_variance``.
    """
    floor = float(getattr(em, FLOOR_COLUMN))
    thresholds = [float(t) for t in thresholds]

    def stage(method: str, k: int, reading: SemiSupervisedSettings,
              scored: list[float] | None) -> Stage:
        return Stage(kernel_sweep_point,
                     {"method": method, "n_components": int(k), "em": em, "settings": reading,
                      "thresholds": scored},
                     keys=("kernel_sweep_sensitivity", split, method, int(k)),
                     leading={"split": split, "dataset": dataset}, trailing={FLOOR_COLUMN: floor})

    stages = []
    for k in kernel_counts:
        stages.append(stage("labelled_only", k, settings, thresholds))
        stages += [stage("prior", k, settings.replaced(restart=restart), thresholds)
                   for restart in restarts]
        stages += [stage("iterative", k, settings.replaced(finish=finish, threshold=threshold), None)
                   for finish in finishes for threshold in thresholds]
    return stages
