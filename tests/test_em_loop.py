"""The compiled EM loop (mixlib.mixture._em_loop) against a plain numpy transcription of the
iteration documented in :class:`mixlib.mixture.IsotropicGaussianMixture`.

The compiled loop sums rows and features in sequence where numpy sums pairwise, so the two
agree to round-off (1e-10 relative here), with the same number of iterations.
"""

import logging
import warnings

import numpy as np
import pytest

from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture import IsotropicGaussianMixture, initial_centres, initial_sigmas

NK_EPS = 10.0 * np.finfo(np.float64).eps


def reference_em(X, w, means, variances, weights, floor, tol, max_iter):
    """EM of the isotropic mixture, one numpy step per line of the documented iteration."""
    d = X.shape[1]
    centre = w @ X / w.sum()
    Xc, means = X - centre, means - centre
    bounds, previous, converged = [], np.nan, False
    for _ in range(max_iter):
        # E-step: D_nj = max(||x_n||^2 - 2 x_n.mu_j + ||mu_j||^2, 0), log-sum-exp with row max
        D = np.maximum((Xc**2).sum(1)[:, None] - 2.0 * Xc @ means.T + (means**2).sum(1), 0.0)
        a = np.log(weights) - 0.5 * d * (np.log(2 * np.pi) + np.log(variances)) - D / (2 * variances)
        m = a.max(axis=1)
        s = np.exp(a - m[:, None]).sum(axis=1)
        r = np.exp(a - m[:, None]) / s[:, None]
        bound = w @ (m + np.log(s)) / w.sum()
        bounds.append(bound)
        # M-step on w_n r_nj, the variance through the previous centres
        r = r * w[:, None]
        nk = r.sum(axis=0) + NK_EPS
        new_means = r.T @ Xc / nk[:, None]
        spread = (r * D).sum(axis=0) / nk
        variances = np.maximum((spread - ((new_means - means) ** 2).sum(1)) / d, floor)
        means, weights = new_means, nk / nk.sum()
        if abs(bound - previous) < tol:
            converged = True
            break
        previous = bound
    return means + centre, variances, weights, np.array(bounds), converged


def one_hot(rng, n, positions):
    return np.eye(4)[rng.integers(0, 4, size=(n, positions))].reshape(n, 4 * positions)


def case(name, rng):
    """(X, sample_weight, K, floor) of each case."""
    if name == "blobs":
        return rng.normal(size=(120, 5)) + 3.0 * (np.arange(120) % 3)[:, None], None, 3, 1e-6
    if name == "k1":
        return rng.normal(size=(60, 4)), None, 1, 1e-6
    if name == "dead":  # one-hot rows; the test adds kernels far from every row (below)
        return one_hot(rng, 80, 15), None, 8, 1e-6
    if name == "floor":  # 6 distinct rows, 6 kernels: each collapses onto its row
        return np.repeat(rng.normal(size=(6, 3)), 4, axis=0), None, 6, 1e-4
    if name == "heart":  # the study's small problem: 70 rows, 13 features, 32 kernels
        return rng.normal(size=(70, 13)), None, 32, 1e-6
    raise ValueError(name)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", ["blobs", "k1", "dead", "floor", "heart"])
def test_compiled_loop_matches_the_numpy_iteration(name, weighted):
    rng = np.random.default_rng(7)
    X, _, k, floor = case(name, rng)
    w = rng.uniform(0.2, 3.0, size=len(X)) if weighted else np.ones(len(X))
    means = initial_centres(X, k, init="report", sample_weight=w, random_state=rng)
    sigmas = initial_sigmas(means, X, w)
    if name == "dead":  # 3 kernels 50 units from every row: each loses all its examples
        means = np.vstack([means, np.full((3, X.shape[1]), 50.0)])
        sigmas = np.r_[sigmas, 0.1, 0.2, 0.3]
        k += 3
    weights = rng.dirichlet(np.ones(k))
    model = IsotropicGaussianMixture(k, means_init=means, sigmas_init=sigmas,
                                     weights_init=weights, tol=1e-9, max_iter=400,
                                     min_variance=floor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, sample_weight=w if weighted else None)
    gold = reference_em(X, w, means, np.maximum(sigmas**2, floor), weights, floor, 1e-9, 400)
    gold_means, gold_variances, gold_weights, gold_bounds, gold_converged = gold

    assert model.n_iter_ == len(gold_bounds) and model.converged_ == gold_converged
    scale = np.abs(X).max()
    np.testing.assert_allclose(model.means_, gold_means, rtol=1e-10, atol=1e-12 * scale)
    np.testing.assert_allclose(model.variances_, gold_variances, rtol=1e-10, atol=0)
    np.testing.assert_allclose(model.weights_, gold_weights, rtol=1e-10, atol=1e-300)
    # atol: a bound can cross 0 during the fit
    np.testing.assert_allclose(model.lower_bounds_, gold_bounds, rtol=1e-10,
                               atol=1e-10 * np.abs(gold_bounds).max())
    assert model.lower_bound_ == model.lower_bounds_[-1]
    # each case reaches what it is named for
    if name == "dead":
        assert (model.weights_[-3:] < 1e-15).all() and model.at_floor_[-3:].all()
    if name == "floor":
        assert model.at_floor_.all() and (model.variances_ == floor).all()
    if name == "k1":
        np.testing.assert_allclose(model.weights_, [1.0])


def test_max_iter_and_convergence_semantics():
    """n_iter_ counts M-steps; with tol=0 the loop runs max_iter iterations and warns."""
    X = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.warns(ConvergenceWarning, match="max_iter=7"):
        model = IsotropicGaussianMixture(3, tol=0.0, max_iter=7, random_state=0).fit(X)
    assert model.n_iter_ == 7 and len(model.lower_bounds_) == 7 and not model.converged_
    # a huge tol: converged at the second E-step (the first has no previous bound)
    model = IsotropicGaussianMixture(3, tol=1e300, random_state=0).fit(X)
    assert model.n_iter_ == 2 and model.converged_


def test_debug_log_has_every_iterations_likelihood(caplog):
    X = np.random.default_rng(1).normal(size=(40, 2))
    with caplog.at_level(logging.DEBUG, logger="mixlib.mixture.isotropic"):
        model = IsotropicGaussianMixture(2, random_state=0).fit(X)
    lines = [r.getMessage() for r in caplog.records if "EM iteration" in r.getMessage()]
    assert len(lines) == model.n_iter_
    assert lines[-1] == (f"EM iteration {model.n_iter_}: mean log-likelihood "
                         f"{model.lower_bounds_[-1]:.10g}")


def test_input_layout_does_not_change_the_fit():
    """Fortran-ordered data, strided weights: the same fit as C-ordered copies."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    w = rng.uniform(0.5, 2.0, size=(60, 2))[:, 0]  # a strided column
    a = IsotropicGaussianMixture(3, random_state=0).fit(np.asfortranarray(X), sample_weight=w)
    b = IsotropicGaussianMixture(3, random_state=0).fit(X, sample_weight=w.copy())
    np.testing.assert_array_equal(a.means_, b.means_)
    np.testing.assert_array_equal(a.lower_bounds_, b.lower_bounds_)
