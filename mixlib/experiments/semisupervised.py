"""Experiments on unlabelled data (report ch. 5, figs. 5.1, 5.3-5.5) and the DNA kernel sweep (fig. 6.1).

Each function is the unit of work of one pipeline job: arrays, a params dict and a generator
in, a tidy :class:`pandas.DataFrame` out (no index; errors as fractions in [0, 1]). The caller
adds the dataset and repeat columns. The data are used as given: isotropic kernels assume
features on comparable scales, so pass standardised features (statistics of the training rows)
without NaN (impute first).

Error definitions (see :mod:`mixlib.semi_supervised.methods`): on a set of labelled examples, the
*hard error* is the share classified into a wrong class, the *unknown error* the share the
model cannot classify (``MixtureClassifier.unclassifiable``), and the *error* their sum, the
share not classified correctly. The *training error* (report fig. 5.4, "erreur
d'apprentissage") is the error on the originally labelled training examples, the *test error*
(fig. 5.5) the error on the test examples.

``params`` keys (all optional):

- EM settings passed to every :class:`~mixlib.mixture.gaussian_mixture.MixtureClassifier`: ``init``, ``tol``,
  ``max_iter`` (EM iterations), ``min_variance`` or ``relative_min_variance``;
- ``threshold`` (iterative method: an unknown is assigned when its top posterior is strictly
  greater; also the ``confidence`` unclassifiable rule; default 0.75);
- ``max_rounds`` (labelling rounds of the iterative method, default 10; soft-label refits of
  the prior method, default 20);
- ``restart`` (prior method: ``warm``, the default, or ``fresh``), ``finish`` (iterative
  method: ``argmax``, the default, or ``stop``);
- ``unclassifiable``: the rules the unknown error is measured under (default both,
  :data:`~mixlib.semi_supervised.methods.UNCLASSIFIABLE_RULES`).

Tables are long: one row per (round,) metric and rule. Metrics that depend on the
unclassifiable rule (hard, unknown and total errors) have one row per rule, its name in the
``unclassifiable`` column; the others (``unknown``, ``flips``, ``n_rounds``, ...) have
``unclassifiable = "any"``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state, check_X_y
from mixlib.mixture import MixtureClassifier, kernel_counts
from mixlib.semi_supervised.methods import (
    UNCLASSIFIABLE_RULES,
    IterativeClassifier,
    iterative_classification,
    label_errors,
    prior_probability_classification,
)

_CLASSIFIER_KEYS = ("init", "tol", "max_iter", "min_variance", "relative_min_variance")
METHODS = ("labelled_only", "iterative", "prior")
#: ``unclassifiable`` value of the metrics that do not depend on the unclassifiable rule.
ANY_RULE = "any"


def _classifier(n_components: int, params: dict[str, Any], rng: np.random.Generator) -> MixtureClassifier:
    """A MixtureClassifier with the settings of ``params`` found in ``_CLASSIFIER_KEYS``.

    Its ``random_state`` is one integer drawn from ``rng``: every refit of a semi-supervised
    run then restarts EM from the same random stream (as scikit-learn's self-training does
    with an int seed), so the rounds differ by their training data and priors, not by a new
    random initialisation.
    """
    settings = {key: params[key] for key in _CLASSIFIER_KEYS if params.get(key) is not None}
    return MixtureClassifier(n_components, random_state=int(rng.integers(2**32)), **settings)


def _rules(params: dict[str, Any]) -> tuple[str, ...]:
    return tuple(params.get("unclassifiable", UNCLASSIFIABLE_RULES))


def _fit_method(
    method: str,
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    n_components: int,
    params: dict[str, Any],
    rng: np.random.Generator,
):
    """Fit one method; returns the fitted object (MixtureClassifier or wrapper) and its history."""
    estimator = _classifier(n_components, params, rng)
    threshold = float(params.get("threshold", 0.75))
    if method == "labelled_only":
        return estimator.fit(X_labelled, y_labelled), None
    if method == "iterative":
        return iterative_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator, threshold=threshold,
            max_iter=int(params.get("max_rounds", 10)), finish=params.get("finish", "argmax"),
            unclassifiable_rules=_rules(params), X_test=X_test, y_test=y_test,
        )
    if method == "prior":
        return prior_probability_classification(
            X_labelled, y_labelled, X_unlabelled, estimator=estimator,
            max_iter=int(params.get("max_rounds", 20)), restart=params.get("restart", "warm"),
            threshold=threshold, unclassifiable_rules=_rules(params), X_test=X_test, y_test=y_test,
        )
    raise ValueError(f"method must be one of {METHODS}, got {method!r}.")


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


def _collapsed_per_class(model: MixtureClassifier) -> np.ndarray:
    """Collapsed (live, at the variance floor) kernels of each class mixture of ``model``."""
    return np.array([kernel_counts(mixture)[1] for mixture in model.mixtures_], dtype=float)


def _check_inputs(X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test):
    X_labelled, y_labelled = check_X_y(X_labelled, y_labelled)
    X_unlabelled, y_unlabelled_hidden = check_X_y(X_unlabelled, y_unlabelled_hidden)
    X_test, y_test = check_X_y(X_test, y_test)
    return X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test


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


def _train_test_errors(model: MixtureClassifier, X_train: np.ndarray, y_train: np.ndarray,
                       X_test: np.ndarray, y_test: np.ndarray, rule: str = "margin",
                       threshold: float = 0.75) -> dict[str, float]:
    """Hard, unknown and total error of a fitted model on training and test examples.

    Parameters
    ----------
    model : fitted MixtureClassifier
    X_train : ndarray of shape (n_train, n_features)
    y_train : ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, n_features)
    y_test : ndarray of shape (n_test,)
    rule, threshold :
        The unclassifiable rule (:func:`~mixlib.semi_supervised.methods.unclassifiable_mask`).

    Returns
    -------
    dict
        ``train_error``, ``train_hard_error``, ``train_unknown_error``, ``test_error``,
        ``test_hard_error``, ``test_unknown_error``, where ``*_error = *_hard_error +
        *_unknown_error`` (:func:`~mixlib.semi_supervised.methods.label_errors` on each set).
    """
    values = {}
    for name, X, y in (("train", X_train, y_train), ("test", X_test, y_test)):
        hard, unknown = label_errors(model, X, y, rule, threshold)
        values.update({f"{name}_error": hard + unknown, f"{name}_hard_error": hard,
                       f"{name}_unknown_error": unknown})
    return values


def _long_history(history: pd.DataFrame, rules: tuple[str, ...], free_metrics: list[str]) -> pd.DataFrame:
    """A wrapper's ``history_`` as long rows ``round, metric, unclassifiable, value``."""
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
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    y_unlabelled_hidden: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    method: str,
    n_components: int,
    params: dict[str, Any],
    rng: np.random.Generator | int | None,
) -> pd.DataFrame:
    """Counters of every round of one semi-supervised run (figs. 5.1 and 5.3; one repeat).

    Parameters
    ----------
    X_labelled : ndarray of shape (n_labelled, n_features)
        Labelled training examples (the report: 36), standardised, no NaN.
    y_labelled : ndarray of shape (n_labelled,)
    X_unlabelled : ndarray of shape (n_unlabelled, n_features)
        Training examples used without their class (the report: about 100).
    y_unlabelled_hidden : ndarray of shape (n_unlabelled,)
        Their true classes, never shown to the method; only the final ``pseudo_label_error``
        uses them.
    X_test : ndarray of shape (n_test, n_features)
    y_test : ndarray of shape (n_test,)
    method : {"iterative", "prior"}
        :class:`~mixlib.semi_supervised.methods.IterativeClassifier` (fig. 5.1) or
        :class:`~mixlib.semi_supervised.methods.PriorProbabilityClassifier` (fig. 5.3).
    n_components : int
        Kernels per class (the report: 4).
    params : dict
        See the module docstring.
    rng : numpy.random.Generator, int or None
        Drives the EM initialisations of every round.

    Returns
    -------
    pandas.DataFrame
        Long table, columns ``method``, ``n_components``, ``restart``, ``finish``,
        ``threshold`` (:func:`method_settings`), ``round`` (0: the model fit on the labelled
        examples only; ``r``: after ``r`` labelling rounds / soft-label refits; the last round
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
    arrays = _check_inputs(X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test)
    X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test = arrays
    fitted, history = _fit_method(method, X_labelled, y_labelled, X_unlabelled, X_test, y_test,
                                  n_components, params, check_random_state(rng))
    free = ["unknown"] if method == "iterative" else ["flips"]
    table = _long_history(history, _rules(params), free)
    last = int(history["round"].iloc[-1])
    final = {
        "pseudo_label_error": _pseudo_label_error(fitted, y_unlabelled_hidden),
        "n_rounds": float(last),
        "collapsed_kernels": float(np.mean(_collapsed_per_class(fitted.estimator_))),
    }
    if method == "iterative":
        final["n_argmax"] = float(fitted.n_assigned_by_argmax_)
    final_rows = pd.DataFrame({"round": last, "metric": list(final), "unclassifiable": ANY_RULE,
                               "value": list(final.values())})
    table = pd.concat([table, final_rows], ignore_index=True)
    settings = {"method": method, "n_components": int(n_components), **method_settings(method, params)}
    return pd.concat([pd.DataFrame(settings, index=table.index), table], axis=1)


def kernel_sweep_point(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    X_unlabelled: np.ndarray,
    y_unlabelled_hidden: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    method: str,
    n_components: int,
    params: dict[str, Any],
    rng: np.random.Generator | int | None,
) -> pd.DataFrame:
    """Training and test error of one method at one kernel count, one repeat (figs. 5.4, 5.5).

    Parameters
    ----------
    X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test :
        As in :func:`semisupervised_rounds`.
    method : {"labelled_only", "iterative", "prior"}
        ``"labelled_only"``: a :class:`~mixlib.mixture.gaussian_mixture.MixtureClassifier` fit on the labelled
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
    arrays = _check_inputs(X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test)
    X_labelled, y_labelled, X_unlabelled, y_unlabelled_hidden, X_test, y_test = arrays
    fitted, history = _fit_method(method, X_labelled, y_labelled, X_unlabelled, X_test, y_test,
                                  n_components, params, check_random_state(rng))
    model = fitted if history is None else fitted.estimator_
    threshold = float(params.get("threshold", 0.75))
    rows = []
    for rule in _rules(params):
        errors = _train_test_errors(model, X_labelled, y_labelled, X_test, y_test, rule, threshold)
        rows.extend((metric, rule, value) for metric, value in errors.items())
    free = {
        "effective_components": float(np.mean(model.n_components_per_class_)),
        "collapsed_kernels": float(np.mean(_collapsed_per_class(model))),
        "n_rounds": 0.0 if history is None else float(history["round"].iloc[-1]),
    }
    if history is not None:
        free["pseudo_label_error"] = _pseudo_label_error(fitted, y_unlabelled_hidden)
    rows.extend((metric, ANY_RULE, value) for metric, value in free.items())
    table = pd.DataFrame(rows, columns=["metric", "unclassifiable", "value"])
    settings = {"method": method, "n_components": int(n_components), **method_settings(method, params)}
    return pd.concat([pd.DataFrame(settings, index=table.index), table], axis=1)


def dna_kernel_point(
    X_train: np.ndarray,
    y_train: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    n_components: int,
    params: dict[str, Any],
    rng: np.random.Generator | int | None,
) -> pd.DataFrame:
    """Training and test error of the supervised mixture classifier at one kernel count (fig. 6.1).

    Parameters
    ----------
    X_train : ndarray of shape (n_train, n_features)
        Encoded DNA sequences (the report: 1000; one-hot gives 240 features, ordinal 60).
    y_train : ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, n_features)
        The report: 100 test sequences.
    y_test : ndarray of shape (n_test,)
    n_components : int
        Kernels per class (the report's axis: 1 to 64).
    params : dict
        EM settings of the module docstring.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    pandas.DataFrame
        Columns ``n_components``, ``class``, ``metric``, ``value``. With ``class = "all"``:
        ``train_error``, ``test_error`` (share not classified correctly: misclassified, or an
        exact tie of the top posteriors), ``train_hard_error``, ``test_hard_error``,
        ``test_unknown_error``, ``fit_seconds`` (wall-clock time of the fit). With ``class`` =
        each class label: ``live_kernels`` (kernels of that class with mixing weight >
        :data:`~mixlib.mixture.gaussian_mixture.LIVE_WEIGHT` = 1e-6), ``collapsed_kernels`` (live kernels at
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
    X_train, y_train = check_X_y(X_train, y_train)
    X_test, y_test = check_X_y(X_test, y_test)
    start = time.perf_counter()
    model = _classifier(n_components, params, check_random_state(rng)).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    errors = _train_test_errors(model, X_train, y_train, X_test, y_test)
    rows = [("all", metric, errors[metric]) for metric in
            ("train_error", "test_error", "train_hard_error", "test_hard_error", "test_unknown_error")]
    rows.append(("all", "fit_seconds", seconds))
    for label, mixture, k in zip(model.classes_, model.mixtures_, model.n_components_per_class_):
        live, collapsed = kernel_counts(mixture)
        rows.append((str(label), "live_kernels", float(live)))
        rows.append((str(label), "collapsed_kernels", float(collapsed)))
        rows.append((str(label), "effective_components", float(k)))
        rows.append((str(label), "em_iterations", float(mixture.n_iter_)))
    table = pd.DataFrame(rows, columns=["class", "metric", "value"])
    table.insert(0, "n_components", int(n_components))
    return table


def _semisupervised_arrays(arrays: dict) -> tuple[np.ndarray, ...]:
    """The six arrays of a semi-supervised repeat: labelled, unlabelled (with hidden classes), test."""
    return (*arrays["labelled"], *arrays["unlabelled"], *arrays["test"])


def rounds_job(repeats: list, method: str, n_components: int, params: dict[str, Any],
               seed: int, split_name: str, dataset: str) -> pd.DataFrame:
    """The ``semisupervised_rounds`` rule (figs. 5.1, 5.3): one method on every repeat.

    Repeat ``r`` uses its ``labelled``, ``unlabelled`` and ``test`` rows and the generator of
    ``(seed, "semisupervised_rounds", split_name, method, r)``; ``split``, ``dataset`` and
    ``repeat`` columns are added.
    """
    from mixlib.experiments.data import over_repeats

    def run(arrays, rng, repeat):
        return semisupervised_rounds(*_semisupervised_arrays(arrays), method, n_components,
                                     params, rng).assign(repeat=repeat)

    table = over_repeats(repeats, run, seed, "semisupervised_rounds", split_name, method)
    return _with_split(table, split_name, dataset)


def sensitivity_job(repeats: list, n_components: int, params: dict[str, Any], restarts: list[str],
                    seed: int, split_name: str, dataset: str) -> pd.DataFrame:
    """The ``semisupervised_sensitivity`` rule: both methods at one grid point, every repeat.

    ``params`` holds the grid point's ``threshold`` and ``relative_min_variance``; the
    iterative method runs once and the prior method once per ``restarts`` entry, each with
    the generator of ``(seed, "semisupervised_sensitivity", split_name, method, r)`` (the same
    initialisations at every grid point, so the settings alone differ). The rows are those of
    :func:`semisupervised_rounds` with ``split``, ``dataset``, ``relative_min_variance`` and
    ``repeat`` columns.
    """
    from mixlib.experiments.data import over_repeats

    tables = []
    runs = [("iterative", params)] + [("prior", {**params, "restart": restart}) for restart in restarts]
    for method, settings in runs:
        def run(arrays, rng, repeat, method=method, settings=settings):
            return semisupervised_rounds(*_semisupervised_arrays(arrays), method, n_components,
                                         settings, rng).assign(repeat=repeat)

        tables.append(over_repeats(repeats, run, seed, "semisupervised_sensitivity", split_name, method))
    table = pd.concat(tables, ignore_index=True)
    table.insert(5, "relative_min_variance", float(params["relative_min_variance"]))
    return _with_split(table, split_name, dataset)


def kernel_sweep_job(repeats: list, method: str, n_components: int, params: dict[str, Any],
                     seed: int, split_name: str, dataset: str) -> pd.DataFrame:
    """The ``kernel_sweep_point`` rule (figs. 5.4, 5.5): one (method, K) on every repeat."""
    from mixlib.experiments.data import over_repeats

    def run(arrays, rng, repeat):
        return kernel_sweep_point(*_semisupervised_arrays(arrays), method, n_components,
                                  params, rng).assign(repeat=repeat)

    table = over_repeats(repeats, run, seed, "kernel_sweep", split_name, method, int(n_components))
    return _with_split(table, split_name, dataset)


def dna_kernel_job(repeats: list, n_components: int, params: dict[str, Any], seed: int,
                   split_name: str, encoding: str) -> pd.DataFrame:
    """The ``dna_kernel_point`` rule (fig. 6.1): one K on every repeat's train/test rows.

    Adds the ``repeat``, ``split`` and ``encoding`` columns (fig. 6.1 draws one pair of curves
    per encoding).
    """
    from mixlib.experiments.data import over_repeats

    def run(arrays, rng, repeat):
        return dna_kernel_point(*arrays["train"], *arrays["test"], n_components, params,
                                rng).assign(repeat=repeat)

    table = over_repeats(repeats, run, seed, "dna_kernel_sweep", split_name, int(n_components))
    return table.assign(split=split_name, encoding=encoding)


def _with_split(table: pd.DataFrame, split_name: str, dataset: str) -> pd.DataFrame:
    """``table`` with leading ``split`` and ``dataset`` columns."""
    table.insert(0, "dataset", dataset)
    table.insert(0, "split", split_name)
    return table


def sensitivity_point_paths(splits: list[str], grid: dict[str, Any] | None) -> list[str]:
    """The tables of every ``semisupervised_sensitivity`` grid point (none without a grid).

    One path per (split, threshold, relative variance floor):
    ``results/semisupervised_sensitivity/{split}.t{threshold}.v{floor}.tsv``, the numbers
    written with ``format(x, "g")`` (e.g. ``t0.75``, ``v1e-06``); the restarts run inside
    each job.
    """
    if not grid:
        return []
    return [
        f"results/semisupervised_sensitivity/{split}.t{format(threshold, 'g')}.v{format(floor, 'g')}.tsv"
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
