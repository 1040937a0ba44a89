"""Imputation study (beyond the report): does kernel-mode imputation beat the mean?

On complete rows, values are hidden completely at random (MCAR) at several rates, imputed by
each method, and compared with the hidden truth (RMSE, standardised units); a mixture
classifier trained on the imputed training rows is scored on the imputed test rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mixlib.core.validation import check_array
from mixlib.catalogue.registry import IMPUTATION_METHODS, make_imputer, make_mixture
from mixlib.catalogue.settings import EMSettings
from mixlib.model_selection.resampling import holdout_units, standardised


def imputer_variants(methods: Sequence[str],
                     kernels_per_feature: Sequence[int]) -> list[tuple[str, str, int | None]]:
    """The imputers a study compares, as ``(label, method, K)`` in the order of ``methods``.

    ``kernel_mode`` gives one imputer per value of ``kernels_per_feature``, labelled
    ``"kernel_mode:K"`` in the tables and figures; the other methods one each (K None).
    """
    variants = []
    for method in methods:
        if method not in IMPUTATION_METHODS:
            raise ValueError(f"Unknown imputation method {method!r}; expected one of "
                             f"{list(IMPUTATION_METHODS)}.")
        if method == "kernel_mode":
            variants += [(f"kernel_mode:{k}", method, int(k)) for k in kernels_per_feature]
        else:
            variants.append((method, method, None))
    return variants


def mcar_mask(shape: tuple[int, int], rate: float, train: np.ndarray,
              rng: np.random.Generator) -> np.ndarray:
    """Cells hidden completely at random, each with probability ``rate``; every feature keeps
    an observed value in the training rows.

    A feature whose every training cell the draw hides could not be imputed by any method
    (nothing to learn from): one of those cells, drawn uniformly, stays observed. Which cells
    are hidden still depends on no value, so the mask stays MCAR; only the rare draws that
    leave a feature empty change (probability ``1 - (1 - rate**n_train)**n_features``, e.g.
    0.82 at rate 0.99 with 208 training rows and 13 features, below 1e-100 at rate 0.3).
    When no feature is left empty, ``rng`` draws nothing more, so the mask is the plain draw.

    Parameters
    ----------
    shape : (n_samples, n_features)
    rate : float in [0, 1)
    train : ndarray of bool, shape (n_samples,)
        The training rows (at least one).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of bool, shape ``shape``
        True for a hidden cell.
    """
    hidden = rng.random(shape) < rate
    empty = np.flatnonzero(hidden[train].all(axis=0))
    if len(empty):
        hidden[rng.choice(np.flatnonzero(train), size=len(empty)), empty] = False
    return hidden


def imputation_study(
    X_complete: np.ndarray,
    y: np.ndarray,
    *,
    rates: Sequence[float],
    methods: Sequence[str],
    kernels_per_feature: Sequence[int],
    em: EMSettings,
    n_repeats: int,
    rng: np.random.Generator | int | None,
    test_fraction: float,
    classifier_components: int,
) -> pd.DataFrame:
    """RMSE of each imputation method against hidden MCAR values, and the classifier's test error.

    Every repeat is a unit of the resampling protocol
    (:func:`~mixlib.model_selection.resampling.holdout_units`: a stratified hold-out split
    with ``round(test_fraction * n)`` test rows, drawn by the repeat's own generator, which
    then draws the repeat's masks and initialisations), its features standardised with the
    mean and standard deviation of its training rows
    (:func:`~mixlib.model_selection.resampling.standardised`); then for
    every rate one MCAR mask over all cells (each cell hidden independently with probability
    ``rate``, except that every feature keeps an observed training value: :func:`mcar_mask`;
    the same mask for every method, so methods are compared on the same cells).
    Each imputer is fit on the masked training rows with their labels; training rows are
    filled with their class's values, test rows with the class-free values (no test label
    is used). The study's mixture classifier (:func:`mixlib.catalogue.registry.make_mixture`)
    is then trained on the imputed training rows and scored on the imputed test rows. Every
    mixture, the imputers' and the classifier's, is fitted with the EM settings ``em``.

    Parameters
    ----------
    X_complete : ndarray of shape (n_samples, n_features)
        Rows with no missing value (rows holding NaN raise ValueError: drop them first).
    y : ndarray of shape (n_samples,)
        Class labels.
    rates : sequence of float in [0, 1)
        Missing rates, e.g. ``[0.05, 0.1, 0.2, 0.3]``. A rate of 0 gives the complete-data
        test error and no RMSE rows.
    methods : sequence of str
        Of :data:`~mixlib.catalogue.registry.IMPUTATION_METHODS`
        (:func:`~mixlib.catalogue.registry.make_imputer`).
    kernels_per_feature : sequence of int
        Kernels per univariate mixture of the ``kernel_mode`` imputer: one imputer per value
        (:func:`imputer_variants`).
    em : EMSettings
        EM settings of every mixture (the config's ``em`` section).
    n_repeats : int
    rng : numpy.random.Generator, int or None
        Spawns one generator per repeat (the splits, masks and initialisations).
    test_fraction : float in (0, 1)
        Share of the rows in the test part of every repeat (``imputation_study.test_fraction``).
    classifier_components : int
        Kernels per class of the mixture classifier.

    Returns
    -------
    pandas.DataFrame
        Columns ``repeat``, ``missing_rate``, ``method``, ``metric``, ``value``, ``n_hidden``.
        Metrics: ``rmse_train`` and ``rmse_test``
        ``sqrt(mean over hidden cells of (imputed - true)^2)`` in standardised units (training
        rows filled by class, test rows class-free); ``mae_train``, ``mae_test`` the mean
        absolute difference (same units); ``test_error`` the fraction of test rows
        misclassified (in [0, 1]). Note that of all constants the mean minimises the squared
        error, so RMSE favours mean imputation by construction; MAE (minimised by the median)
        and the test error are the fairer tests of the report's claim. ``n_hidden`` is the number of hidden cells of the rows
        concerned (all rows for ``test_error``).
    """
    X = check_array(X_complete, name="X_complete")
    y = np.asarray(y)
    if y.shape != (len(X),):
        raise ValueError(f"y must have shape ({len(X)},), got {y.shape}.")
    for rate in rates:
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"missing rates must lie in [0, 1), got {rate}.")
    variants = imputer_variants(methods, kernels_per_feature)  # fails early on a bad name

    rows = []
    units = holdout_units(X, y, test_fraction, n_repeats, rng, where="imputation_study.test_fraction")
    for unit in map(standardised, units):
        repeat, draws = unit.repeat, unit.rng
        Z = np.concatenate([unit.X_train, unit.X_test])
        labels = np.concatenate([unit.y_train, unit.y_test])
        test = np.arange(len(labels)) >= len(unit.y_train)
        for rate in rates:
            hidden = mcar_mask(Z.shape, rate, ~test, draws)
            masked = np.where(hidden, np.nan, Z)
            for label, method, k in variants:
                imputer = make_imputer(method, em=em, kernels_per_feature=k, random_state=draws)
                imputer.fit(masked[~test], labels[~test])
                filled_train = imputer.transform(masked[~test], labels[~test])
                filled_test = imputer.transform(masked[test])
                clf = make_mixture(classifier_components, em, draws)
                clf.fit(filled_train, labels[~test])
                error = float(np.mean(clf.predict(filled_test) != labels[test]))
                record = {"repeat": repeat, "missing_rate": rate, "method": label}
                for part, mask, filled in (("train", ~test, filled_train), ("test", test, filled_test)):
                    cells = hidden[mask]
                    if cells.any():
                        diff = filled[cells] - Z[mask][cells]
                        n_hidden = int(cells.sum())
                        rows.append({**record, "metric": f"rmse_{part}", "value": float(np.sqrt(np.mean(diff**2))), "n_hidden": n_hidden})
                        rows.append({**record, "metric": f"mae_{part}", "value": float(np.mean(np.abs(diff))), "n_hidden": n_hidden})
                rows.append({**record, "metric": "test_error", "value": error, "n_hidden": int(hidden.sum())})
    return pd.DataFrame(rows)


def imputation_study_job(prepared: pd.DataFrame, *, rate: float, methods: Sequence[str],
                         kernels_per_feature: Sequence[int], em: EMSettings, n_repeats: int,
                         test_fraction: float, classifier_components: int, seed: int,
                         dataset: str) -> pd.DataFrame:
    """The ``imputation_study`` rule: :func:`imputation_study` at one missing rate.

    Uses the complete rows of the prepared table (rows with a missing cell are left out, as
    their true values are unknown) and the generator of
    ``(seed, "imputation_study", dataset, rate)``.
    """
    from mixlib.datasets import feature_matrix
    from mixlib.core.seeding import generator

    X, y = feature_matrix(prepared)
    complete = ~np.isnan(X).any(axis=1)
    rng = generator(seed, "imputation_study", dataset, f"{rate:g}")
    table = imputation_study(X[complete], y[complete], rates=[rate], methods=methods,
                             kernels_per_feature=kernels_per_feature, em=em,
                             n_repeats=n_repeats, rng=rng, test_fraction=test_fraction,
                             classifier_components=classifier_components)
    return table.assign(dataset=dataset)
