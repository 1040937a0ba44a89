"""Cross-validation, its t-interval, refined grids and confusion matrices."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from sklearn.svm import SVC as SkSVC

from mixlib.model_selection.evaluation import (
    best_grid_point,
    class_rates,
    confusion_matrix,
    cross_val_error,
    grid_level_axes,
    grid_search_cv,
    stratified_folds,
    t_interval,
)
from mixlib.svm.svc import SVC


@pytest.mark.parametrize("seed", [0, 1])
def test_stratified_folds_partition_and_keep_proportions(seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=103, p=[0.6, 0.3, 0.1])
    folds = stratified_folds(y, 5, np.random.default_rng(seed))
    assert set(folds) == set(range(5))  # every row in exactly one fold
    sizes = np.bincount(folds)
    assert sizes.max() - sizes.min() <= 1
    for label in np.unique(y):
        per_fold = np.bincount(folds[y == label], minlength=5)
        assert per_fold.max() - per_fold.min() <= 1
    np.testing.assert_array_equal(folds, stratified_folds(y, 5, np.random.default_rng(seed)))
    assert not np.array_equal(folds, stratified_folds(y, 5, np.random.default_rng(seed + 7)))


def test_t_interval_against_scipy():
    errors = np.array([0.10, 0.15, 0.08, 0.12, 0.20, 0.11])
    cv = t_interval(errors, significance_level=0.1)
    low, high = stats.t.interval(0.9, df=5, loc=errors.mean(), scale=stats.sem(errors))
    assert cv.mean == pytest.approx(errors.mean())
    assert cv.low == pytest.approx(low, rel=1e-12)
    assert cv.high == pytest.approx(high, rel=1e-12)
    with pytest.raises(ValueError, match="at least 2 values"):
        t_interval(np.array([0.1]))


def test_cross_val_error_refits_each_fold_like_sklearn():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=80) > 0, 1, -1)
    folds = stratified_folds(y, 4, np.random.default_rng(3))
    cv = cross_val_error(SVC(C=1.0, sigma=1.0), X, y, folds=folds)
    expected = [np.mean(SkSVC(C=1.0, gamma=0.5).fit(X[folds != k], y[folds != k])
                        .predict(X[folds == k]) != y[folds == k]) for k in range(4)]
    np.testing.assert_allclose(cv.fold_errors, expected)
    # a factory gives the same result as an estimator to clone
    same = cross_val_error(lambda: SVC(C=1.0, sigma=1.0), X, y, folds=folds)
    np.testing.assert_array_equal(same.fold_errors, cv.fold_errors)


def test_grid_levels_refine_around_the_best_point():
    log_C, log_sigma = grid_level_axes(0, (-1, 3), (-1, 1), 5)
    np.testing.assert_allclose(log_C, [-1, 0, 1, 2, 3])
    np.testing.assert_allclose(log_sigma, [-1, -0.5, 0, 0.5, 1])
    log_C, log_sigma = grid_level_axes(1, (-1, 3), (-1, 1), 5, best=(1.0, 0.5))
    np.testing.assert_allclose(log_C, [0, 0.5, 1, 1.5, 2])
    np.testing.assert_allclose(log_sigma, [0, 0.25, 0.5, 0.75, 1])
    log_C, _ = grid_level_axes(2, (-1, 3), (-1, 1), 5, best=(1.5, 0.5))
    np.testing.assert_allclose(log_C, [1, 1.25, 1.5, 1.75, 2])
    with pytest.raises(ValueError, match="n_points must be an integer >= 4, got 3"):
        grid_level_axes(0, (-1, 3), (-1, 1), 3)
    with pytest.raises(ValueError, match="needs the best point"):
        grid_level_axes(1, (-1, 3), (-1, 1), 5)
    table = pd.DataFrame({"cv_error": [0.2, 0.1, 0.1], "log10_C": [0.0, 1.0, 0.0],
                          "log10_sigma": [0.0, 0.0, -1.0]})
    assert best_grid_point(table) == (0.0, -1.0)


def test_grid_search_table_and_process_pool_determinism():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 2))
    y = np.where(np.hypot(X[:, 0], X[:, 1]) > 1.1, "out", "in")
    kwargs = dict(log10_C_range=(-1, 2), log10_sigma_range=(-1, 1), n_points=4, n_levels=2,
                  n_folds=3)
    table = grid_search_cv(SVC(), X, y, random_state=0, **kwargs)
    assert len(table) == 32 and list(table["level"].unique()) == [0, 1]
    assert table["cv_error"].between(0, 1).all()
    assert (table["ci_low"] <= table["cv_error"]).all()
    level0 = table[table["level"] == 0]
    best = best_grid_point(level0)
    np.testing.assert_allclose(np.unique(table.loc[table["level"] == 1, "log10_C"]),
                               best[0] + np.array([-1.0, -1 / 3, 1 / 3, 1.0]))
    parallel = grid_search_cv(SVC(), X, y, random_state=0, n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(table, parallel)


def test_confusion_matrix_worked_example_of_seed_002():
    # Example 4 of the supervised-learning notes (k-NN, K = 3, 1000 points): error rate 10.3 %
    example = np.array([[224, 13, 0, 0], [1, 248, 0, 0], [26, 3, 191, 20], [0, 40, 0, 234]])
    true = np.repeat(np.repeat([1, 2, 3, 4], 4), example.ravel())
    pred = np.repeat(np.tile([1, 2, 3, 4], 4), example.ravel())
    matrix = confusion_matrix(true, pred)
    np.testing.assert_array_equal(matrix, example)
    assert 1 - np.trace(matrix) / matrix.sum() == pytest.approx(0.103)
    rates = class_rates(matrix)
    assert rates.loc[1, "sensitivity"] == pytest.approx(248 / 249)
    assert rates.loc[1, "precision"] == pytest.approx(248 / (13 + 248 + 3 + 40))
    assert rates.loc[2, "specificity"] == pytest.approx((1000 - 240 - 0) / 760)


@pytest.mark.parametrize("seed", [0, 1])
def test_confusion_matrix_against_sklearn(seed):
    rng = np.random.default_rng(seed)
    true = rng.choice(["x", "y", "z"], size=200)
    pred = np.where(rng.random(200) < 0.7, true, rng.choice(["x", "y", "z", "w"], size=200))
    labels = np.array(["z", "x", "y", "w"])
    np.testing.assert_array_equal(confusion_matrix(true, pred, labels),
                                  sk_confusion_matrix(true, pred, labels=labels))
    np.testing.assert_array_equal(confusion_matrix(true, pred),
                                  sk_confusion_matrix(true, pred))
    rates = class_rates(confusion_matrix(true, pred, labels[:3]))
    tp = np.array([np.sum((true == c) & (pred == c)) for c in labels[:3]])
    kept = np.isin(pred, labels[:3])
    assert np.allclose(rates["sensitivity"],
                       tp / [np.sum((true == c) & kept) for c in labels[:3]])
    assert np.isnan(class_rates(np.array([[1, 0], [1, 0]]))["precision"][1])
