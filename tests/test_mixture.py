"""Tests of mixlib.mixture: EM against scikit-learn, weights, invariances, the classifier."""

import warnings

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.base import clone as sk_clone
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import cross_val_score

from mixlib.core.exceptions import NotFittedError
from mixlib.core.base import clone
from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture import IsotropicGaussianMixture, MixtureClassifier, initial_centres, initial_sigmas, kernel_counts
from mixlib.mixture import fit_capped_mixture
from mixlib.mixture.initialisation import distinct_rows, lexicographic_order


def blobs(rng, n_per=(40, 30, 30), n_features=3, spread=4.0):
    centres = rng.normal(0.0, spread, (len(n_per), n_features))
    X = np.concatenate([rng.normal(c, rng.uniform(0.5, 1.5), (n, n_features)) for c, n in zip(centres, n_per)])
    y = np.repeat(np.arange(len(n_per)), n_per)
    return X, y


def random_start(rng, X, k):
    means = X[rng.choice(len(X), k, replace=False)] + rng.normal(0, 0.1, (k, X.shape[1]))
    sigmas = rng.uniform(0.5, 2.0, k)
    weights = rng.dirichlet(np.ones(k) * 5)
    return means, sigmas, weights


# ---------------------------------------------------------------- EM against scikit-learn
@pytest.mark.parametrize("seed, tol, max_iter", [(0, 1e-9, 400), (1, 1e-9, 400), (2, 1e-9, 400), (3, 0.0, 60), (4, 0.0, 60)])
def test_em_matches_sklearn_spherical_iteration_by_iteration(seed, tol, max_iter):
    """Same start, unit weights: same bound at every iteration and same final parameters.

    With ``tol=0`` both run exactly ``max_iter`` iterations (and both warn), which compares
    long traces without depending on where a slow fit crosses the tolerance.
    """
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 5))
    X, _ = blobs(rng, n_per=(50, 30, 20), n_features=int(rng.integers(1, 6)))
    X += 10.0 * seed  # away from the origin: our internal centring must not change the fit
    means, sigmas, weights = random_start(rng, X, k)
    ours = IsotropicGaussianMixture(
        k, means_init=means, sigmas_init=sigmas, weights_init=weights, tol=tol,
        max_iter=max_iter, min_variance=1e-12,
    )
    gold = GaussianMixture(
        k, covariance_type="spherical", means_init=means, precisions_init=1.0 / sigmas**2,
        weights_init=weights, reg_covar=0.0, tol=tol, max_iter=max_iter,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.fit(X)
        gold.fit(X)
    assert ours.converged_ == gold.converged_ == (tol > 0)
    assert ours.n_iter_ == gold.n_iter_
    np.testing.assert_allclose(ours.lower_bounds_, gold.lower_bounds_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.means_, gold.means_, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(ours.variances_, gold.covariances_, rtol=1e-8)
    np.testing.assert_allclose(ours.weights_, gold.weights_, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ours.score_samples(X), gold.score_samples(X), rtol=1e-8)
    np.testing.assert_allclose(ours.predict_proba(X), gold.predict_proba(X), atol=1e-9)
    assert ours.score(X) == pytest.approx(gold.score(X), rel=1e-9)


def test_score_samples_is_the_mixture_density():
    rng = np.random.default_rng(5)
    X, _ = blobs(rng, n_features=2)
    model = IsotropicGaussianMixture(3, random_state=0).fit(X)
    density = sum(
        w * multivariate_normal(m, s**2 * np.eye(2)).pdf(X)
        for m, s, w in zip(model.means_, model.sigmas_, model.weights_)
    )
    np.testing.assert_allclose(model.score_samples(X), np.log(density), rtol=1e-12)


@pytest.mark.parametrize("n_components", [1, 2, 3])
def test_each_iterations_likelihood_is_that_of_the_kernels_it_starts_from(n_components):
    """The mean log-likelihood EM records at an iteration is ln p(x) under the parameters that
    iteration starts from (checked with scipy), for one kernel too, where the E-step's maximum
    over kernels is the only column."""
    from scipy.stats import multivariate_normal

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4)) * [1.0, 2.0, 0.5, 1.5]
    mu = X[rng.choice(60, n_components, replace=False)]
    sigma, p = np.linspace(1.0, 2.0, n_components), np.full(n_components, 1.0 / n_components)
    model = IsotropicGaussianMixture(n_components, means_init=mu, sigmas_init=sigma,
                                     weights_init=p, max_iter=1)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model.fit(X)
    dens = sum(p[j] * multivariate_normal(mu[j], sigma[j] ** 2 * np.eye(4)).pdf(X)
               for j in range(n_components))
    assert model.lower_bounds_[0] == pytest.approx(np.log(dens).mean(), rel=1e-12)
    if n_components == 1:  # one kernel: the first M-step is the maximum likelihood
        full = IsotropicGaussianMixture(1, means_init=mu, sigmas_init=sigma, weights_init=p).fit(X)
        variance = ((X - X.mean(0)) ** 2).sum() / X.size
        expected = multivariate_normal(X.mean(0), variance * np.eye(4)).logpdf(X).mean()
        assert full.lower_bounds_[1] == pytest.approx(expected, rel=1e-12)
        assert full.converged_ and full.n_iter_ == 3


def test_one_em_step_by_hand():
    # Two kernels in 1-d, fig. 3.2 written out with explicit loops over the few samples.
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    mu, sigma, p = np.array([0.5, 3.0]), np.array([1.0, 2.0]), np.array([0.5, 0.5])
    dens = np.array([[p[j] * np.exp(-(x - mu[j]) ** 2 / (2 * sigma[j] ** 2)) / (np.sqrt(2 * np.pi) * sigma[j])
                      for j in range(2)] for x in X[:, 0]])
    r = dens / dens.sum(axis=1, keepdims=True)
    mu_new = (r * X).sum(0) / r.sum(0)
    var_new = (r * (X - mu_new) ** 2).sum(0) / r.sum(0)
    model = IsotropicGaussianMixture(
        2, means_init=mu[:, None], sigmas_init=sigma, weights_init=p, max_iter=1
    )
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model.fit(X)
    np.testing.assert_allclose(model.means_[:, 0], mu_new, rtol=1e-12)
    np.testing.assert_allclose(model.variances_, var_new, rtol=1e-12)
    np.testing.assert_allclose(model.weights_, r.mean(0), rtol=1e-12)
    assert model.lower_bounds_[0] == pytest.approx(np.log(dens.sum(1)).mean(), rel=1e-12)


# ---------------------------------------------------------------- weights and invariances
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_integer_weights_equal_duplicated_rows(seed):
    rng = np.random.default_rng(seed)
    X, _ = blobs(rng, n_per=(20, 15, 10))
    counts = rng.integers(0, 4, len(X))
    counts[0] = 1
    weighted = IsotropicGaussianMixture(3, tol=1e-10, max_iter=500, random_state=seed).fit(X, sample_weight=counts)
    repeated = IsotropicGaussianMixture(3, tol=1e-10, max_iter=500, random_state=seed).fit(np.repeat(X, counts, axis=0))
    assert weighted.n_iter_ == repeated.n_iter_
    np.testing.assert_allclose(weighted.lower_bounds_, repeated.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(weighted.means_, repeated.means_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(weighted.sigmas_, repeated.sigmas_, rtol=1e-8)
    np.testing.assert_allclose(weighted.weights_, repeated.weights_, rtol=1e-8)


@pytest.mark.parametrize("seed", range(6))
def test_weighted_log_likelihood_never_decreases(seed):
    rng = np.random.default_rng(100 + seed)
    X, _ = blobs(rng, n_per=(30, 20, 10), n_features=int(rng.integers(1, 8)))
    weight = rng.uniform(0.0, 1.0, len(X))
    k = int(rng.integers(1, 7))
    init = ["report", "kmeans++"][seed % 2]
    model = IsotropicGaussianMixture(k, init=init, tol=1e-10, max_iter=300, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, sample_weight=weight)
    steps = np.diff(model.lower_bounds_)
    assert (steps >= -1e-10 * np.abs(model.lower_bounds_[1:])).all()
    assert model.weights_.sum() == pytest.approx(1.0)
    assert (model.variances_ >= model.min_variance).all()


def test_row_permutation_changes_nothing():
    rng = np.random.default_rng(7)
    X, y = blobs(rng)
    weight = rng.uniform(0.2, 2.0, len(X))
    perm = rng.permutation(len(X))
    for init in ("report", "kmeans++"):
        a = IsotropicGaussianMixture(3, init=init, random_state=3).fit(X, sample_weight=weight)
        b = IsotropicGaussianMixture(3, init=init, random_state=3).fit(X[perm], sample_weight=weight[perm])
        np.testing.assert_allclose(a.lower_bounds_, b.lower_bounds_, rtol=1e-10)
        np.testing.assert_allclose(a.means_, b.means_, rtol=1e-8, atol=1e-10)
    clf_a = MixtureClassifier(2, random_state=1).fit(X, y)
    clf_b = MixtureClassifier(2, random_state=1).fit(X[perm], y[perm])
    np.testing.assert_allclose(clf_a.predict_proba(X), clf_b.predict_proba(X), rtol=1e-8, atol=1e-12)


def test_report_initialisation():
    rng = np.random.default_rng(11)
    X = np.repeat(rng.normal(size=(6, 2)), 3, axis=0)  # 6 distinct rows, each three times
    for init in ("report", "kmeans++"):
        means = initial_centres(X, 4, init=init, random_state=0)
        assert len(np.unique(means, axis=0)) == 4
        assert all((X == m).all(axis=1).any() for m in means)
    between = np.linalg.norm(means[:, None] - means[None], axis=2)
    np.fill_diagonal(between, np.inf)
    np.testing.assert_allclose(initial_sigmas(means, X), between.min(axis=1))
    one = initial_centres(X, 1, random_state=0)
    rms = np.sqrt(((X - one[0]) ** 2).sum(1).mean() / 2)
    assert initial_sigmas(one, X)[0] == pytest.approx(rms)
    # the estimator starts from exactly these parameters (one EM step away from them)
    model = IsotropicGaussianMixture(4, max_iter=1, random_state=0)
    with pytest.warns(ConvergenceWarning):
        model.fit(X)
    start = initial_centres(X, 4, random_state=0)
    sigmas = initial_sigmas(start, X)
    log_dens = np.log(0.25) - np.log(2 * np.pi * sigmas**2) - ((X[:, None] - start[None]) ** 2).sum(2) / (2 * sigmas**2)
    assert model.lower_bounds_[0] == pytest.approx(np.log(np.exp(log_dens).sum(1)).mean())
    with pytest.raises(ValueError, match="at least 7 distinct"):
        IsotropicGaussianMixture(7, random_state=0).fit(X)


@pytest.mark.parametrize("shape, levels", [((300, 240), 2), ((500, 13), 4), ((40, 1), 3),
                                           ((1, 5), 2), ((0, 3), 2)])
def test_distinct_rows_are_numpy_unique_rows_with_summed_weights(shape, levels):
    """Same rows, same (lexicographic) order and the same weights, bit for bit, as
    numpy.unique(axis=0) + bincount; zero weights drop their rows; row order does not matter."""
    rng = np.random.default_rng(shape[0] + levels)
    X = rng.integers(0, levels, size=shape).astype(float) * 0.5 - 0.25  # many ties
    w = rng.exponential(size=shape[0])
    w[rng.random(shape[0]) < 0.2] = 0.0
    rows, weights = distinct_rows(X, w)
    kept = X[w > 0]
    expected, inverse = np.unique(kept, axis=0, return_inverse=True)
    np.testing.assert_array_equal(rows, expected)
    np.testing.assert_array_equal(
        weights, np.bincount(inverse.ravel(), weights=w[w > 0], minlength=len(expected)))
    perm = rng.permutation(shape[0])
    again_rows, again_weights = distinct_rows(X[perm], w[perm])
    np.testing.assert_array_equal(again_rows, rows)
    np.testing.assert_allclose(again_weights, weights, rtol=1e-14)


@pytest.mark.parametrize("init", ["report", "kmeans++"])
def test_capped_fit_is_the_mixtures_own_fit_bit_for_bit(init):
    """fit_capped_mixture draws the centres from the distinct rows it counted; the result
    (and the generator's state after it) is that of the mixture's own initialisation."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(120, 3)), 1)
    X[60:90] = X[:30]  # repeated rows
    w = rng.exponential(size=120)
    w[rng.random(120) < 0.2] = 0.0
    used = np.random.default_rng(5)
    capped, k = fit_capped_mixture(X, w, 4, used, "class 'a'", "rows", stacklevel=2, init=init,
                                   tol=1e-6)
    gen = np.random.default_rng(5)
    own = IsotropicGaussianMixture(4, init=init, tol=1e-6, random_state=gen).fit(
        X, sample_weight=w)
    assert k == 4
    for name in ("means_", "sigmas_", "weights_", "lower_bounds_"):
        np.testing.assert_array_equal(getattr(capped, name), getattr(own, name))
    assert capped.n_iter_ == own.n_iter_ > 1
    assert used.random() == gen.random()
    # Checked input (the classifier's: positive weights) skips the checks, not a bit of the fit;
    # so does a warm start from the fit.
    keep = w > 0
    for previous in (None, own):
        fits = [fit_capped_mixture(X[keep], w[keep], 4, np.random.default_rng(5), "class 'a'",
                                   "rows", stacklevel=2, init=init, tol=1e-6, previous=previous,
                                   checked=checked)[0]
                for checked in (False, True)]
        for name in ("means_", "sigmas_", "weights_", "lower_bounds_", "at_floor_"):
            np.testing.assert_array_equal(getattr(fits[1], name), getattr(fits[0], name))
        assert fits[1].n_iter_ == fits[0].n_iter_ >= 2


def test_single_kernel_is_the_weighted_mean_and_variance():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 4))
    w = rng.uniform(0, 1, 50)
    model = IsotropicGaussianMixture(1, random_state=0).fit(X, sample_weight=w)
    mean = w @ X / w.sum()
    np.testing.assert_allclose(model.means_[0], mean, rtol=1e-10)
    assert model.variances_[0] == pytest.approx(w @ ((X - mean) ** 2).sum(1) / (4 * w.sum()), rel=1e-10)


def test_variance_floor_stops_collapse():
    X = np.array([[0.0], [0.0], [0.0], [5.0], [5.1], [4.9]])
    model = IsotropicGaussianMixture(2, min_variance=1e-3, random_state=0).fit(X)
    assert np.isfinite(model.lower_bound_)
    assert model.variances_.min() == pytest.approx(1e-3)


def test_max_iter_warns_and_records_trace():
    rng = np.random.default_rng(0)
    X, _ = blobs(rng)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model = IsotropicGaussianMixture(3, max_iter=3, tol=0.0, random_state=0).fit(X)
    assert model.n_iter_ == 3 and not model.converged_ and model.lower_bounds_.shape == (3,)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_components": 0}, "n_components must be an int >= 1, got 0"),
        ({"init": "random"}, "init must be 'report' or 'kmeans\\+\\+', got 'random'"),
        ({"tol": -1.0}, "tol must be a finite float >= 0, got -1.0"),
        ({"min_variance": 0.0}, "min_variance must be a finite float > 0, got 0.0"),
        ({"n_components": 2, "means_init": np.zeros((3, 2))}, r"means_init must have shape \(2, 2\)"),
        ({"n_components": 2, "sigmas_init": [1.0, -1.0]}, "sigmas_init must hold 2 positive"),
        ({"n_components": 2, "weights_init": [0.5, 0.6]}, "summing to 1"),
    ],
)
def test_mixture_parameter_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        IsotropicGaussianMixture(**kwargs).fit(np.random.default_rng(0).normal(size=(10, 2)))


def test_nan_raises():
    X = np.ones((5, 2))
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        IsotropicGaussianMixture(1).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        MixtureClassifier(1).fit(X, np.array([0, 0, 1, 1, 1]))


# ---------------------------------------------------------------- classifier
def test_classifier_posteriors_are_bayes_rule():
    rng = np.random.default_rng(4)
    X, y = blobs(rng, n_per=(30, 20, 25))
    clf = MixtureClassifier(2, random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(clf.class_prior_, [30 / 75, 20 / 75, 25 / 75])
    joint = np.column_stack([
        p * np.exp(m.score_samples(X)) for p, m in zip(clf.class_prior_, clf.mixtures_)
    ])
    np.testing.assert_allclose(proba, joint / joint.sum(1, keepdims=True), rtol=1e-9)
    np.testing.assert_array_equal(clf.n_components_per_class_, [2, 2, 2])
    assert (clf.predict(X) == clf.classes_[proba.argmax(1)]).all()
    assert clf.score(X, y) > 0.9


def test_class_models_are_fit_on_their_own_rows():
    rng = np.random.default_rng(8)
    X, y = blobs(rng, n_per=(30, 20))
    clf = MixtureClassifier(2, random_state=5).fit(X, y)
    gen = np.random.default_rng(5)
    for c in range(2):
        own = IsotropicGaussianMixture(2, random_state=gen).fit(X[y == c])
        np.testing.assert_allclose(clf.mixtures_[c].means_, own.means_)


def test_soft_labels_one_hot_equals_hard_labels_and_weight_the_fit():
    rng = np.random.default_rng(9)
    X, y = blobs(rng, n_per=(25, 25))
    hard = MixtureClassifier(2, random_state=0).fit(X, y)
    Q = np.eye(2)[y]
    soft = MixtureClassifier(2, random_state=0).fit(X, soft_labels=Q, classes=[0, 1])
    np.testing.assert_allclose(hard.predict_proba(X), soft.predict_proba(X), rtol=1e-12)
    # A general Q: class c's mixture is the mixture fit with weights Q[:, c]; priors = column means.
    Q = rng.dirichlet([1.0, 1.0], len(X))
    soft = MixtureClassifier(2, random_state=0).fit(X, soft_labels=Q, classes=["a", "b"])
    gen = np.random.default_rng(0)
    for c in range(2):
        own = IsotropicGaussianMixture(2, random_state=gen).fit(X, sample_weight=Q[:, c])
        np.testing.assert_allclose(soft.mixtures_[c].means_, own.means_)
    np.testing.assert_allclose(soft.class_prior_, Q.mean(axis=0))
    assert set(soft.predict(X)) <= {"a", "b"}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"soft_labels": np.full((4, 2), 0.5)}, "needs classes"),
        ({"soft_labels": np.full((4, 2), 0.6), "classes": [0, 1]}, "sum to 1"),
        ({"soft_labels": np.full((4, 3), 0.5), "classes": [0, 1]}, r"shape \(4, 2\)"),
        ({"soft_labels": np.c_[np.ones(4), np.zeros(4)], "classes": [0, 1]}, r"\[1\] have zero total weight"),
        ({"y": [0, 0, 1, 2], "classes": [0, 1]}, r"labels \[2\] not in classes"),
        ({"y": ["a", "c", "b", "c"], "classes": ["a", "b"]}, r"labels \['c'\] not in classes"),
        ({"y": np.array(["a", "a", "b", "d"], dtype=object), "classes": ["a", "b"]},
         r"labels \['d'\] not in classes"),
        ({"y": [0.0, 0.0, 1.0, 3.0], "classes": [0, 1]}, r"labels \[3.0\] not in classes"),
        ({}, "requires y to be passed"),
    ],
)
def test_classifier_label_errors(kwargs, match):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match=match):
        MixtureClassifier(1).fit(X, **kwargs)


def test_small_class_reduces_k_with_warning():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(size=(20, 2)), np.tile([5.0, 5.0], (4, 1)), [[6.0, 5.0]]])
    y = np.array(["a"] * 20 + ["b"] * 5)
    with pytest.warns(UserWarning, match="class b has 2 distinct example"):
        clf = MixtureClassifier(3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.n_components_per_class_, [3, 2])
    assert clf.mixtures_[1].n_components == 2
    assert clf.predict([[5.0, 5.0], [6.0, 5.0]]).tolist() == ["b", "b"]


def test_unclassifiable_rule_and_reject_label():
    # Two mirror-image classes: the midpoint is an exact tie, posteriors 1/2 each.
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array(["L", "L", "R", "R"])
    clf = MixtureClassifier(1, reject_label="?", random_state=0).fit(X, y)
    Z = np.array([[0.0], [-1.5], [0.05]])
    np.testing.assert_allclose(clf.predict_proba(Z)[0], [0.5, 0.5])
    np.testing.assert_array_equal(clf.unclassifiable(Z), [True, False, False])
    np.testing.assert_array_equal(clf.predict(Z), ["?", "L", "R"])
    clf.set_params(margin=0.3)
    p = clf.predict_proba(Z)
    expected = np.abs(p[:, 0] - p[:, 1]) <= 0.3
    np.testing.assert_array_equal(clf.unclassifiable(Z), expected)
    assert expected[2] and not expected[1]
    numeric = MixtureClassifier(1, reject_label=-1, random_state=0).fit(X, [3, 3, 7, 7])
    assert numeric.predict(Z).tolist() == [-1, 3, 7] and numeric.predict(Z).dtype.kind == "i"
    mixed = MixtureClassifier(1, reject_label=None, random_state=0).fit(X, [3, 3, 7, 7])
    assert mixed.set_params(reject_label="?").predict(Z).tolist() == ["?", 3, 7]
    # Far from every kernel: log space still decides; min_log_density rejects.
    far = np.array([[1e4]])
    assert not clf.set_params(margin=0.0).unclassifiable(far)[0]
    clf.set_params(min_log_density=np.log(np.finfo(float).tiny))
    assert clf.unclassifiable(far)[0] and clf.predict(far)[0] == "?"
    assert not clf.unclassifiable([[-1.5]])[0]
    # Both at once: the two methods' arrays, bit for bit.
    both = np.vstack([Z, far, [[-1.5]]])
    proba, undecided = clf.set_params(margin=0.3).proba_and_unclassifiable(both)
    np.testing.assert_array_equal(proba, clf.predict_proba(both))
    np.testing.assert_array_equal(undecided, clf.unclassifiable(both))
    assert undecided.tolist() == [True, False, True, True, False]


def test_get_set_params_and_clone():
    clf = MixtureClassifier(3, margin=0.1, random_state=4)
    assert clf.get_params()["n_components"] == 3
    copy = clone(clf.set_params(n_components=5))
    assert copy.get_params() == clf.get_params()
    with pytest.raises(ValueError, match="Invalid parameter 'k'"):
        clf.set_params(k=2)


def test_sklearn_clone_and_cross_val_score():
    rng = np.random.default_rng(3)
    X, y = blobs(rng, n_per=(40, 40, 40))
    est = MixtureClassifier(n_components=2, tol=1e-5, random_state=0)
    copy = sk_clone(est)
    assert copy.get_params() == est.get_params()
    scores = cross_val_score(est, X, y, cv=3)
    assert scores.shape == (3,) and (scores > 0.8).all()


def test_predict_feature_mismatch():
    clf = MixtureClassifier(1, random_state=0).fit(np.eye(4), [0, 0, 1, 1])
    with pytest.raises(ValueError, match="3 features"):
        clf.predict(np.ones((2, 3)))
    with pytest.raises(NotFittedError, match="not fitted"):
        MixtureClassifier().predict(np.ones((2, 3)))


# ---------------------------------------------------------------------------- warm start, floors, underflow
def test_warm_start_resumes_em_where_it_stopped():
    # a EM iterations, then b more from where they stopped = a + b iterations in one go.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (60, 3)), rng.normal(3, 1, (60, 3))])
    y = np.repeat(["u", "v"], 60)
    Q = np.column_stack([np.where(y == "u", 0.8, 0.3), np.where(y == "u", 0.2, 0.7)])
    classes = np.array(["u", "v"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        whole = MixtureClassifier(3, tol=0.0, max_iter=12, random_state=5).fit(X, soft_labels=Q, classes=classes)
        parts = MixtureClassifier(3, tol=0.0, max_iter=5, warm_start=True, random_state=5)
        parts.fit(X, soft_labels=Q, classes=classes)
        parts.set_params(max_iter=7).fit(X, soft_labels=Q, classes=classes)
    for one, two in zip(whole.mixtures_, parts.mixtures_):
        np.testing.assert_allclose(two.means_, one.means_, rtol=1e-10)
        np.testing.assert_allclose(two.variances_, one.variances_, rtol=1e-10)
        np.testing.assert_allclose(two.weights_, one.weights_, rtol=1e-10)
        # The second part's first bound is the first part's last model's likelihood.
        np.testing.assert_allclose(two.lower_bounds_, one.lower_bounds_[5:], rtol=1e-10)


def test_warm_start_is_ignored_when_the_classes_change():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    clf = MixtureClassifier(2, warm_start=True, random_state=0).fit(X, np.repeat([0, 1], 20))
    clf.fit(X, np.repeat([0, 1, 2, 3], 10))
    fresh = MixtureClassifier(2, random_state=0).fit(X, np.repeat([0, 1, 2, 3], 10))
    np.testing.assert_array_equal(clf.predict_proba(X), fresh.predict_proba(X))


def test_relative_variance_floor_scales_with_the_data():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 4)) * np.array([1.0, 2.0, 3.0, 4.0])
    y = np.repeat([0, 1], 25)
    clf = MixtureClassifier(2, relative_min_variance=1e-2, random_state=0).fit(X, y)
    assert clf.min_variance_ == pytest.approx(1e-2 * X.var(axis=0).mean())
    scaled = MixtureClassifier(2, relative_min_variance=1e-2, random_state=0).fit(1000 * X, y)
    assert scaled.min_variance_ == pytest.approx(1e6 * clf.min_variance_)
    np.testing.assert_allclose(scaled.predict_proba(1000 * X), clf.predict_proba(X), atol=1e-8)
    assert all(m.min_variance_ == clf.min_variance_ for m in clf.mixtures_)
    with pytest.raises(ValueError, match="relative_min_variance must be None or a finite float > 0, got 0.0"):
        MixtureClassifier(relative_min_variance=0.0).fit(X, y)


def test_collapsed_kernels_are_counted():
    # Class 0: three identical rows and a far cluster: with 2 kernels one sits on the
    # identical rows at the floor.
    rng = np.random.default_rng(3)
    X = np.vstack([np.zeros((3, 2)), rng.normal(10, 1, (20, 2))])
    mixture = IsotropicGaussianMixture(2, means_init=[[0.0, 0.0], [10.0, 10.0]], sigmas_init=[1.0, 1.0],
                                       min_variance=1e-4).fit(X)
    assert mixture.at_floor_.tolist() == [True, False]
    assert kernel_counts(mixture) == (2, 1)


def _two_unit_classes() -> MixtureClassifier:
    # One kernel per class; the ML fits are N(0, 1) and N(100, 1) (2-point classes at +-1).
    X = np.array([[-1.0], [1.0], [99.0], [101.0]])
    return MixtureClassifier(1, random_state=0).fit(X, np.array([0, 0, 1, 1]))


def test_underflow_rule_hand_computed_case():
    clf = _two_unit_classes()
    assert clf.mixtures_[0].variances_[0] == pytest.approx(1.0)
    # term = P(c) p (2 pi)^(-1/2) exp(-t^2 / 2): at 38 from class 0, exp(-722) = 2.6e-314 (a
    # subnormal double, > 0); at 39, exp(-760.5) = 0; class 1 is 61-62 away: 0.
    assert 0.5 * (2 * np.pi) ** -0.5 * np.exp(-38.0**2 / 2) > 0
    assert np.exp(-39.0**2 / 2) == 0
    X = np.array([[0.0], [38.0], [39.0], [50.0], [62.0], [1e4]])
    assert clf.underflow_mask(X).tolist() == [False, False, True, True, False, True]
    # The log-space posteriors of a flagged point are still decided (no tie).
    assert clf.predict_proba(X[[3]]).max() == pytest.approx(0.5)  # exactly half-way
    assert clf.predict_proba(X[[2]]).max() > 0.99


def test_underflow_never_flags_training_vectors_of_live_kernels():
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(0, 1, (80, 13)), rng.normal(1.5, 1, (80, 13))])
    y = np.repeat([0, 1], 80)
    clf = MixtureClassifier(4, random_state=1).fit(X, y)
    assert not clf.underflow_mask(X).any()
    assert clf.underflow_mask(X + 1e3).all()


@pytest.mark.parametrize("n_components", [1, 3, 40])
def test_log_density_is_each_class_mixtures_score_bit_for_bit(n_components):
    # 3 kernels in every class (one log-sum-exp on the stacked rows), 40 capped to each
    # class's distinct rows (one per class): each class's score_samples, to the last bit.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 5))
    y = np.repeat(["a", "b", "c"], [25, 30, 35])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = MixtureClassifier(n_components, random_state=1).fit(X, y)
    Z = np.vstack([rng.normal(size=(60, 5)), 40.0 * rng.normal(size=(20, 5))])
    got = clf.predict_log_density(Z)
    expected = np.column_stack([m.score_samples(Z) for m in clf.mixtures_])
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))
    assert got.flags.c_contiguous and got.shape == (80, 3)


@pytest.mark.parametrize("shape", [(200, 240), (60, 16), (60, 15), (30, 3), (0, 20)])
def test_lexicographic_order_is_lexsort_on_signed_zeros_infinities_and_ties(shape):
    """The byte-key sort (16 columns or more) gives lexsort's stable order exactly: negative
    values before positive ones, -0.0 tied with 0.0 (kept in row order), infinities at the
    ends, equal rows in their own order; NaN rows take lexsort itself."""
    rng = np.random.default_rng(shape[1])
    values = np.array([-np.inf, -2.5, -1.0, -1e-300, -0.0, 0.0, 5e-324, 1e-300, 1.0, 2.5, np.inf])
    X = rng.choice(values, size=shape)
    X[1::3] = X[::3][: len(X[1::3])]  # duplicated rows
    if len(X) > 4:
        X[2], X[4] = 0.0, -0.0  # a row of signed zeros ties with its twin of unsigned ones
        X[3, ::2] = -0.0
        X[3, 1::2] = 0.0
    assert not np.isnan(X).any()
    np.testing.assert_array_equal(lexicographic_order(X), np.lexsort(X.T[::-1]))
    rows, weights = distinct_rows(X, np.ones(len(X)))
    expected, inverse = np.unique(X, axis=0, return_inverse=True)
    np.testing.assert_array_equal(rows, expected)
    np.testing.assert_array_equal(weights, np.bincount(inverse.ravel(), minlength=len(expected)))
    if len(X):
        X[len(X) // 2, 0] = np.nan
        np.testing.assert_array_equal(lexicographic_order(X), np.lexsort(X.T[::-1]))
