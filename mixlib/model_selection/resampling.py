"""One resampling protocol: evaluation units, one runner that fits and scores them.

An *evaluation unit* is one fit and one test: the training and test arrays of a fold of
(repeated) stratified K-fold cross-validation, or of a repeat of a hold-out split, with the
generator that draws for it. A splitter yields the units (:func:`repeated_kfold_units`,
:func:`fold_units`; a hold-out split's repeats are units as they are), and :func:`score_units`
fits and scores every one of them the same way. The features are standardised there, inside
the unit, with the statistics of its own training rows (:func:`standardised`), so its test rows
never influence them: the one place the protocol standardises.
"""

from __future__ import annotations

import logging
import warnings
import numbers
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from mixlib.core.preprocessing import standardise
from mixlib.core.validation import check_random_state

logger = logging.getLogger(__name__)

RandomState = None | int | np.random.Generator


def stratified_folds(y: np.ndarray, n_folds: int, random_state: RandomState = None) -> np.ndarray:
    """Assign every row to one of ``n_folds`` folds, keeping class proportions.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Class labels.
    n_folds : int
        Number of folds ``K``, ``2 <= K <= n_samples``.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    folds : ndarray of shape (n_samples,)
        Fold index in ``0 .. K-1`` of each row.

    Notes
    -----
    The rows of each class are shuffled and dealt round-robin to the folds, each class
    starting where the previous one stopped, so every fold holds ``floor`` or ``ceil`` of
    ``n_c / K`` rows of class ``c`` and the fold sizes differ by at most one.
    """
    y = np.asarray(y)
    if not isinstance(n_folds, numbers.Integral) or not 2 <= n_folds <= len(y):
        raise ValueError(f"n_folds must be an integer in [2, n_samples={len(y)}], "
                         f"got {n_folds!r}.")
    rng = check_random_state(random_state)
    folds = np.empty(len(y), dtype=int)
    start = 0
    for label in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == label))
        folds[rows] = (start + np.arange(len(rows))) % n_folds
        start = (start + len(rows)) % n_folds
    return folds


def grouped_stratified_folds(y: np.ndarray, groups: np.ndarray, n_folds: int,
                             random_state: RandomState = None) -> np.ndarray:
    """Stratified K-fold assignment that keeps every group of rows in one fold.

    Used with :func:`mixlib.model_selection.splits.duplicate_groups` so that identical rows
    never sit in both the training and the test folds (which would flatter the
    cross-validated error).

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Class labels; every group must hold a single class.
    groups : ndarray of shape (n_samples,)
        Group id of every row.
    n_folds : int
        Number of folds ``K``; there must be at least ``K`` groups.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    folds : ndarray of shape (n_samples,)
        Fold index in ``0 .. K-1`` of each row.

    Notes
    -----
    When every group is a single row this is exactly :func:`stratified_folds` (same folds
    for the same generator). Otherwise, class by class, the groups are shuffled, ordered by
    decreasing size (ties keep the shuffled order) and each goes to the fold with the fewest
    rows of that class so far, then the fewest rows overall, then the lowest index.
    """
    y = np.asarray(y)
    groups = np.asarray(groups)
    if groups.shape != y.shape:
        raise ValueError(f"groups must have shape {y.shape}, got {groups.shape}.")
    ids, first, inverse, sizes = np.unique(groups, return_index=True, return_inverse=True,
                                           return_counts=True)
    if (sizes == 1).all():
        return stratified_folds(y, n_folds, random_state)
    if len(ids) < n_folds:
        raise ValueError(f"{n_folds} folds need at least {n_folds} groups of rows, got {len(ids)}.")
    mixed = [ids[g] for g in range(len(ids)) if len(np.unique(y[inverse == g])) > 1]
    if mixed:
        raise ValueError(f"groups {mixed[:5]} hold rows of more than one class.")
    rng = check_random_state(random_state)
    group_fold = np.empty(len(ids), dtype=int)
    fold_rows = np.zeros(n_folds, dtype=int)
    for label in np.unique(y):
        shuffled = rng.permutation(np.flatnonzero(y[first] == label))
        ordered = shuffled[np.argsort(-sizes[shuffled], kind="stable")]
        class_rows = np.zeros(n_folds, dtype=int)
        for g in ordered:
            k = min(range(n_folds), key=lambda f: (class_rows[f], fold_rows[f], f))
            group_fold[g] = k
            class_rows[k] += sizes[g]
            fold_rows[k] += sizes[g]
    return group_fold[inverse]


@dataclass(frozen=True)
class EvaluationUnit:
    """One fit and one test: the arrays of a fold of cross-validation or of a hold-out repeat.

    Attributes
    ----------
    repeat : int
        CV repeat (0 .. r-1), or the hold-out split's repeat.
    fold : int
        Test fold (0 .. K-1); 0 for a hold-out repeat.
    X_train, y_train : ndarrays of shape (n_train, n_features) and (n_train,)
    X_test, y_test : ndarrays of shape (n_test, n_features) and (n_test,)
    rng : numpy.random.Generator or None
        Draws the unit's training subsample, then serves as the model's ``random_state``.
    """

    repeat: int
    fold: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    rng: np.random.Generator | None = None


def fold_units(X: np.ndarray, y: np.ndarray, folds: np.ndarray, *, repeat: int = 0,
               fold_ids: Iterable[int] | None = None,
               rngs: list[np.random.Generator] | None = None) -> Iterator[EvaluationUnit]:
    """The units of one K-fold assignment: fold ``k`` is tested, the other folds fitted.

    ``fold_ids`` are the folds in order (default: those present in ``folds``); ``rngs[i]``
    is the generator of the ``i``-th of them (default: none).
    """
    y = np.asarray(y)
    ids = list(np.unique(folds) if fold_ids is None else fold_ids)
    for i, k in enumerate(ids):
        test = folds == k
        yield EvaluationUnit(repeat, int(k), X[~test], y[~test], X[test], y[test],
                             None if rngs is None else rngs[i])


def repeated_kfold_units(X: np.ndarray, y: np.ndarray, n_folds: int, n_repeats: int,
                         random_state: RandomState, *,
                         groups: np.ndarray | None = None) -> Iterator[EvaluationUnit]:
    """The ``r K`` units of ``r``-times repeated stratified K-fold cross-validation.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    n_folds, n_repeats : int
        ``K`` and ``r >= 1``.
    random_state : int or numpy.random.Generator
        The folds of repeat 0 are its first draw (:func:`stratified_folds`, or
        :func:`grouped_stratified_folds` with ``groups``), then ``spawn(K)`` gives each fold
        its generator; then ``spawn(r - 1)`` gives repeat ``j >= 1`` its generator, which
        draws the repeat's folds and spawns its folds' generators the same way. So ``r = 1``
        is the single cross-validation, and every model given a generator in the same state
        gets the same folds. A Generator passed in is advanced.
    groups : ndarray of shape (n_samples,), optional
        Rows of one group always share a fold.
    """
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral) \
            or n_repeats < 1:
        raise ValueError(f"n_repeats must be an integer >= 1, got {n_repeats!r}.")
    rng = check_random_state(random_state)
    streams = [rng]
    for repeat in range(n_repeats):
        stream = streams[repeat]
        folds = (stratified_folds(y, n_folds, stream) if groups is None
                 else grouped_stratified_folds(y, groups, n_folds, stream))
        fold_rngs = stream.spawn(n_folds)
        if repeat == 0:
            streams += rng.spawn(n_repeats - 1)
        yield from fold_units(X, y, folds, repeat=repeat, fold_ids=range(n_folds),
                              rngs=fold_rngs)


def holdout_units(X: np.ndarray, y: np.ndarray, test_fraction: float, n_repeats: int,
                  random_state: RandomState, *, where: str = "test_fraction"
                  ) -> Iterator[EvaluationUnit]:
    """The ``r`` units of a repeated stratified hold-out split: ``round(f n)`` test rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    test_fraction : float in (0, 1)
        ``f``: the test part has ``round(f n)`` rows, taken from every class in proportion to
        its rows (largest remainders, :func:`~mixlib.model_selection.splits.assign_roles` with
        ``stratify=True``, the splits' own draw); the other rows train.
    n_repeats : int
        ``r >= 1``.
    random_state : int or numpy.random.Generator
        ``spawn(r)`` gives repeat ``j`` its generator, which draws the repeat's split and is
        then the unit's ``rng``; so a repeat's split and draws do not depend on the others.
    where : str
        The config key of ``test_fraction``, for the messages.
    """
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, numbers.Real) \
            or not 0.0 < test_fraction < 1.0:
        raise ValueError(f"{where} must be a number in (0, 1), got {test_fraction!r}.")
    if isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral) \
            or n_repeats < 1:
        raise ValueError(f"n_repeats must be an integer >= 1, got {n_repeats!r}.")
    # the splits module reads split tables with pandas (the workflow extra): imported here, so
    # that the estimators (CART's internal folds) import this module without it
    from mixlib.model_selection.splits import assign_roles

    y = np.asarray(y)
    sizes = {"test": int(round(test_fraction * len(y))), "train": "rest"}
    for repeat, stream in enumerate(check_random_state(random_state).spawn(n_repeats)):
        test = assign_roles(y, sizes, stream, stratify=True, where=where) == "test"
        yield EvaluationUnit(repeat, 0, X[~test], y[~test], X[test], y[test], stream)


def standardised(unit: EvaluationUnit) -> EvaluationUnit:
    """The unit with its features standardised by the mean and deviation of its training rows
    (:func:`mixlib.core.preprocessing.standardise`)."""
    n_train = len(unit.y_train)
    both = np.concatenate([unit.X_train, unit.X_test])
    fit_rows = np.arange(len(both)) < n_train
    Z, _, _ = standardise(both, fit_rows)
    return EvaluationUnit(unit.repeat, unit.fold, Z[:n_train], unit.y_train, Z[n_train:],
                          unit.y_test, unit.rng)


@dataclass(frozen=True)
class UnitScore:
    """What :func:`score_units` measured on one unit.

    ``n_train`` counts the rows fitted (after any subsample); ``error`` is the share of test
    rows whose prediction is not their class (a prediction outside the classes, e.g. a reject
    label, counts as an error); ``estimator`` is the fitted model.
    """

    repeat: int
    fold: int
    n_train: int
    n_test: int
    error: float
    fit_seconds: float
    predict_seconds: float
    y_test: np.ndarray
    predicted: np.ndarray
    estimator: Any


def training_rows(unit: EvaluationUnit, max_train_rows: int | None) -> np.ndarray:
    """The rows of ``unit.X_train`` a model is fitted on: every one, or ``max_train_rows`` of
    them drawn uniformly without replacement by the unit's generator (its first draw), sorted.
    The pre-run checks replay it to see what a fit will get."""
    n_train = len(unit.y_train)
    if max_train_rows is None or n_train <= max_train_rows:
        return np.arange(n_train)
    return np.sort(unit.rng.choice(n_train, max_train_rows, replace=False))


#: Training rows of :func:`warm_up`'s fit (at most).
WARM_UP_ROWS = 64


def warm_up(build: Callable[[np.ndarray, np.random.Generator | None], Any], X: np.ndarray,
            y: np.ndarray) -> None:
    """An untimed fit of the model on a few training rows, before the first timed fit.

    A process pays once for what a model's first fit loads: compiled loops read from numba's
    cache, modules imported on first use, first calls into BLAS. Timing the first fold with
    it made that fold's fit up to 30 times the others'. This fit, on at most
    :data:`WARM_UP_ROWS` rows spread over ``X`` (every class's first row among them) with a
    generator of its own (the unit's draws are untouched), pays it outside the timings. It is
    best effort: a model that cannot fit so few rows (e.g. fewer rows per class than its
    internal folds) raises, and its first timed fit pays instead (logged at DEBUG).
    """
    n = len(y)
    _, firsts = np.unique(y, return_index=True)
    rows = np.union1d(firsts, np.linspace(0, n - 1, min(n, WARM_UP_ROWS)).astype(int))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            build(X[rows], np.random.default_rng(0)).fit(X[rows], y[rows])
    except Exception as error:  # noqa: BLE001 - the timed fits report any real error
        logger.debug("warm-up fit failed (%s): the first fold pays the first-call costs", error)


#: The keys :func:`warm_up_once` has warmed up in this process.
_WARMED: set[Hashable] = set()


def warm_up_once(key: Hashable, build: Callable[[np.ndarray, np.random.Generator | None], Any],
                 X: np.ndarray, y: np.ndarray) -> None:
    """:func:`warm_up`, the first time this process asks for ``key``; nothing afterwards.

    For a stage that times one fit per call (one point of a sweep): the first-call costs are
    paid once per process, so one warm-up before the process's first timed fit keeps them out
    of every timing, and the later points skip an untimed fit each. ``key`` names what the
    warm-up loads: models that run the same code share it (e.g. the mixture classifier of
    one set of EM settings at every kernel count).
    """
    if key not in _WARMED:
        warm_up(build, X, y)
        _WARMED.add(key)


def score_units(units: Iterable[EvaluationUnit],
                build: Callable[[np.ndarray, np.random.Generator | None], Any], *,
                standardise_features: bool = False,
                max_train_rows: int | None = None) -> list[UnitScore]:
    """Fit and score a model on every unit: the protocol's one runner.

    Parameters
    ----------
    units : iterable of EvaluationUnit
    build : callable
        ``build(X_train, rng) -> unfitted estimator`` for the unit's (standardised,
        subsampled) training rows and generator.
    standardise_features : bool, default False
        Standardise each unit from its training rows first (:func:`standardised`).
    max_train_rows : int or None
        Fit on at most this many of the unit's training rows, drawn uniformly without
        replacement by the unit's generator (the test rows stay whole).

    Returns
    -------
    list of UnitScore
        One per unit, in order.
    """
    scores = []
    for unit in units:
        if standardise_features:
            unit = standardised(unit)
        rows = training_rows(unit, max_train_rows)
        X_train, y_train = unit.X_train[rows], unit.y_train[rows]
        if not scores:
            warm_up(build, X_train, y_train)
        estimator = build(X_train, unit.rng)
        start = time.perf_counter()
        estimator.fit(X_train, y_train)
        fit_seconds = time.perf_counter() - start
        start = time.perf_counter()
        predicted = np.asarray(estimator.predict(unit.X_test))
        predict_seconds = time.perf_counter() - start
        error = float(np.mean(predicted != unit.y_test))
        logger.info("repeat %d fold %d: error %.4f, fit %.2f s, predict %.2f s", unit.repeat,
                    unit.fold, error, fit_seconds, predict_seconds)
        scores.append(UnitScore(unit.repeat, unit.fold, len(y_train), len(unit.y_test), error,
                                fit_seconds, predict_seconds, unit.y_test, predicted, estimator))
    return scores
