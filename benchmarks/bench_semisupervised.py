"""Self-training: mixlib's iterative classification against scikit-learn's SelfTrainingClassifier.

Data: the heart_cleveland stand-in (rows with missing values dropped), standardised with the
statistics of the training rows; each repeat draws 36 labelled, 100 unlabelled and the rest
(161) as test rows, as the report's ch. 5 setting. Compared on the same split and seed:

- ``ours iterative``: :class:`mixlib.semi_supervised.IterativeClassifier` around
  ``MixtureClassifier(K, random_state=seed)``;
- ``sklearn self-training (mixture)``: ``SelfTrainingClassifier(threshold, criterion="threshold")``
  around the same ``MixtureClassifier`` (a scikit-learn-compatible estimator as it is): the
  same algorithm, so the pseudo-labels must agree
  (column ``same labels``) and the times differ by the bookkeeping only (ours also records
  the per-round errors);
- ``sklearn self-training (GaussianNB)``: the same meta-estimator around scikit-learn's naive
  Bayes, a reference for the test error;
- ``ours prior``: :class:`mixlib.semi_supervised.PriorProbabilityClassifier` (no scikit-learn
  counterpart).

Printed per method: median fit time over repeats, the ratio to scikit-learn's self-training
with the same mixture, mean test error (share of test rows misclassified) and mean rounds.

Run: ``python benchmarks/bench_semisupervised.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.naive_bayes import GaussianNB
from sklearn.semi_supervised import SelfTrainingClassifier
from threadpoolctl import threadpool_limits

from _common import Ratios
from mixlib.datasets import load_xy
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture import MixtureClassifier
from mixlib.semi_supervised import IterativeClassifier, PriorProbabilityClassifier

def split(X, y, rng, n_labelled=36, n_unlabelled=100):
    """Standardised (train statistics) X, y with -1 on unlabelled rows, and the test rows."""
    order = rng.permutation(len(X))
    train, test = order[: n_labelled + n_unlabelled], order[n_labelled + n_unlabelled:]
    mean, scale = X[train].mean(axis=0), X[train].std(axis=0)
    Z = (X - mean) / scale
    y_semi = y[train].copy()
    y_semi[n_labelled:] = -1
    return Z[train], y_semi, Z[test], y[test]


def timed(make, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        start = time.perf_counter()
        model = make().fit(X, y)
        return model, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats, K = 4 only")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--threshold", type=float, default=0.75)
    parser.add_argument("--kernels", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for both libraries")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.kernels = 3, [4]
    X, labels = load_xy("heart_cleveland")
    keep = ~np.isnan(X).any(axis=1)
    X, y = X[keep], labels[keep].astype(int)
    print(f"heart_cleveland: {len(X)} rows, 36 labelled + 100 unlabelled, {len(X) - 136} test; "
          f"threshold {args.threshold}; {args.repeats} repeats; {args.threads} BLAS thread(s)")
    print(f"{'K':>3} {'method':<36} {'time (ms)':>10} {'ratio':>7} {'test error':>11} {'rounds':>7} {'same labels':>12}")
    ratios = Ratios("semisupervised")
    with threadpool_limits(args.threads):
        for k in args.kernels:
            results: dict[str, list] = {}
            for repeat in range(args.repeats):
                X_train, y_semi, X_test, y_test = split(X, y, np.random.default_rng(repeat))
                makers = {
                    "ours iterative": lambda: IterativeClassifier(
                        MixtureClassifier(k, random_state=repeat), threshold=args.threshold),
                    "sklearn self-training (mixture)": lambda: SelfTrainingClassifier(
                        MixtureClassifier(k, random_state=repeat), threshold=args.threshold),
                    "sklearn self-training (GaussianNB)": lambda: SelfTrainingClassifier(
                        GaussianNB(), threshold=args.threshold),
                    "ours prior": lambda: PriorProbabilityClassifier(MixtureClassifier(k, random_state=repeat)),
                }
                fitted = {}
                for name, make in makers.items():
                    model, seconds = timed(make, X_train, y_semi)
                    fitted[name] = model
                    error = float(np.mean(model.predict(X_test) != y_test))
                    results.setdefault(name, []).append((seconds, error, model.n_iter_))
                same = np.array_equal(fitted["ours iterative"].transduction_,
                                      fitted["sklearn self-training (mixture)"].transduction_)
                results.setdefault("same", []).append(same)
            reference = np.median([r[0] for r in results["sklearn self-training (mixture)"]])
            for name in makers:
                seconds, errors, rounds = (np.array(v) for v in zip(*results[name]))
                same = f"{np.mean(results['same']):.0%}" if name == "ours iterative" else ""
                print(f"{k:>3} {name:<36} {1e3 * np.median(seconds):>10.1f} "
                      f"{np.median(seconds) / reference:>7.2f} {np.mean(errors):>11.3f} "
                      f"{np.mean(rounds):>7.1f} {same:>12}")
            ours_s, ours_e, _ = (np.array(v) for v in zip(*results["ours iterative"]))
            sk_s, sk_e, _ = (np.array(v) for v in zip(*results["sklearn self-training (mixture)"]))
            ratios.add(f"self_training_K{k}", np.median(ours_s) / reference,
                       1.0 - float(np.mean(ours_e)), 1.0 - float(np.mean(sk_e)))
    ratios.emit()


if __name__ == "__main__":
    main()
