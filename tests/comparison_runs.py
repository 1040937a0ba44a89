"""Several models of the comparison on one data set, as the pipeline runs them: one
``comparison_point`` per model, each with a generator in the same state (the same folds)."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mixlib.experiments.comparison import ComparisonRun, comparison_point


def models_on_one_dataset(X: np.ndarray, y: np.ndarray, dataset: str, models: Sequence[str],
                          params: Mapping[str, Mapping[str, Any]] | None, n_folds: int,
                          significance: float, rng: int | np.random.Generator,
                          **options: Any) -> ComparisonRun:
    """The stacked :func:`comparison_point` runs of ``models``, in their order; every model
    gets a copy of ``rng`` in its present state, as every job of a data set gets
    ``generator(seed, "comparison", dataset)``."""
    params = dict(params or {})
    runs = [comparison_point(X, y, dataset, name, params.get(name), n_folds, significance,
                             copy.deepcopy(rng), **options) for name in models]
    return ComparisonRun(pd.concat([run.scores for run in runs], ignore_index=True),
                         pd.concat([run.settings for run in runs], ignore_index=True))
