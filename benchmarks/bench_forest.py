"""Random forest: mixlib against scikit-learn on splice (one-hot), fit + predict time.

Usage: ``python benchmarks/bench_forest.py [--quick] [--trees 100] [--repeats 3]``

Both forests use the same settings (``max_features="sqrt"``, full depth, bootstrap, Gini) on
the same fixed split (2000 training rows, the rest for test); scikit-learn runs with
``n_jobs=1``. Times are CPU seconds of this process (``time.process_time``, so other load on
the machine counts less), the best of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.ensemble import RandomForestClassifier as SkForest

from mixlib.datasets import load_xy
from mixlib.forest import RandomForestClassifier


def run(model, X_train, y_train, X_test, y_test) -> tuple[float, float, float]:
    start = time.process_time()
    model.fit(X_train, y_train)
    fit = time.process_time() - start
    start = time.process_time()
    error = float(np.mean(model.predict(X_test) != y_test))
    return fit, time.process_time() - start, error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 trees, 1 repeat")
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    trees, repeats = (20, 1) if args.quick else (args.trees, args.repeats)
    X, y = load_xy("splice", encoding="onehot")
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[:2000], perm[2000:]
    data = (X[train], y[train], X[test], y[test])
    results = {"mixlib": [], "sklearn": []}
    for seed in range(repeats):
        results["mixlib"].append(run(RandomForestClassifier(trees, random_state=seed), *data))
        results["sklearn"].append(run(SkForest(trees, random_state=seed, n_jobs=1), *data))
    print(f"splice one-hot {X.shape}, train {len(train)}, test {len(test)}, {trees} trees, "
          f"best of {repeats} (CPU s)")
    print(f"{'':10s}{'fit s':>9s}{'predict s':>11s}{'total s':>9s}{'test error':>12s}")
    best = {}
    for name, runs in results.items():
        fit, predict = min(r[0] for r in runs), min(r[1] for r in runs)
        error = float(np.mean([r[2] for r in runs]))
        best[name] = fit + predict
        print(f"{name:10s}{fit:9.3f}{predict:11.3f}{fit + predict:9.3f}{error:12.4f}")
    print(f"ratio mixlib/sklearn (fit + predict): {best['mixlib'] / best['sklearn']:.2f}")


if __name__ == "__main__":
    main()
