"""Fit time of mixlib's SMO against scikit-learn's SVC (libsvm) on splice.

Usage: ``python benchmarks/bench_svm.py [--quick] [--grid] [--n-train 1000] [--repeats 3]``.
Both fit the same 1000 training rows (seeded shuffle) with the same Gaussian kernel
(``gamma = 1 / (2 sigma^2)``), C and KKT tolerance 1e-3, and are scored on the other rows.
``--grid`` also times one level of the (C, sigma) grid search (5 x 5 points, 5-fold CV, one
process) against scikit-learn's ``GridSearchCV`` on the same folds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV, PredefinedSplit
from sklearn.svm import SVC as SkSVC

from _common import Ratios, best_time
from mixlib.datasets import load_xy
from mixlib.model_selection.evaluation import evaluate_grid, grid_level_axes, stratified_folds
from mixlib.svm import SVC


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two settings, one repeat")
    parser.add_argument("--n-train", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grid", action="store_true", help="also time one grid level")
    args = parser.parse_args()

    X, y = load_xy("splice", encoding="onehot")
    order = np.random.default_rng(args.seed).permutation(len(y))
    train, test = order[: args.n_train], order[args.n_train:]
    settings = [(1.0, 3.0), (10.0, 5.0)] if args.quick else \
        [(1.0, 3.0), (10.0, 3.0), (1.0, 5.0), (10.0, 5.0), (100.0, 8.0)]
    repeats = 1 if args.quick else args.repeats
    print(f"splice: {len(train)} train / {len(test)} test rows, {X.shape[1]} features, "
          f"best of {repeats} fit(s)")
    print(f"{'C':>7} {'sigma':>6} {'ours s':>8} {'sklearn s':>9} {'ratio':>6} "
          f"{'ours err':>8} {'sk err':>7} {'ours it':>8} {'sk it':>7}")
    ratios, summary = [], Ratios("svm")
    for C, sigma in settings:
        ours_time, ours = best_time(lambda: SVC(C=C, sigma=sigma).fit(X[train], y[train]),
                                    repeats)
        sk_time, sk = best_time(
            lambda: SkSVC(C=C, gamma=1 / (2 * sigma**2)).fit(X[train], y[train]), repeats)
        ratios.append(ours_time / sk_time)
        ours_err = np.mean(ours.predict(X[test]) != y[test])
        sk_err = np.mean(sk.predict(X[test]) != y[test])
        print(f"{C:7.1f} {sigma:6.1f} {ours_time:8.3f} {sk_time:9.3f} {ratios[-1]:6.2f} "
              f"{ours_err:8.4f} {sk_err:7.4f} {ours.n_iter_.sum():8d} {sk.n_iter_.sum():7d}")
        summary.add(f"smo_C{C:g}_sigma{sigma:g}", ratios[-1], 1.0 - ours_err, 1.0 - sk_err)
    print(f"geometric mean ratio ours/sklearn: {np.exp(np.mean(np.log(ratios))):.2f}")
    summary.add("smo_geometric_mean", np.exp(np.mean(np.log(ratios))))
    if args.grid:
        time_grid_level(X[train], y[train], args.seed)
    summary.emit()


def time_grid_level(X: np.ndarray, y: np.ndarray, seed: int) -> None:
    """One 5 x 5 level, 5-fold CV, same folds for both; print times and best CV errors."""
    log_C, log_sigma = grid_level_axes(0, (-1.0, 3.0), (-0.5, 1.5), 5)
    folds = stratified_folds(y, 5, seed)
    start = time.perf_counter()
    ours = evaluate_grid(SVC(), X, y, log_C, log_sigma, folds)
    ours_time = time.perf_counter() - start
    grid = {"C": 10.0**log_C, "gamma": 1 / (2 * 10.0 ** (2 * log_sigma))}
    start = time.perf_counter()
    sk = GridSearchCV(SkSVC(), grid, cv=PredefinedSplit(folds), n_jobs=1).fit(X, y)
    sk_time = time.perf_counter() - start
    print(f"grid level (25 points x 5 folds): ours {ours_time:.1f} s, GridSearchCV "
          f"{sk_time:.1f} s, ratio {ours_time / sk_time:.2f}; best CV error ours "
          f"{ours['cv_error'].min():.4f}, sklearn {1 - sk.best_score_:.4f}")


if __name__ == "__main__":
    main()
