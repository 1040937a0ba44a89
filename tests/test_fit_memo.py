"""The fit memo of the semi-supervised stages: a memoised fit is the fit, bit for bit."""

import numpy as np

from mixlib.experiments.semisupervised import FitMemo
from mixlib.mixture import MixtureClassifier


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return X, (X[:, 0] > 0).astype(int)


def _same(a, b):
    assert np.array_equal(a.class_prior_, b.class_prior_)
    for m, n in zip(a.mixtures_, b.mixtures_):
        for name in ("means_", "variances_", "weights_", "lower_bounds_"):
            assert np.array_equal(getattr(m, name), getattr(n, name))


def test_a_repeated_fit_is_looked_up_and_equals_a_plain_fit():
    X, y = _data()
    memo = FitMemo()
    first = memo.classifier(MixtureClassifier(2, random_state=5)).fit(X, y)
    second = memo.classifier(MixtureClassifier(2, random_state=5)).fit(X, y)
    assert (memo.hits, memo.misses) == (1, 1)
    plain = MixtureClassifier(2, random_state=5).fit(X, y)
    _same(first, plain)
    _same(second, plain)
    # another seed, other rows or other labels are other fits
    memo.classifier(MixtureClassifier(2, random_state=6)).fit(X, y)
    memo.classifier(MixtureClassifier(2, random_state=5)).fit(X[1:], y[1:])
    memo.classifier(MixtureClassifier(2, random_state=5)).fit(X, 1 - y)
    assert (memo.hits, memo.misses) == (1, 4)


def test_warm_starts_chain_on_the_fit_they_continue():
    X, y = _data()
    Q = np.column_stack([1.0 - y, y]) * 0.8 + 0.1
    memo = FitMemo()
    fits = []
    for _ in range(2):
        model = memo.classifier(MixtureClassifier(2, random_state=5)).fit(X, y)
        model.set_params(warm_start=True)
        fits.append(model.fit(X, soft_labels=Q, classes=np.array([0, 1])))
    plain = MixtureClassifier(2, random_state=5).fit(X, y)
    plain.set_params(warm_start=True)
    plain.fit(X, soft_labels=Q, classes=np.array([0, 1]))
    assert (memo.hits, memo.misses) == (2, 2)
    _same(fits[1], plain)


def test_a_generator_seed_is_not_memoised():
    X, y = _data()
    memo = FitMemo()
    memo.classifier(MixtureClassifier(2, random_state=np.random.default_rng(1))).fit(X, y)
    assert (memo.hits, memo.misses) == (0, 0)
