"""Standardisation with statistics of the training rows only."""

from __future__ import annotations

import numpy as np


def standardise(X: np.ndarray, fit_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre and scale each feature with the mean and standard deviation of ``fit_rows``.

    ``z = (x - m) / s`` where ``m`` and ``s`` (population standard deviation) are computed on
    the rows selected by ``fit_rows``, ignoring NaN; test rows never influence them. A feature
    that is constant on those rows gets ``s = 1`` (it is only centred). NaN stays NaN.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    fit_rows : ndarray of bool, shape (n_samples,)

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)
    mean, scale : ndarray of shape (n_features,)
    """
    fit_rows = np.asarray(fit_rows, dtype=bool)
    if fit_rows.shape != (X.shape[0],):
        raise ValueError(f"fit_rows must have shape ({X.shape[0]},), got {fit_rows.shape}.")
    if not fit_rows.any():
        raise ValueError("standardise needs at least one row to compute statistics from.")
    reference = X[fit_rows]
    observed = ~np.isnan(reference)
    count = observed.sum(axis=0)
    if (count == 0).any():
        empty = np.flatnonzero(count == 0).tolist()
        raise ValueError(f"Features {empty} have no observed value in the training rows.")
    filled = np.where(observed, reference, 0.0)
    mean = filled.sum(axis=0) / count
    variance = (np.where(observed, reference - mean, 0.0) ** 2).sum(axis=0) / count
    scale = np.sqrt(variance)
    scale[scale <= 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
    return (X - mean) / scale, mean, scale
