"""Time per epoch and test error: mixlib's MLPClassifier against scikit-learn's on splice.

Both networks have one hidden layer of the same size and are trained by plain SGD (no momentum,
no penalty, no early stopping, rows shuffled every epoch) with the same batch size, learning rate
and number of epochs, on the same 600 training / 300 test rows of splice (one-hot coding, no
standardisation needed). They differ where the report's network differs from scikit-learn's:
arctan units and squared error against +/-1 targets (ours) versus tanh hidden units, a softmax
output and the log-loss (scikit-learn).

Run: ``python benchmarks/bench_mlp.py`` (``--quick`` for one split and fewer epochs). BLAS is
limited to one thread for both (``--blas-threads``): on a shared 2-core machine a multi-threaded
OpenBLAS makes these small products tens of times slower.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.neural_network import MLPClassifier as SkMLPClassifier
from threadpoolctl import threadpool_limits

from _common import Ratios
from mixlib.datasets import load_xy
from mixlib.neural_network import MLPClassifier


def run_ours(X_tr, y_tr, X_te, y_te, hidden, batch, lr, epochs, seed):
    model = MLPClassifier(
        hidden_size=hidden, learning_rate=lr, n_epochs=epochs, batch_size=batch, random_state=seed
    )
    start = time.perf_counter()
    model.fit(X_tr, y_tr)
    elapsed = time.perf_counter() - start
    return elapsed / model.n_epochs_run_, 1.0 - model.score(X_te, y_te)


def run_sklearn(X_tr, y_tr, X_te, y_te, hidden, batch, lr, epochs, seed):
    model = SkMLPClassifier(
        hidden_layer_sizes=(hidden,), activation="tanh", solver="sgd", batch_size=batch,
        learning_rate="constant", learning_rate_init=lr, momentum=0.0, nesterovs_momentum=False,
        alpha=0.0, max_iter=epochs, early_stopping=False, n_iter_no_change=epochs + 1,
        shuffle=True, random_state=seed,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkConvergenceWarning)  # max_iter is the epoch budget
        model.fit(X_tr, y_tr)
    elapsed = time.perf_counter() - start
    return elapsed / model.n_iter_, 1.0 - model.score(X_te, y_te)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one split, 10 epochs")
    parser.add_argument("--hidden", type=int, default=16, help="hidden units (default 16)")
    parser.add_argument("--epochs", type=int, default=30, help="epochs (default 30)")
    parser.add_argument("--splits", type=int, default=3, help="random 600/300 splits (default 3)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 32])
    parser.add_argument(
        "--learning-rates", type=float, nargs="+", default=[0.02, 0.3],
        help="one learning rate per batch size (default 0.02 for 1, 0.3 for 32)",
    )
    parser.add_argument("--blas-threads", type=int, default=1, help="BLAS threads (default 1)")
    args = parser.parse_args()
    if len(args.learning_rates) != len(args.batch_sizes):
        parser.error("give one learning rate per batch size")
    epochs, splits = (10, 1) if args.quick else (args.epochs, args.splits)

    X, y = load_xy("splice", encoding="onehot")
    print(f"splice one-hot {X.shape}, 600 train / 300 test, hidden={args.hidden}, "
          f"epochs={epochs}, {splits} split(s); times are per epoch, errors are test errors")
    header = (f"{'batch':>5} {'lr':>5} | {'ours ms':>8} {'sklearn ms':>10} {'ratio':>6} | "
              f"{'ours err':>8} {'sklearn err':>11}")
    print(header)
    print("-" * len(header))
    ratios = Ratios("mlp")
    # untimed: our epoch loop is compiled (numba), loaded from numba's cache at its first call
    # (a few tenths of a second, once per process), which is no part of an epoch's time
    first = np.r_[[np.flatnonzero(y == label)[0] for label in np.unique(y)]]
    MLPClassifier(hidden_size=2, n_epochs=1, random_state=0).fit(X[first], y[first])
    for batch, lr in zip(args.batch_sizes, args.learning_rates):
        ours, theirs = [], []
        for seed in range(splits):
            idx = np.random.default_rng(seed).permutation(X.shape[0])
            tr, te = idx[:600], idx[600:900]
            data = (X[tr], y[tr], X[te], y[te], args.hidden, batch, lr, epochs, seed)
            with threadpool_limits(limits=args.blas_threads, user_api="blas"):
                ours.append(run_ours(*data))
                theirs.append(run_sklearn(*data))
        t_ours, e_ours = np.mean(ours, axis=0)
        t_sk, e_sk = np.mean(theirs, axis=0)
        print(f"{batch:>5} {lr:>5g} | {1e3 * t_ours:>8.2f} {1e3 * t_sk:>10.2f} "
              f"{t_ours / t_sk:>6.2f} | {e_ours:>8.3f} {e_sk:>11.3f}")
        ratios.add(f"epoch_batch{batch}", t_ours / t_sk, 1.0 - e_ours, 1.0 - e_sk)
    ratios.emit()


if __name__ == "__main__":
    main()
