"""Data sets: shipped copies, sources (bundled, URL, user CSV), parsers and encoders.

Quick use::

    from mixlib.datasets import load_xy
    X, y = load_xy("splice", encoding="onehot")   # (3190, 240) float64, str labels
"""

from __future__ import annotations

import numpy as np

from mixlib.datasets.encoders import encode_sequences, feature_matrix, prepare_table
from mixlib.datasets.registry import BUNDLED, CLASS_COLUMN, bundled_dataset
from mixlib.datasets.sources import (
    FetchError, all_categorical, categorical_columns, dataset_encoding, load_bundled,
    load_source, sequence_column, uses_standardisation,
)

__all__ = [
    "BUNDLED", "CLASS_COLUMN", "FetchError", "all_categorical", "bundled_dataset",
    "categorical_columns", "dataset_encoding", "encode_sequences", "feature_matrix",
    "load_bundled", "load_source", "load_xy", "prepare_table", "sequence_column",
    "uses_standardisation",
]


def load_xy(name: str, encoding: str = "onehot") -> tuple[np.ndarray, np.ndarray]:
    """A shipped data set as arrays, for tests, benchmarks and interactive use.

    Parameters
    ----------
    name : str
        A shipped data set (a key of :data:`BUNDLED`).
    encoding : {"onehot", "ordinal"}
        How sequences and categorical features are coded (ignored for numeric data).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64, NaN where a value is missing
    y : ndarray of shape (n_samples,), str class labels
    """
    raw = load_bundled(name)
    info = bundled_dataset(name)
    prepared = prepare_table(raw, info.sequence_column, encoding, info.categorical_columns)
    return feature_matrix(prepared)
