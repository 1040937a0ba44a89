"""EM for isotropic mixtures: mixlib against scikit-learn's spherical GaussianMixture.

Data: splice, one-hot (3190 x 240). For each K, both fits start from the same parameters (the
report's initialisation: K distinct training vectors, sigma = distance to the nearest other
centre, weights 1/K) and run the same EM. The only difference: our variance floor is ``max(var, floor)`` while
scikit-learn adds ``reg_covar`` to every variance; both are set to ``--floor``, so kernels that
collapse on a single one-hot vector (K = 16, 64 do) get the same variance in both, and the
other variances differ by ``floor`` (relative 1e-5), enough for the fits to drift apart
slowly over many iterations.

- time per iteration: ``(t(max_iter=n0 + n) - t(max_iter=n0)) / n`` with ``tol=0``, so the
  set-up cost of either library cancels out; best of ``--repeats`` runs;
- time to convergence: one fit with ``tol`` (change of the mean log-likelihood) and the
  iterations it took; final mean log-likelihood of both models on the data.

BLAS runs on ``--threads`` threads (default 1) for both libraries: on a shared machine,
multi-threaded OpenBLAS timings are dominated by contention and are not reproducible.

Run: ``python benchmarks/bench_mixture.py`` (or ``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

from _common import Ratios
from mixlib.datasets import load_xy
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture import IsotropicGaussianMixture, initial_centres, initial_sigmas


def make_models(k, start, tol, max_iter, floor):
    means, sigmas, weights = start
    ours = IsotropicGaussianMixture(
        k, means_init=means, sigmas_init=sigmas, weights_init=weights, tol=tol,
        max_iter=max_iter, min_variance=floor,
    )
    gold = GaussianMixture(
        k, covariance_type="spherical", means_init=means, precisions_init=1.0 / sigmas**2,
        weights_init=weights, reg_covar=floor, tol=tol, max_iter=max_iter,
        init_params="random_from_data", random_state=0,
    )
    return ours, gold


def timed_fit(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", SkConvergenceWarning)
        start = time.perf_counter()
        model.fit(X)
        return time.perf_counter() - start


def per_iteration(k, start, X, n0, n, repeats, floor):
    times = np.empty((2, 2, repeats))  # (ours/sklearn, short/long, repeat)
    for r in range(repeats):
        for i, iters in enumerate((n0, n0 + n)):
            for m, model in enumerate(make_models(k, start, 0.0, iters, floor)):
                times[m, i, r] = timed_fit(model, X)
    best = times.min(axis=2)
    return (best[:, 1] - best[:, 0]) / n


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="K = 4, 16 only, fewer repeats")
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--max-iter", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--floor", type=float, default=1e-6,
                        help="our min_variance and scikit-learn's reg_covar")
    parser.add_argument("--ks", type=int, nargs="+", help="numbers of kernels (default 4 16 64)")
    parser.add_argument("--repeats", type=int, help="timing repeats, best kept (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for both")
    args = parser.parse_args(argv)
    with threadpool_limits(limits=args.threads, user_api="blas"):
        run(args)


def run(args) -> None:
    ks = args.ks or ((4, 16) if args.quick else (4, 16, 64))
    n0, n, repeats = (2, 8, 2) if args.quick else (3, 20, 3)
    repeats = args.repeats or repeats

    X, _ = load_xy("splice", encoding="onehot")
    rng = np.random.default_rng(args.seed)
    print(f"splice one-hot {X.shape[0]} x {X.shape[1]}; tol={args.tol}, max_iter={args.max_iter}, "
          f"BLAS threads={args.threads}")
    header = (f"{'K':>3} | {'ms/iter ours':>12} {'sklearn':>8} {'ratio':>6} | {'s to conv ours':>14} "
              f"{'sklearn':>8} {'ratio':>6} | {'iters':>9} | {'final mean LL ours':>18} {'sklearn':>12}")
    print(header)
    print("-" * len(header))
    ratios = Ratios("mixture")
    for k in ks:
        means = initial_centres(X, k, init="report", random_state=rng)
        start = (means, initial_sigmas(means, X), np.full(k, 1.0 / k))
        ours_it, gold_it = per_iteration(k, start, X, n0, n, repeats, args.floor)
        ours, gold = make_models(k, start, args.tol, args.max_iter, args.floor)
        t_ours, t_gold = timed_fit(ours, X), timed_fit(gold, X)
        print(
            f"{k:>3} | {1e3 * ours_it:>12.2f} {1e3 * gold_it:>8.2f} {ours_it / gold_it:>6.2f} | "
            f"{t_ours:>14.3f} {t_gold:>8.3f} {t_ours / t_gold:>6.2f} | "
            f"{ours.n_iter_:>4}/{gold.n_iter_:<4} | {ours.score(X):>18.6f} {gold.score(X):>12.6f}"
        )
        ratios.add(f"em_iteration_K{k}", ours_it / gold_it)
        ratios.add(f"em_converge_K{k}", t_ours / t_gold)
    ratios.emit()


if __name__ == "__main__":
    main()
