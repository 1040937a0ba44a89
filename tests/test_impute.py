"""Tests of mixlib.impute.imputers: the report's kernel-mode imputer and the mean baselines."""

import warnings

import numpy as np
import pytest

from mixlib.core.exceptions import NotFittedError
from mixlib.impute.imputers import ClassMeanImputer, KernelModeImputer, MeanImputer
from mixlib.mixture import IsotropicGaussianMixture


def bimodal(rng, n_heavy=70, n_light=30, heavy=0.0, light=10.0):
    values = np.concatenate([rng.normal(heavy, 0.5, n_heavy), rng.normal(light, 0.5, n_light)])
    return rng.permutation(values)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3])
def test_kernel_mode_returns_the_heavier_mode_not_the_mean(seed, k):
    rng = np.random.default_rng(seed)
    X = bimodal(rng)[:, None]
    X[:5] = np.nan
    imputer = KernelModeImputer(k, random_state=seed).fit(X)
    value = imputer.global_statistics_[0]
    assert np.nanmean(X) == pytest.approx(3.0, abs=0.6)  # the mean lies between the modes
    assert abs(value - 0.0) < 0.3  # the heavy mode (70 % of the mass at 0)
    filled = imputer.transform(X)
    np.testing.assert_array_equal(filled[:5, 0], value)
    np.testing.assert_array_equal(filled[5:], X[5:])
    assert MeanImputer().fit(X).global_statistics_[0] == pytest.approx(np.nanmean(X))


def test_substitute_is_the_heaviest_kernel_of_the_fitted_mixture():
    rng = np.random.default_rng(4)
    values = bimodal(rng, 40, 60)
    imputer = KernelModeImputer(2, random_state=0).fit(values[:, None])
    mixture = IsotropicGaussianMixture(2, random_state=np.random.default_rng(0)).fit(values[:, None])
    assert imputer.global_statistics_[0] == pytest.approx(mixture.means_[np.argmax(mixture.weights_), 0])
    assert imputer.global_statistics_[0] == pytest.approx(10.0, abs=0.3)


def test_class_models_for_known_rows_and_class_free_model_for_unknown_rows():
    rng = np.random.default_rng(3)
    a = np.c_[bimodal(rng, 40, 20, heavy=0.0, light=10.0), rng.normal(1, 1, 60)]
    b = np.c_[bimodal(rng, 40, 20, heavy=20.0, light=10.0), rng.normal(5, 1, 60)]
    X = np.vstack([a, b])
    y = np.array(["a"] * 60 + ["b"] * 60, dtype=object)
    y[::10] = None  # some training rows of unknown class
    imputer = KernelModeImputer(2, random_state=0).fit(X, y)
    assert abs(imputer.statistics_[0, 0] - 0.0) < 0.3
    assert abs(imputer.statistics_[1, 0] - 20.0) < 0.3
    known = np.array([v is not None for v in y])
    rows_a = X[known & (np.arange(120) < 60)]
    one = KernelModeImputer(1).fit(X, y)  # K = 1 gives the class means
    np.testing.assert_allclose(one.statistics_[0], rows_a.mean(axis=0))
    np.testing.assert_allclose(one.global_statistics_, X.mean(axis=0))
    np.testing.assert_allclose(ClassMeanImputer().fit(X, y).statistics_, one.statistics_)

    Z = np.array([[np.nan, 1.0], [np.nan, np.nan], [np.nan, 2.0]])
    labelled = imputer.transform(Z, np.array(["a", "b", None], dtype=object))
    assert labelled[0, 0] == imputer.statistics_[0, 0]
    np.testing.assert_array_equal(labelled[1], imputer.statistics_[1])
    assert labelled[2, 0] == imputer.global_statistics_[0]
    np.testing.assert_array_equal(imputer.transform(Z)[:, 0], imputer.global_statistics_[0])
    # float labels: NaN marks unknown rows
    num = KernelModeImputer(1).fit(X[:4], np.array([0.0, 1.0, np.nan, 1.0]))
    np.testing.assert_array_equal(num.classes_, [0.0, 1.0])


def test_rows_missing_other_features_still_count():
    X = np.array([[1.0, np.nan], [2.0, 5.0], [3.0, np.nan], [np.nan, 7.0]])
    imputer = KernelModeImputer(1).fit(X)
    np.testing.assert_allclose(imputer.global_statistics_, [2.0, 6.0])
    np.testing.assert_allclose(imputer.transform(X), [[1, 6], [2, 5], [3, 6], [2, 7]])


def test_k_larger_than_distinct_values_reduces_k_with_warning():
    X = np.array([[0.0], [1.0], [1.0], [5.0], [6.0], [7.0], [8.0], [9.0]])
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    with pytest.warns(UserWarning, match="feature 0 in class 0 has 2 distinct observed value"):
        imputer = KernelModeImputer(3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(imputer.n_components_[:, 0], [2, 3])
    assert imputer.global_n_components_[0] == 3
    assert imputer.statistics_[0, 0] == pytest.approx(1.0)  # heavier of the kernels at 0 and 1


def test_class_without_observed_value_falls_back_with_warning():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [np.nan, 10.0], [np.nan, 12.0]])
    y = np.array([0, 0, 1, 1])
    with pytest.warns(UserWarning, match="no observed value"):
        imputer = ClassMeanImputer().fit(X, y)
    assert imputer.statistics_[1, 0] == imputer.global_statistics_[0] == 2.0


@pytest.mark.parametrize("imputer", [MeanImputer(), ClassMeanImputer(), KernelModeImputer(2)])
def test_errors(imputer):
    X = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    with pytest.raises(ValueError, match=r"features \[1\] have no observed value"):
        imputer.fit(X)
    with pytest.raises(NotFittedError, match="not fitted"):
        type(imputer)().transform(X)
    with warnings.catch_warnings():  # class 1 has one row: K reduced, tested above
        warnings.simplefilter("ignore", UserWarning)
        fitted = imputer.fit(np.array([[1.0, 2.0], [2.0, 3.0], [4.0, 4.0]]), [0, 0, 1])
    with pytest.raises(ValueError, match="X has 3 features, but .* fitted with 2"):
        fitted.transform(np.ones((2, 3)))
    with pytest.raises(ValueError, match="infinite"):
        fitted.transform(np.array([[np.inf, 1.0]]))
    if not isinstance(imputer, MeanImputer):
        with pytest.raises(ValueError, match=r"classes \[7\] not seen"):
            fitted.transform(np.ones((1, 2)), [7])


def test_kernel_mode_parameter_error():
    with pytest.raises(ValueError, match="n_components must be an int >= 1, got 0"):
        KernelModeImputer(0).fit(np.ones((3, 1)))


def test_nan_left_by_imputation_is_rejected_by_the_classifier():
    from mixlib.mixture import MixtureClassifier

    X = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match=r"NaN in 1 cell\(s\) \(first rows: \[1\]\)"):
        MixtureClassifier(1).fit(X, [0, 0, 1, 1])
    filled = KernelModeImputer(1).fit_transform(X, [0, 0, 1, 1])
    assert not np.isnan(filled).any() and filled[1, 0] == 0.0


def test_an_unknown_fit_argument_names_the_imputers_class():
    X = np.array([[1.0, np.nan], [2.0, 3.0], [4.0, 5.0]])
    for imputer in (MeanImputer(), ClassMeanImputer()):
        with pytest.raises(TypeError, match=rf"^{type(imputer).__name__}\.fit\(\) got unexpected "
                                            r"keyword argument\(s\) 'sample_weight'"):
            imputer.fit(X, sample_weight=np.ones(3))
