"""The supervised DNA kernel sweep (fig. 6.1): the mixture classifier's errors against K.

One pipeline job is one split of a DNA data set (one encoding), every kernel count ``K`` on
every repeat: :func:`dna_kernel_job` runs :func:`dna_kernel_point`, its stage function
(:mod:`mixlib.experiments.contract`), on each, by its columnar twin :func:`dna_kernel_columns`
(one DataFrame for the job).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.core.timing import Stopwatch
from mixlib.core.validation import check_random_state, check_X_y
from mixlib.experiments.contract import Columns, RepeatData, columnar, run_repeats
from mixlib.experiments.mixture_errors import train_test_errors
from mixlib.catalogue.settings import EMSettings
from mixlib.catalogue.registry import seeded_classifier
from mixlib.mixture import kernel_counts
from mixlib.model_selection.resampling import warm_up_once


def dna_kernel_columns(data: RepeatData, *, n_components: int, em: EMSettings,
                       rng: np.random.Generator | int | None = None) -> Columns:
    """:func:`dna_kernel_point`'s table as :class:`~mixlib.experiments.contract.Columns` (its
    columnar twin, for :func:`~mixlib.experiments.contract.run_repeats`)."""
    X_train, y_train = check_X_y(*data["train"])
    X_test, y_test = check_X_y(*data["test"])
    # An untimed fit on a few rows before the process's first point: its first-call costs (the
    # compiled EM loop loaded from numba's cache) stay out of fit_seconds.
    warm_up_once(("dna_kernel_point", em),
                 lambda X, warm_rng: seeded_classifier(n_components, em, warm_rng), X_train, y_train)
    with Stopwatch() as clock:
        model = seeded_classifier(n_components, em, check_random_state(rng)).fit(X_train, y_train)
    errors = train_test_errors(model.error_shares, X_train, y_train, X_test, y_test)
    rows = [("all", metric, errors[metric]) for metric in
            ("train_error", "test_error", "train_hard_error", "test_hard_error", "test_unknown_error")]
    rows.append(("all", "fit_seconds", clock.wall_seconds))
    rows.append(("all", "fit_cpu_seconds", clock.cpu_seconds))
    for label, mixture, k in zip(model.classes_, model.mixtures_, model.n_components_per_class_):
        live, collapsed = kernel_counts(mixture)
        rows.append((str(label), "live_kernels", float(live)))
        rows.append((str(label), "collapsed_kernels", float(collapsed)))
        rows.append((str(label), "effective_components", float(k)))
        rows.append((str(label), "em_iterations", float(mixture.n_iter_)))
    classes, metrics, values = zip(*rows)
    return Columns({"n_components": int(n_components), "class": list(classes),
                    "metric": list(metrics), "value": np.asarray(values, dtype=float)}, len(rows))


@columnar(dna_kernel_columns)
def dna_kernel_point(
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Training and test error of the supervised mixture classifier at one kernel count (fig. 6.1).

    Parameters
    ----------
    data : RepeatData
        Roles ``train`` (encoded DNA sequences, the report: 1000; one-hot gives 240
        features, ordinal 60) and ``test`` (the report: 100 sequences).
    n_components : int
        Kernels per class (the report's axis: 1 to 64).
    em : EMSettings
        The EM settings of the mixtures.
    rng : numpy.random.Generator, int or None
        Draws one integer, the classifier's ``random_state`` (as the semi-supervised stages
        seed theirs, whose refits restart one stream).

    Returns
    -------
    pandas.DataFrame
        Columns ``n_components``, ``class``, ``metric``, ``value``. With ``class = "all"``:
        ``train_error``, ``test_error`` (share not classified correctly: misclassified, or
        left undecided by the classifier's own decision,
        :meth:`~mixlib.mixture.MixtureClassifier.error_shares`: the top two posteriors
        within its ``margin``, whose default 0 leaves exact ties only; no unclassifiable
        rule of chapter 5 applies to this supervised figure), ``train_hard_error``,
        ``test_hard_error``, ``test_unknown_error``, ``fit_seconds`` (wall-clock time of the fit)
        and ``fit_cpu_seconds`` (its CPU time, :class:`~mixlib.core.timing.Stopwatch`). With ``class`` =
        each class label: ``live_kernels`` (kernels of that class with mixing weight >
        :data:`~mixlib.mixture.LIVE_WEIGHT` = 1e-6), ``collapsed_kernels`` (live kernels at
        the variance floor), ``effective_components`` (kernels fit) and ``em_iterations``.

    Notes
    -----
    In 240 one-hot dimensions the responsibilities of all but the nearest kernels underflow:
    with the report's initialisation (centres on training vectors, widths = distance to the
    nearest other centre) many kernels of a large ``K`` lose every example in the first
    iterations and die (weight ~1e-18). The collapse hits the small classes: on splice one-hot
    with ``K = 64``, EI and IE (about 240 training rows each) keep only a few live kernels,
    while N (about 520 rows) keeps almost all. ``live_kernels`` records this per class; it
    explains why the error curve flattens for large ``K``.
    """
    return dna_kernel_columns(data, n_components=n_components, em=em, rng=rng).frame()


def dna_kernel_job(repeats: Sequence[RepeatData], *, seed: int, split: str, encoding: str,
                   kernel_counts: Sequence[int], em: EMSettings, dataset: str) -> pd.DataFrame:
    """The ``dna_kernel_curve`` rule (fig. 6.1): :func:`dna_kernel_point` at every K of
    ``kernel_counts`` in turn, every repeat.

    Repeat ``r`` at ``K`` draws from ``generator(seed, "dna_kernel_sweep", split, K, r)``,
    whatever the other counts; the table gets ``repeat``, ``split``, ``encoding`` and
    ``dataset`` columns at its end (fig. 6.1 draws one pair of curves per encoding).
    """
    table = pd.concat([
        run_repeats(dna_kernel_point, repeats, {"n_components": int(k), "em": em},
                    seed=seed, keys=("dna_kernel_sweep", split, int(k)))
        for k in kernel_counts], ignore_index=True)
    return table.assign(split=split, encoding=encoding, dataset=dataset)
