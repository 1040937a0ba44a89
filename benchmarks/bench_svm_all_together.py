"""All-together multi-class SVM against one-vs-one, one-vs-all and scikit-learn's SVC.

Usage: ``python benchmarks/bench_svm_all_together.py [--quick] [--n-train 1000] [--repeats 3]
[--small-repeats 25]``.
On splice (``--n-train`` rows of a seeded shuffle, one-hot, tested on the other rows), wine
and heart_cleveland (2/3 training rows, standardised; heart's 6 missing cells filled with the
training means), every classifier fits the same rows with the same Gaussian
kernel (``gamma = 1 / (2 sigma^2)``), C and tolerance 1e-3: mixlib's ``AllTogetherSVC``
(Weston-Watkins, Hsu & Lin's bounded dual), ``SVC(multiclass="ovo")``,
``SVC(multiclass="ova")`` and scikit-learn's ``SVC`` (libsvm, one-vs-one). Prints test error
and best fit time of each; the RATIO lines are the all-together fit time over each other's.

Times are CPU seconds of the process (one BLAS thread: ``run_all.py`` sets it), the best of
``--repeats`` fits on splice and of ``--small-repeats`` on wine and heart, whose fits take
milliseconds. The models take turns within each round of fits, so that a change of load on a
shared machine slows all of them alike rather than the one that happened to be running.
"""

from __future__ import annotations

import argparse
import time
from typing import Callable

import numpy as np
from sklearn.svm import SVC as SkSVC

from _common import Ratios, load_split
from mixlib.datasets import load_xy
from mixlib.svm import SVC
from mixlib.svm.all_together import AllTogetherSVC

MODELS = {
    "all_together": lambda C, sigma: AllTogetherSVC(C=C, sigma=sigma),
    "ovo": lambda C, sigma: SVC(C=C, sigma=sigma, multiclass="ovo"),
    "ova": lambda C, sigma: SVC(C=C, sigma=sigma, multiclass="ova"),
    "sklearn": lambda C, sigma: SkSVC(C=C, gamma=1 / (2 * sigma**2), tol=1e-3),
}


def splice_split(n_train: int, seed: int) -> tuple[np.ndarray, ...]:
    """``n_train`` seeded rows of splice for training, the others for testing."""
    X, y = load_xy("splice", encoding="onehot")
    order = np.random.default_rng(seed).permutation(len(y))
    train, test = order[:n_train], order[n_train:]
    return X[train], y[train], X[test], y[test]


def best_cpu_times(makers: dict[str, Callable[[], object]], X: np.ndarray, y: np.ndarray,
                   repeats: int) -> tuple[dict[str, float], dict[str, object]]:
    """Smallest CPU time of each model's fit over ``repeats`` rounds in which the models take
    turns, and the models fitted in the last round."""
    times, fitted = dict.fromkeys(makers, np.inf), {}
    for _ in range(repeats):
        for name, make in makers.items():
            start = time.process_time()
            fitted[name] = make().fit(X, y)
            times[name] = min(times[name], time.process_time() - start)
    return times, fitted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one setting per data set, one fit")
    parser.add_argument("--n-train", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3, help="fits per model on splice")
    parser.add_argument("--small-repeats", type=int, default=25,
                        help="fits per model on wine and heart")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cases = [("splice", splice_split(args.n_train, args.seed), [(10.0, 8.0), (1.0, 5.0)]),
             ("wine", load_split("wine", args.seed), [(1.0, 3.0), (10.0, 3.0)]),
             ("heart", load_split("heart_cleveland", args.seed), [(1.0, 3.0), (10.0, 3.0)])]
    summary = Ratios("svm_all_together")
    print("best CPU time of the fits (models taking turns); error on the test rows")
    print(f"{'data':>6} {'C':>5} {'sigma':>5} " + " ".join(
        f"{name + ' err':>16} {name + ' s':>14}" for name in MODELS))
    for name, (X_train, y_train, X_test, y_test), settings in cases:
        print(f"{name}: {len(y_train)} train / {len(y_test)} test rows, "
              f"{X_train.shape[1]} features, {len(np.unique(y_train))} classes")
        repeats = 1 if args.quick else args.repeats if name == "splice" else args.small_repeats
        for C, sigma in settings[:1] if args.quick else settings:
            makers = {model: (lambda make=make: make(C, sigma)) for model, make in MODELS.items()}
            times, fitted = best_cpu_times(makers, X_train, y_train, repeats)
            errors = {model: float(np.mean(fitted[model].predict(X_test) != y_test))
                      for model in MODELS}
            print(f"{name:>6} {C:5g} {sigma:5g} " + " ".join(
                f"{errors[m]:16.4f} {times[m]:14.3f}" for m in MODELS))
            for reference in ("ovo", "ova", "sklearn"):
                summary.add(f"{name}_C{C:g}_sigma{sigma:g}_vs_{reference}",
                            times["all_together"] / times[reference],
                            1.0 - errors["all_together"], 1.0 - errors[reference])
    summary.emit()


if __name__ == "__main__":
    main()
