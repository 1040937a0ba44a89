"""Standardisation with statistics of the training rows only, and the test for one-hot-like data."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def standardise(X: np.ndarray, fit_rows: np.ndarray,
                feature_names: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre and scale each feature with the mean and standard deviation of ``fit_rows``.

    ``z = (x - m) / s`` where ``m`` and ``s`` (population standard deviation) are computed on
    the rows selected by ``fit_rows``, ignoring NaN; test rows never influence them. A feature
    that is constant on those rows gets ``s = 1`` (it is only centred). NaN stays NaN.

    The statistics cannot overflow: each feature is first divided by ``a``, its largest
    absolute value on ``fit_rows``, so the squares summed for the variance are at most 1; then
    ``z = (x / a - m / a) / (s / a)``, which equals the formula above.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    fit_rows : ndarray of bool, shape (n_samples,)
    feature_names : sequence of str, optional
        Names of the features, for messages (default: their indices).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
    mean, scale : ndarray of shape (n_features,)

    Raises
    ------
    ValueError
        If a feature has no observed value in ``fit_rows``, or if a value of ``X`` is infinite
        or too far from the training rows' values for ``z`` to be a finite number.
    """
    X = np.asarray(X, dtype=np.float64)
    names = list(feature_names) if feature_names is not None else [str(j) for j in range(X.shape[1])]
    fit_rows = np.asarray(fit_rows, dtype=bool)
    if fit_rows.shape != (X.shape[0],):
        raise ValueError(f"fit_rows must have shape ({X.shape[0]},), got {fit_rows.shape}.")
    if not fit_rows.any():
        raise ValueError("standardise needs at least one row to compute statistics from.")
    infinite = np.isinf(X).any(axis=0)
    if infinite.any():
        raise ValueError(f"Features {[names[j] for j in np.flatnonzero(infinite)]} hold infinite values.")
    reference = X[fit_rows]
    observed = ~np.isnan(reference)
    count = observed.sum(axis=0)
    if (count == 0).any():
        empty = [names[j] for j in np.flatnonzero(count == 0)]
        raise ValueError(f"Features {empty} have no observed value in the training rows.")
    magnitude = np.max(np.where(observed, np.abs(reference), 0.0), axis=0)
    magnitude[magnitude == 0.0] = 1.0
    with np.errstate(over="ignore"):
        unit = reference / magnitude
        mean_unit = np.where(observed, unit, 0.0).sum(axis=0) / count
        scale_unit = np.sqrt((np.where(observed, unit - mean_unit, 0.0) ** 2).sum(axis=0) / count)
        # Constant on the training rows: s <= 1e-12 max(1, |m|), in units of a.
        constant = scale_unit <= 1e-12 * np.maximum(1.0 / magnitude, np.abs(mean_unit))
        scale_unit[constant] = 1.0
        Z = (X / magnitude - mean_unit) / scale_unit
        mean, scale = mean_unit * magnitude, scale_unit * magnitude
        scale[constant] = 1.0
        Z[:, constant] = X[:, constant] - mean[constant]
    overflow = np.isinf(Z).any(axis=0)
    if overflow.any():
        raise ValueError(
            f"Features {[names[j] for j in np.flatnonzero(overflow)]} have values so far from the "
            "training rows' that their standardised value overflows; check them for typos."
        )
    return Z, mean, scale


#: Share of the rows the two most frequent values of every column must cover for data to
#: count as indicator-like (:func:`is_indicator_like`).
INDICATOR_COVERAGE = 0.99


def is_indicator_like(X: np.ndarray, coverage: float = INDICATOR_COVERAGE) -> bool:
    """Whether ``X`` (n_samples, n_features) is one-hot-like data.

    True when, in every column, the two most frequent values cover at least ``coverage`` of
    the rows: one-hot indicators, raw (0/1) or standardised (two values per column), allowing
    a few rows of other values (splice codes an ambiguous base by spreading one unit over its
    possible bases: 0.25, 1/3, 0.5 in 15 of its 3190 rows).
    """
    X = np.asarray(X)
    for column in X.T:
        counts = np.unique(column, return_counts=True)[1]
        if np.sort(counts)[-2:].sum() < coverage * len(column):
            return False
    return True
