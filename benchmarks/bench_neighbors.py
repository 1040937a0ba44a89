"""k-NN search: our kd-tree and brute force against scipy's cKDTree and scikit-learn.

Data: wine (178 x 13, standardised with the training rows' statistics) and splice (3190 x 240,
one-hot). One seeded split, 2/3 training rows and 1/3 queries; ``k`` is the odd integer nearest
``sqrt(n_train)`` (supervised-learning notes). Timed, best of ``--repeats``: build of the structure + the k-NN
query of every test row + the majority vote. Rows:

- ``mixlib kd_tree`` / ``mixlib brute``: :class:`mixlib.neighbors.knn.KNeighborsClassifier` with
  that ``algorithm`` (fit + predict), default ``ties="all"`` (every point tied with the k-th
  neighbour votes); ``mixlib brute idx``: ``ties="index"`` (exactly k voters, lowest rows);
- ``scipy cKDTree``: ``cKDTree(X).query(Q, k)`` + a majority vote (C++ tree, the reference for
  the neighbours);
- ``sklearn kd_tree`` / ``sklearn brute``: ``KNeighborsClassifier`` (fit + predict).

The ratio is our time over scikit-learn's with the same algorithm (cKDTree: over sklearn's
kd_tree). BLAS runs on ``--threads`` threads for everyone.

Run: ``python benchmarks/bench_neighbors.py`` (or ``--quick``).
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.spatial import cKDTree
from sklearn.neighbors import KNeighborsClassifier as SkKNeighborsClassifier
from threadpoolctl import threadpool_limits

from _common import Ratios, best_time, load_split
from mixlib.neighbors import KNeighborsClassifier, default_n_neighbors


def ckdtree_predict(X, y, Q, k):
    _, indices = cKDTree(X).query(Q, k=k)
    classes, codes = np.unique(y, return_inverse=True)
    votes = np.zeros((len(Q), len(classes)))
    np.add.at(votes, (np.arange(len(Q))[:, None], codes[indices]), 1.0)
    return classes[votes.argmax(axis=1)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 repeat, 300 splice queries")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for all")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    print(f"{'dataset':8} {'n x d':>10} {'k':>3} {'method':16} {'seconds':>9} {'ratio':>7} {'accuracy':>9}")
    ratios = Ratios("neighbors")
    with threadpool_limits(args.threads):
        for name in ("wine", "splice"):
            X, y, Q, yq = load_split(name, args.seed)
            if args.quick and name == "splice":
                Q, yq = Q[:300], yq[:300]
            k = default_n_neighbors(len(y))
            sk_kd, sk_brute = (SkKNeighborsClassifier(k, algorithm=a) for a in ("kd_tree", "brute"))
            runs = {
                "mixlib kd_tree": lambda: KNeighborsClassifier(k, algorithm="kd_tree").fit(X, y).predict(Q),
                "mixlib brute": lambda: KNeighborsClassifier(k, algorithm="brute").fit(X, y).predict(Q),
                "mixlib brute idx": lambda: KNeighborsClassifier(k, algorithm="brute", ties="index")
                .fit(X, y).predict(Q),
                "scipy cKDTree": lambda: ckdtree_predict(X, y, Q, k),
                "sklearn kd_tree": lambda: sk_kd.fit(X, y).predict(Q),
                "sklearn brute": lambda: sk_brute.fit(X, y).predict(Q),
            }
            results = {method: best_time(run, repeats) for method, run in runs.items()}
            reference = {"mixlib kd_tree": "sklearn kd_tree", "mixlib brute": "sklearn brute",
                         "mixlib brute idx": "sklearn brute", "scipy cKDTree": "sklearn kd_tree"}
            for method, (seconds, predicted) in results.items():
                ratio = seconds / results[reference[method]][0] if method in reference else 1.0
                accuracy = np.mean(predicted == yq)
                print(f"{name:8} {f'{len(y)}x{X.shape[1]}':>10} {k:>3} {method:16} {seconds:9.4f} "
                      f"{ratio:7.2f} {accuracy:9.4f}")
                if method in reference and method != "scipy cKDTree":
                    theirs = np.mean(results[reference[method]][1] == yq)
                    case = method.removeprefix("mixlib ").replace(" ", "_")
                    ratios.add(f"{name}_{case}", ratio, accuracy, theirs)
    ratios.emit()


if __name__ == "__main__":
    main()
