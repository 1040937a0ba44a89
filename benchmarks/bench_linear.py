"""Multinomial logistic regression: mixlib against scikit-learn (both L-BFGS, same objective).

Data: wine (178 x 13, standardised with the training rows' statistics) and splice (3190 x 240,
one-hot). One seeded split, 2/3 training rows and 1/3 test rows. Both models minimise the same
objective (scikit-learn's ``0.5 ||W||^2 + C sum_n loss_n`` is ours times ``C``) from ``W = 0``
with the same ``C``, ``tol`` and ``max_iter``. Printed per data set and ``C``: best fit time of
``--repeats``, ratio ours / scikit-learn, L-BFGS iterations, the final value of our objective
(:func:`mixlib.linear_model.logistic.softmax_objective`) at each model's solution, and test accuracy.
BLAS runs on ``--threads`` threads for both.

Run: ``python benchmarks/bench_linear.py`` (or ``--quick``).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from threadpoolctl import threadpool_limits

from _common import Ratios, best_time, load_split
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.linear_model import LogisticRegression, softmax_objective


def timed_fit(make, X, y, repeats: int):
    """Best time of ``make().fit(X, y)`` over ``repeats`` (convergence warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return best_time(lambda: make().fit(X, y), repeats)


def objective(model, X, y) -> float:
    """Our objective at the model's (coef_, intercept_); for sklearn binary, w = [-w/2, w/2]."""
    classes, codes = np.unique(y, return_inverse=True)
    coef, intercept = model.coef_, model.intercept_
    if coef.shape[0] == 1:
        coef, intercept = np.vstack([-coef / 2, coef / 2]), np.hstack([-intercept / 2, intercept / 2])
    params = np.concatenate([coef.ravel(), intercept])
    T = np.eye(len(classes))[codes]
    return softmax_objective(params, X, T, np.ones(len(y)), model.C, True)[0]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 repeat, C = 1 only")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--max-iter", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for both")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    grid = [1.0] if args.quick else [0.01, 1.0, 100.0]
    print(f"{'dataset':8} {'n x d':>10} {'C':>6} {'library':8} {'seconds':>8} {'ratio':>6} "
          f"{'iter':>5} {'objective':>12} {'accuracy':>9}")
    ratios = Ratios("linear")
    with threadpool_limits(args.threads):
        for name in ("wine", "splice"):
            X, y, Q, yq = load_split(name, args.seed)
            for C in grid:
                ours_time, ours = timed_fit(
                    lambda: LogisticRegression(C=C, tol=args.tol, max_iter=args.max_iter), X, y, repeats)
                sk_time, theirs = timed_fit(
                    lambda: SkLogisticRegression(C=C, tol=args.tol, max_iter=args.max_iter), X, y, repeats)
                for library, seconds, model in (("mixlib", ours_time, ours), ("sklearn", sk_time, theirs)):
                    n_iter = model.n_iter_ if library == "mixlib" else int(np.max(model.n_iter_))
                    print(f"{name:8} {f'{len(y)}x{X.shape[1]}':>10} {C:>6g} {library:8} {seconds:8.4f} "
                          f"{seconds / sk_time:6.2f} {n_iter:>5} {objective(model, X, y):12.8f} "
                          f"{model.score(Q, yq):9.4f}")
                ratios.add(f"{name}_C{C:g}", ours_time / sk_time, ours.score(Q, yq),
                           theirs.score(Q, yq))
    ratios.emit()


if __name__ == "__main__":
    main()
