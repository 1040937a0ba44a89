"""Helpers shared by the benchmark scripts (imported as ``_common`` from ``benchmarks/``)."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from mixlib.datasets import load_xy
from mixlib.core.preprocessing import is_indicator_like, standardise
from mixlib.impute import MeanImputer


def load_split(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One seeded split of a data set: 2/3 training rows, 1/3 test rows.

    ``name`` is given to :func:`mixlib.datasets.load_xy` (one-hot encoding); missing cells
    (heart_cleveland) are filled with the training rows' means, and numeric (not one-hot)
    data are standardised with the training rows' statistics. Returns ``X_train, y_train,
    X_test, y_test``.
    """
    X, y = load_xy(name, encoding="onehot")
    train = np.zeros(len(y), dtype=bool)
    train[np.random.default_rng(seed).permutation(len(y))[: 2 * len(y) // 3]] = True
    if np.isnan(X).any():
        X = MeanImputer().fit(X[train], y[train]).transform(X)
    if not is_indicator_like(X):
        X = standardise(X, train)[0]
    return X[train], y[train], X[~train], y[~train]


def best_time(run: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Smallest wall time of ``repeats`` calls of ``run`` and the result of the last call."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


class Ratios:
    """Collects the machine-readable summary lines every benchmark ends with.

    ``add(case, ratio, ours, reference)`` records one case: its time ratio ours / reference
    and the accuracy (fraction, or None when it does not apply) of both sides. ``emit()``
    prints ``ACCURACY <benchmark>/<case> <ours> <reference>`` lines, then the final
    ``RATIO <benchmark>/<case> <ratio>`` lines that ``run_all.py`` reads.
    """

    def __init__(self, benchmark: str) -> None:
        self.benchmark = benchmark
        self.cases: list[tuple[str, float, float | None, float | None]] = []

    def add(self, case: str, ratio: float, ours: float | None = None,
            reference: float | None = None) -> None:
        self.cases.append((case, float(ratio), ours, reference))

    def emit(self) -> None:
        def text(value):
            return "-" if value is None else f"{value:.4f}"

        for case, _, ours, reference in self.cases:
            print(f"ACCURACY {self.benchmark}/{case} {text(ours)} {text(reference)}")
        for case, ratio, _, _ in self.cases:
            print(f"RATIO {self.benchmark}/{case} {ratio:.3f}")
