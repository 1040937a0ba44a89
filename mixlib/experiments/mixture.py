"""Experiments on the mixture classifier itself: EM traces (fig. 3.3) and kernel maps (fig. 3.4).

Each function is the unit of work of one pipeline rule: arrays and a params dict in, a tidy
:class:`pandas.DataFrame` out (no index; the rule adds the dataset column and writes a TSV).
The data are used as given: isotropic kernels assume features on comparable scales, so the
pipeline should pass standardised features.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state, check_X_y
from mixlib.mixture import LIVE_WEIGHT, MixtureClassifier, kernel_counts

_EM_KEYS = ("init", "tol", "max_iter", "min_variance", "relative_min_variance")


def _classifier(n_components: int, params: dict[str, Any], rng: np.random.Generator) -> MixtureClassifier:
    """A MixtureClassifier with the EM settings found in ``params`` (others keep defaults)."""
    em = {key: params[key] for key in _EM_KEYS if params.get(key) is not None}
    return MixtureClassifier(n_components, random_state=rng, **em)


def em_trace(
    X_labelled: np.ndarray,
    y_labelled: np.ndarray,
    n_components: int,
    params: dict[str, Any],
    rng: np.random.Generator | int | None,
) -> pd.DataFrame:
    """Mean log-likelihood of every class model at every EM iteration, over repeats (fig. 3.3).

    Each repeat fits a :class:`~mixlib.mixture.gaussian_mixture.MixtureClassifier` with ``n_components``
    kernels per class on the labelled rows, from a new random initialisation (the report's:
    distinct training vectors as centres); with ``params["n_labelled"]`` each repeat also
    draws that many labelled rows at random (without replacement) first.

    Parameters
    ----------
    X_labelled : ndarray of shape (n_samples, n_features)
        Labelled training rows (no NaN: impute first).
    y_labelled : ndarray of shape (n_samples,)
        Their classes.
    n_components : int
        Kernels per class (the report: 4).
    params : dict
        ``n_repeats`` (int, default 10); optional ``n_labelled`` (int, the report: 36); EM
        settings ``init``, ``tol``, ``max_iter``, ``min_variance`` or
        ``relative_min_variance`` passed to the mixtures.
    rng : numpy.random.Generator, int or None
        Drives the subsamples and the initialisations (all repeats from one stream).

    Returns
    -------
    pandas.DataFrame
        One row per (repeat, class, iteration) with columns ``repeat``, ``class``,
        ``n_components`` (effective K of that class), ``n_labelled`` (rows used),
        ``iteration``, ``mean_log_likelihood``, ``n_iter``, ``converged``, ``collapsed``.
        ``iteration = i`` is the likelihood after ``i`` EM updates of the parameters: 0 is the
        initial model and ``n_iter`` (the last row of a repeat and class) the fitted model;
        ``mean_log_likelihood = sum_n ln p(x_n | c) / n_c`` over the rows of class ``c``, in
        nats per example. ``converged`` says whether EM stopped on ``tol`` (else on
        ``max_iter``); ``collapsed`` is the number of live kernels of the fitted class model
        whose variance ended at the floor (:func:`~mixlib.mixture.gaussian_mixture.kernel_counts`).
    """
    X, y = check_X_y(X_labelled, y_labelled)
    rng = check_random_state(rng)
    n_repeats = int(params.get("n_repeats", 10))
    n_labelled = params.get("n_labelled")
    rows = []
    for repeat in range(n_repeats):
        if n_labelled is not None and n_labelled < len(X):
            chosen = np.sort(rng.choice(len(X), size=int(n_labelled), replace=False))
            X_r, y_r = X[chosen], y[chosen]
        else:
            X_r, y_r = X, y
        clf = _classifier(n_components, params, rng).fit(X_r, y_r)
        for label, mixture, k in zip(clf.classes_, clf.mixtures_, clf.n_components_per_class_):
            final = mixture.score(X_r[y_r == label])
            trace = np.append(mixture.lower_bounds_, final)
            rows.append(pd.DataFrame({
                "repeat": repeat,
                "class": label,
                "n_components": int(k),
                "n_labelled": len(X_r),
                "iteration": np.arange(len(trace)),
                "mean_log_likelihood": trace,
                "n_iter": mixture.n_iter_,
                "converged": mixture.converged_,
                "collapsed": kernel_counts(mixture)[1],
            }))
    return pd.concat(rows, ignore_index=True)


def principal_axes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and first two principal directions of ``X`` (numpy SVD).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), n_features >= 2

    Returns
    -------
    mean : ndarray of shape (n_features,)
    axes : ndarray of shape (2, n_features)
        Orthonormal rows, the right singular vectors of ``X - mean`` for the two largest
        singular values; each is signed so that its largest-magnitude entry is positive
        (a deterministic choice).
    """
    mean = X.mean(axis=0)
    _, _, vt = np.linalg.svd(X - mean, full_matrices=False)
    axes = vt[:2]
    signs = np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)])
    return mean, axes * signs[:, None]


def kernel_map(
    X_train: np.ndarray,
    y_train: np.ndarray,
    n_components: int,
    params: dict[str, Any],
    rng: np.random.Generator | int | None,
) -> pd.DataFrame:
    """Kernels of every class and the training points in the plane of the first two PCs (fig. 3.4).

    Fits a :class:`~mixlib.mixture.gaussian_mixture.MixtureClassifier` with ``n_components`` kernels per class
    and projects the training points and the kernel centres on the first two principal
    components of the training data: ``(pc1, pc2) = A (x - xbar)``, ``A`` of shape (2, d)
    from :func:`principal_axes`. Because ``A`` has orthonormal rows, the projection of an
    isotropic kernel of width ``sigma`` is the isotropic 2-d Gaussian of the same ``sigma``,
    so a circle of radius ``sigma`` around the projected centre is exact.

    Parameters
    ----------
    X_train : ndarray of shape (n_samples, n_features), n_features >= 2
    y_train : ndarray of shape (n_samples,)
    n_components : int
        Kernels per class (the report: 4).
    params : dict
        EM settings ``init``, ``tol``, ``max_iter``, ``min_variance`` or
        ``relative_min_variance`` (optional).
    rng : numpy.random.Generator, int or None

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` ("kernel" or "point"), ``class``, ``kernel`` (kernel index within
        its class; -1 for points), ``pc1``, ``pc2`` (units of ``X``), ``sigma`` and ``weight``
        (the kernel's width and mixing weight ``p_j``; NaN for points), ``n_iter`` (EM
        iterations of the class model; -1 for points), ``collapsed`` (True for a live kernel
        whose variance ended at the floor: it sits on one training vector; False for the
        others and for points).
    """
    X, y = check_X_y(X_train, y_train)
    if X.shape[1] < 2:
        raise ValueError(f"kernel_map needs at least 2 features, got {X.shape[1]}.")
    clf = _classifier(n_components, params, check_random_state(rng)).fit(X, y)
    mean, axes = principal_axes(X)
    kernels = []
    for label, mixture in zip(clf.classes_, clf.mixtures_):
        centres = (mixture.means_ - mean) @ axes.T
        kernels.append(pd.DataFrame({
            "kind": "kernel",
            "class": label,
            "kernel": np.arange(mixture.n_components),
            "pc1": centres[:, 0],
            "pc2": centres[:, 1],
            "sigma": mixture.sigmas_,
            "weight": mixture.weights_,
            "n_iter": mixture.n_iter_,
            "collapsed": mixture.at_floor_ & (mixture.weights_ > LIVE_WEIGHT),
        }))
    points = (X - mean) @ axes.T
    kernels.append(pd.DataFrame({
        "kind": "point",
        "class": y,
        "kernel": -1,
        "pc1": points[:, 0],
        "pc2": points[:, 1],
        "sigma": np.nan,
        "weight": np.nan,
        "n_iter": -1,
        "collapsed": False,
    }))
    return pd.concat(kernels, ignore_index=True)


def em_trace_job(repeats: list, n_components: int, em: dict[str, Any], seed: int,
                 split_name: str, dataset: str) -> pd.DataFrame:
    """The ``em_trace`` rule (fig. 3.3): :func:`em_trace` on the labelled rows of every repeat.

    Repeat ``r`` fits one classifier on that repeat's ``labelled`` rows with the generator of
    ``(seed, "em_trace", split_name, r)``; the ``repeat`` column is the split's repeat, and
    leading ``split`` and ``dataset`` columns name the data.
    """
    from mixlib.experiments.data import over_repeats

    def run(arrays, rng, repeat):
        table = em_trace(*arrays["labelled"], n_components, {**em, "n_repeats": 1}, rng)
        return table.assign(repeat=repeat)

    table = over_repeats(repeats, run, seed, "em_trace", split_name)
    table.insert(0, "dataset", dataset)
    table.insert(0, "split", split_name)
    return table


def kernel_map_job(repeats: list, n_components: int, em: dict[str, Any], seed: int,
                   split_name: str, dataset: str) -> pd.DataFrame:
    """The ``kernel_map`` rule (fig. 3.4): :func:`kernel_map` on the labelled rows of repeat 0.

    Leading ``split`` and ``dataset`` columns name the data.
    """
    from mixlib.core.seeding import generator

    table = kernel_map(*repeats[0]["labelled"], n_components, em,
                       generator(seed, "kernel_map", split_name, 0))
    table.insert(0, "dataset", dataset)
    table.insert(0, "split", split_name)
    return table
