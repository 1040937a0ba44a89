"""Experiments on the mixture classifier itself: EM traces (fig. 3.3) and kernel maps (fig. 3.4).

Each function is a stage function of one repeat (:mod:`mixlib.experiments.contract`): the
repeat's arrays and keyword parameters in, a tidy :class:`pandas.DataFrame` out (no index);
:func:`em_trace_job` and :func:`kernel_map_job` run them on a job's repeats
(:func:`~mixlib.experiments.contract.run_repeats`), the EM traces by their columnar twin
:func:`em_trace_columns` (one DataFrame for the job). The data are used as given: isotropic
kernels assume features on comparable scales, so the pipeline should pass standardised
features.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.core.validation import check_random_state, check_X_y
from mixlib.experiments.contract import Columns, RepeatData, columnar, labelled, run_repeats
from mixlib.catalogue.settings import EMSettings
from mixlib.catalogue.registry import make_mixture
from mixlib.mixture import LIVE_WEIGHT, kernel_counts


def em_trace_columns(data: RepeatData, *, n_components: int, em: EMSettings, n_restarts: int,
                     n_labelled: int | None = None,
                     rng: np.random.Generator | int | None = None) -> Columns:
    """:func:`em_trace`'s table as :class:`~mixlib.experiments.contract.Columns` (its columnar
    twin, for :func:`~mixlib.experiments.contract.run_repeats`): every class's rows in one."""
    if n_restarts < 0:
        raise ValueError(f"n_restarts must be >= 0, got {n_restarts!r}.")
    X, y = check_X_y(*data["labelled"])
    rng = check_random_state(rng)
    if n_labelled is not None and n_labelled < len(X):
        chosen = np.sort(rng.choice(len(X), size=int(n_labelled), replace=False))
        X, y = X[chosen], y[chosen]
    clf = make_mixture(n_components, em, rng).fit(X, y)
    restarts = [make_mixture(n_components, em, rng).fit(X, y) for _ in range(n_restarts)]
    classes = []
    for c, (label, mixture, k) in enumerate(zip(clf.classes_, clf.mixtures_, clf.n_components_per_class_)):
        final = mixture.score(X[y == label])
        others = [other.mixtures_[c] for other in restarts]
        best = max([final] + [other.score(X[y == label]) for other in others])
        sound = [other.score(X[y == label]) for other in others if kernel_counts(other)[1] == 0]
        trace = np.append(mixture.lower_bounds_, final)
        collapsed = kernel_counts(mixture)[1]
        classes.append({
            "class": label,
            "n_components": int(k),
            "n_labelled": len(X),
            "iteration": np.arange(len(trace)),
            "mean_log_likelihood": trace,
            "n_iter": mixture.n_iter_,
            "converged": mixture.converged_,
            "collapsed": collapsed,
            "n_restarts": int(n_restarts),
            "global_gap": float(best - final),
            "nondegenerate_gap": (float(max([final] + sound) - final) if collapsed == 0
                                  else np.nan),
        })
    lengths = [len(values["iteration"]) for values in classes]
    return Columns({name: np.concatenate([np.broadcast_to(values[name], n)
                                          for values, n in zip(classes, lengths)])
                    for name in classes[0]}, sum(lengths))


@columnar(em_trace_columns)
def em_trace(
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    n_restarts: int,
    n_labelled: int | None = None,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Mean log-likelihood of every class model at every EM iteration (fig. 3.3; one repeat).

    Fits the study's mixture classifier (:func:`mixlib.catalogue.registry.make_mixture`)
    with ``n_components`` kernels per class on the ``labelled`` rows of the repeat, from a random initialisation (the report's:
    distinct training vectors as centres); with ``n_labelled`` it first draws that many
    labelled rows at random (without replacement). Then, to tell whether that fit reached the
    global maximum of the likelihood (the report: "souvent global"), ``n_restarts`` more
    classifiers are fit on the same rows from other random initialisations (drawn after the
    first fit, so they do not change it); ``global_gap`` compares their maxima with the
    first fit's.

    Parameters
    ----------
    data : RepeatData
        Uses the role ``labelled``: training rows without NaN (impute first) and their classes.
    n_components : int
        Kernels per class (the report: 4).
    em : EMSettings
        The EM settings of the mixtures.
    n_labelled : int, optional
        Labelled rows drawn (the report: 36); all of them if None or not fewer.
    n_restarts : int >= 0
        Extra random initialisations per class model, >= 0.
    rng : numpy.random.Generator, int or None
        Draws the subsample, then the initialisations.

    Returns
    -------
    pandas.DataFrame
        One row per (class, iteration) with columns ``class``,
        ``n_components`` (effective K of that class), ``n_labelled`` (rows used),
        ``iteration``, ``mean_log_likelihood``, ``n_iter``, ``converged``, ``collapsed``.
        ``iteration = i`` is the likelihood after ``i`` EM updates of the parameters: 0 is the
        initial model and ``n_iter`` (the last row of a class) the fitted model;
        ``mean_log_likelihood = sum_n ln p(x_n | c) / n_c`` over the rows of class ``c``, in
        nats per example. ``converged`` says whether EM stopped on ``tol`` (else on
        ``max_iter``); ``collapsed`` is the number of live kernels of the fitted class model
        whose variance ended at the floor (:func:`~mixlib.mixture.gaussian_mixture.kernel_counts`).
        ``n_restarts`` and ``global_gap``: the highest final mean log-likelihood of the class
        over the first fit and its restarts, minus the first fit's (>= 0 nats per example;
        0 when no restart did better, and always 0 without restarts). ``nondegenerate_gap``:
        the same among the fits without a kernel at the variance floor (the likelihood is
        unbounded, so a collapsed kernel can win any comparison), NaN when the first fit has one.
    """
    return em_trace_columns(data, n_components=n_components, em=em, n_restarts=n_restarts,
                            n_labelled=n_labelled, rng=rng).frame()


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
    data: RepeatData,
    *,
    n_components: int,
    em: EMSettings,
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Kernels of every class and the training points in the plane of the first two PCs (fig. 3.4).

    Fits the study's mixture classifier (:func:`mixlib.catalogue.registry.make_mixture`)
    with ``n_components`` kernels per class and projects the training points and the kernel centres on the first two principal
    components of the training data: ``(pc1, pc2) = A (x - xbar)``, ``A`` of shape (2, d)
    from :func:`principal_axes`. Because ``A`` has orthonormal rows, the projection of an
    isotropic kernel of width ``sigma`` is the isotropic 2-d Gaussian of the same ``sigma``,
    so a circle of radius ``sigma`` around the projected centre is exact.

    Parameters
    ----------
    data : RepeatData
        Uses the role ``labelled``: training rows (at least 2 features) and their classes.
    n_components : int
        Kernels per class (the report: 4).
    em : EMSettings
        The EM settings of the mixtures.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    pandas.DataFrame
        Columns ``kind`` ("kernel" or "point"), ``class``, ``n_components`` (kernels fit
        for that class, after the cap at its distinct rows), ``kernel`` (kernel index within
        its class; -1 for points), ``pc1``, ``pc2`` (units of ``X``), ``sigma`` and ``weight``
        (the kernel's width and mixing weight ``p_j``; NaN for points), ``n_iter`` (EM
        iterations of the class model; -1 for points), ``collapsed`` (True for a live kernel
        whose variance ended at the floor: it sits on one training vector; False for the
        others and for points).
    """
    X, y = check_X_y(*data["labelled"])
    if X.shape[1] < 2:
        raise ValueError(f"kernel_map needs at least 2 features, got {X.shape[1]}.")
    clf = make_mixture(n_components, em, check_random_state(rng)).fit(X, y)
    mean, axes = principal_axes(X)
    kernels = []
    for label, mixture in zip(clf.classes_, clf.mixtures_):
        centres = (mixture.means_ - mean) @ axes.T
        kernels.append(pd.DataFrame({
            "kind": "kernel",
            "class": label,
            "n_components": mixture.n_components,
            "kernel": np.arange(mixture.n_components),
            "pc1": centres[:, 0],
            "pc2": centres[:, 1],
            "sigma": mixture.sigmas_,
            "weight": mixture.weights_,
            "n_iter": mixture.n_iter_,
            "collapsed": mixture.at_floor_ & (mixture.weights_ > LIVE_WEIGHT),
        }))
    points = (X - mean) @ axes.T
    fitted = dict(zip(clf.classes_, clf.n_components_per_class_))
    kernels.append(pd.DataFrame({
        "kind": "point",
        "class": y,
        "n_components": [int(fitted[label]) for label in y],
        "kernel": -1,
        "pc1": points[:, 0],
        "pc2": points[:, 1],
        "sigma": np.nan,
        "weight": np.nan,
        "n_iter": -1,
        "collapsed": False,
    }))
    return pd.concat(kernels, ignore_index=True)


def em_trace_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                 n_components: int, em: EMSettings, n_restarts: int, first: int,
                 needed: int) -> pd.DataFrame:
    """The ``em_trace`` rule (fig. 3.3): :func:`em_trace` on the labelled rows of the repeats.

    The first ``first`` repeats run, then more until ``needed`` of them have a sound fit
    (:func:`has_sound_fit`; :func:`~mixlib.experiments.contract.run_repeats`). Repeat ``r``
    draws from ``generator(seed, "em_trace", split, r)``; its table gets a leading ``repeat``
    column and, before it, ``split`` and ``dataset`` columns.
    """
    table = run_repeats(em_trace, repeats,
                        {"n_components": n_components, "em": em, "n_restarts": n_restarts},
                        seed=seed, keys=("em_trace", split), first=first, needed=needed,
                        counts=has_sound_fit)
    return labelled(table, split=split, dataset=dataset, repeat=table.pop("repeat"))


def has_sound_fit(table: pd.DataFrame | Columns) -> bool:
    """Whether one repeat's :func:`em_trace` table (or its :func:`em_trace_columns`) has a
    class fit without a kernel at the variance floor (``collapsed == 0``): the repeats the
    "souvent global" claim is measured on (:func:`mixlib.analysis.claims_em.em_global_share`)."""
    return bool((np.asarray(table["collapsed"]) == 0).any())


def em_trace_floor_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                       n_components: int, em: EMSettings, n_restarts: int,
                       floors: Sequence[float]) -> pd.DataFrame:
    """The ``em_trace_sensitivity`` rule: :func:`em_trace` at every relative variance floor.

    Each floor replaces ``em``'s floor (``relative_min_variance``, as in the chapter-5 grid)
    and draws from ``generator(seed, "em_trace_sensitivity", split, r)`` on repeat ``r``, so
    the floors alone differ; the tables, stacked in the order of ``floors``, get leading
    ``split``, ``dataset`` and ``repeat`` columns and a last ``relative_min_variance`` column.
    """
    tables = []
    for floor in floors:
        table = run_repeats(em_trace, repeats,
                            {"n_components": n_components, "n_restarts": n_restarts,
                             "em": em.with_relative_floor(float(floor))},
                            seed=seed, keys=("em_trace_sensitivity", split))
        tables.append(labelled(table, split=split, dataset=dataset, repeat=table.pop("repeat"))
                      .assign(relative_min_variance=float(floor)))
    return pd.concat(tables, ignore_index=True)


def kernel_map_job(repeats: Sequence[RepeatData], *, seed: int, split: str, dataset: str,
                   n_components: int, em: EMSettings) -> pd.DataFrame:
    """The ``kernel_map`` rule (fig. 3.4): :func:`kernel_map` on the labelled rows of repeat 0.

    It draws from ``generator(seed, "kernel_map", split, 0)``; leading ``split`` and
    ``dataset`` columns name the data (no ``repeat`` column).
    """
    table = run_repeats(kernel_map, repeats, {"n_components": n_components, "em": em},
                        seed=seed, keys=("kernel_map", split), first=1)
    return labelled(table.drop(columns="repeat"), split=split, dataset=dataset)
