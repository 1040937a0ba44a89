"""Trees and tree ensembles: mixlib against scikit-learn on splice (one-hot), fit + predict.

Usage: ``python benchmarks/bench_trees.py [--quick] [--repeats 3] [--threads 1]``

Cases, each with the same settings on both sides and the same fixed split (2000 training
rows, the other 1190 for test), scikit-learn with ``n_jobs=1``:

- ``forest``: random forest, 100 trees, ``max_features="sqrt"``, full depth, bootstrap, Gini;
- ``cart``: one tree, entropy, full depth, every feature a candidate;
- ``bagging``: bagging of 25 full Gini trees (``BaggingClassifier``);
- ``adaboost``: SAMME on 50 stumps.

Times are CPU seconds of this process (``time.process_time``, so other load on the machine
counts less), fit and predict each the best of ``--repeats`` runs with seeds 0, 1, ...; the
test error is the mean over the runs. Ends with ``ACCURACY`` and ``RATIO trees/<case>``
lines (``benchmarks/_common.py``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.ensemble import BaggingClassifier as SkBagging
from sklearn.ensemble import RandomForestClassifier as SkForest
from sklearn.tree import DecisionTreeClassifier as SkTree
from threadpoolctl import threadpool_limits

from _common import Ratios
from mixlib.ensemble import BaggingClassifier
from mixlib.ensemble import AdaBoostClassifier
from mixlib.datasets import load_xy
from mixlib.ensemble import RandomForestClassifier
from mixlib.tree.decision_tree import DecisionTreeClassifier


def cases(seed: int, quick: bool) -> dict:
    """(mixlib model, scikit-learn model) of every case for one seed."""
    trees, members, rounds = (20, 10, 20) if quick else (100, 25, 50)
    return {
        "forest": (RandomForestClassifier(trees, random_state=seed),
                   SkForest(trees, random_state=seed, n_jobs=1)),
        "cart": (DecisionTreeClassifier(criterion="entropy", random_state=seed),
                 SkTree(criterion="entropy", random_state=seed)),
        "bagging": (BaggingClassifier(DecisionTreeClassifier(), members, random_state=seed),
                    SkBagging(SkTree(), n_estimators=members, random_state=seed, n_jobs=1)),
        "adaboost": (AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), rounds,
                                        random_state=seed),
                     SkAdaBoost(SkTree(max_depth=1), n_estimators=rounds, random_state=seed)),
    }


def run(model, X_train, y_train, X_test, y_test) -> tuple[float, float, float]:
    """Fit and predict CPU seconds and test error of one model."""
    start = time.process_time()
    model.fit(X_train, y_train)
    fit = time.process_time() - start
    start = time.process_time()
    error = float(np.mean(model.predict(X_test) != y_test))
    return fit, time.process_time() - start, error


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller ensembles, 1 repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for both")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    X, y = load_xy("splice", encoding="onehot")
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[:2000], perm[2000:]
    data = (X[train], y[train], X[test], y[test])
    results: dict = {}
    with threadpool_limits(args.threads):
        for seed in range(repeats):
            for case, (ours, theirs) in cases(seed, args.quick).items():
                runs = results.setdefault(case, {"mixlib": [], "sklearn": []})
                runs["mixlib"].append(run(ours, *data))
                runs["sklearn"].append(run(theirs, *data))
    print(f"splice one-hot {X.shape}, train {len(train)}, test {len(test)}, best of {repeats} "
          f"(CPU s)")
    print(f"{'case':10s}{'side':9s}{'fit s':>9s}{'predict s':>11s}{'total s':>9s}"
          f"{'test error':>12s}")
    ratios = Ratios("trees")
    for case, sides in results.items():
        total, accuracy = {}, {}
        for side, runs in sides.items():
            fit, predict = min(r[0] for r in runs), min(r[1] for r in runs)
            error = float(np.mean([r[2] for r in runs]))
            total[side] = fit + predict
            print(f"{case:10s}{side:9s}{fit:9.3f}{predict:11.3f}{fit + predict:9.3f}"
                  f"{error:12.4f}")
            accuracy[side] = 1.0 - error
        ratios.add(case, total["mixlib"] / total["sklearn"], accuracy["mixlib"],
                   accuracy["sklearn"])
    ratios.emit()


if __name__ == "__main__":
    main()
