"""Every public classifier on one huge finite value: it refuses it, naming the feature, or
keeps its accuracy; no estimator falls to chance with only numpy warnings.

A value beyond :data:`mixlib.core.validation.MAX_MAGNITUDE` (1e150, the data sets' own bound)
overflows float64 when squared, in a variance, a squared distance or a Gram matrix.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mixlib.core.validation import MAX_MAGNITUDE, check_array
from mixlib.datasets.checks import MAX_MAGNITUDE as DATASET_MAX_MAGNITUDE
from tests.test_sklearn_checks import PUBLIC_CLASSIFIERS

ROW, COLUMN = 17, 2
#: Classifiers of categorical features, tried on integer category codes.
CATEGORICAL = {"CategoricalNaiveBayes", "ID3Classifier"}


def blobs(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two well-separated Gaussian classes in 4 dimensions."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return rng.normal(size=(n, 4)) + 3.0 * y[:, None], y


def with_huge_cell(X: np.ndarray) -> np.ndarray:
    huge = X.copy()
    huge[ROW, COLUMN] = 1e200
    return huge


def test_the_estimators_bound_is_the_data_sets_bound():
    assert MAX_MAGNITUDE == DATASET_MAX_MAGNITUDE == 1e150


def test_check_array_names_the_feature_and_the_value():
    X = np.zeros((5, 3))
    X[4, 1] = -3e151
    with pytest.raises(ValueError, match=r"feature \(column\) 1 of X, row 4 holds -3e\+151, "
                                         r"beyond the \+/-1e\+150 .* Rescale that feature"):
        check_array(X)
    X[4, 1] = 1e150  # the bound itself is accepted, and NaN passes where allowed
    X[0, 0] = np.nan
    assert check_array(X, allow_nan=True)[4, 1] == 1e150


@pytest.mark.parametrize("name", sorted(PUBLIC_CLASSIFIERS))
def test_one_huge_value_is_refused_or_harmless(name):
    from mixlib.core.base import clone

    X, y = blobs()
    X_test, y_test = blobs(seed=1)
    if name in CATEGORICAL:  # category codes 0, 1, 2...
        low = X.min()
        X = np.floor(X - low)
        X_test = np.clip(np.floor(X_test - low), 0.0, X.max(axis=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = clone(PUBLIC_CLASSIFIERS[name]).fit(X, y).score(X_test, y_test)
        try:
            huge = clone(PUBLIC_CLASSIFIERS[name]).fit(with_huge_cell(X), y)
        except ValueError as error:
            assert f"feature (column) {COLUMN} of X, row {ROW} holds 1e+200" in str(error)
            fitted = clone(PUBLIC_CLASSIFIERS[name]).fit(X, y)
            with pytest.raises(ValueError, match=rf"feature \(column\) {COLUMN} of X, row {ROW}"):
                fitted.predict(with_huge_cell(X_test))
            return
        assert reference > 0.9
        assert huge.score(X_test, y_test) >= reference - 0.02, name


def test_the_other_public_estimators_refuse_it_too():
    from mixlib.impute import ClassMeanImputer, MeanImputer
    from mixlib.mixture import IsotropicGaussianMixture
    from mixlib.neighbors import KDTree
    from mixlib.svm import SVDD

    X, y = blobs()
    huge = with_huge_cell(X)
    where = rf"feature \(column\) {COLUMN} of X, row {ROW} holds 1e\+200"
    for fit in (lambda: MeanImputer().fit(huge), lambda: ClassMeanImputer().fit(huge, y),
                lambda: SVDD().fit(huge), lambda: KDTree(huge),
                lambda: IsotropicGaussianMixture(random_state=0).fit(huge)):
        with pytest.raises(ValueError, match=where):
            fit()
    with pytest.raises(ValueError, match=where):
        MeanImputer().fit(X).transform(huge)
