"""SVM experiment functions and their figures on tiny inputs."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from mixlib.experiments.contract import RepeatData
from mixlib.experiments.svm import (
    mkl_run,
    svdd_run,
    svdd_job,
    svm_grid_level,
    svm_grid_job,
    svm_refit_best,
)
from mixlib.figures.svm_extras import mkl_weights, svdd_detection
from mixlib.figures.svm_grid import svm_grid

GRID = {"log10_C_range": (-1.0, 2.0), "log10_sigma_range": (-0.5, 1.0), "n_points": 4,
        "n_folds": 3, "significance_level": 0.05}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=120)
    X = np.array([[0, 0], [2.5, 0], [0, 2.5]])[labels] + rng.normal(size=(120, 2))
    y = np.array(["a", "b", "c"])[labels]
    return RepeatData.of(0, train=(X[:80], y[:80]), test=(X[80:], y[80:]))


@pytest.fixture(scope="module")
def grid(data):
    level0 = svm_grid_level(data, level=0, previous=None, params=GRID, rng=7, dataset="toy")
    level1 = svm_grid_level(data, level=1, previous=level0, params=GRID, rng=7, dataset="toy")
    return pd.concat([level0, level1], ignore_index=True)


def test_grid_levels_table(data, grid):
    assert len(grid) == 2 * 4 * 16
    assert list(grid.columns) == ["dataset", "method", "kernel", "level", "log10_C",
                                  "log10_sigma", "C", "sigma", "n_folds", "alpha", "metric",
                                  "value"]
    assert set(grid["metric"]) == {"cv_error", "cv_std", "ci_low", "ci_high"}
    errors = grid[grid["metric"] == "cv_error"]
    assert errors["value"].between(0, 1).all()
    np.testing.assert_allclose(grid["C"], 10.0 ** grid["log10_C"])
    # level 1 is centred on the best point of level 0, one coarse step either side
    level0 = errors[errors["level"] == 0]
    best = level0.sort_values(["value", "log10_C"]).iloc[0]
    level1_C = np.sort(errors.loc[errors["level"] == 1, "log10_C"].unique())
    assert level1_C[0] == pytest.approx(best["log10_C"] - 1.0)
    assert level1_C[-1] == pytest.approx(best["log10_C"] + 1.0)
    # same seed, same table; the folds depend on the seed
    again = svm_grid_level(data, level=0, previous=None, params=GRID, rng=7, dataset="toy")
    pd.testing.assert_frame_equal(again, grid[grid["level"] == 0].reset_index(drop=True))
    with pytest.raises(ValueError, match="level 1 needs the tables"):
        svm_grid_level(data, level=1, previous=None, params=GRID, rng=7)
    with pytest.raises(ValueError, match=r"grid settings: unknown \['gamma'\], missing \[\]"):
        svm_grid_level(data, level=0, previous=None, params={**GRID, "gamma": 1.0}, rng=7)
    incomplete = {key: value for key, value in GRID.items() if key != "n_folds"}
    with pytest.raises(ValueError, match=r"grid settings: unknown \[\], missing \['n_folds'\]"):
        svm_grid_level(data, level=0, previous=None, params=incomplete, rng=7)


def test_refit_best_scores_the_best_point(data, grid):
    summary = svm_refit_best(data, grid=grid, params=GRID, dataset="toy")
    overall = summary[summary["class"] == "all"].set_index("metric")["value"]
    errors = grid[grid["metric"] == "cv_error"]
    assert overall["cv_error"] == pytest.approx(errors["value"].min())
    assert overall["ci_low"] <= overall["cv_error"] <= overall["ci_high"]
    assert 0 <= overall["test_error"] <= 0.3
    per_class = summary[summary["class"] != "all"]
    assert set(per_class["class"]) == {"a", "b", "c"}
    assert per_class["value"].between(0, 1).all()
    assert isinstance(svm_grid(grid, summary), Figure)


def test_mkl_run_table_and_figure(data):
    settings = {"sigmas": (0.3, 1.0, 3.0), "linear": True}
    table = mkl_run(data, params=settings, dataset="toy")
    weights = table[table["metric"] == "weight"]
    assert len(weights) == 4 and weights["value"].sum() == pytest.approx(1.0)
    objective = table[table["metric"] == "objective"].sort_values("step")["value"]
    assert np.all(np.diff(objective) <= 0)
    errors = table[table["metric"] == "test_error"]
    assert len(errors) == 5 and errors["value"].between(0, 1).all()
    pd.testing.assert_frame_equal(
        table, mkl_run(data, params=settings, dataset="toy"))
    assert isinstance(mkl_weights(table), Figure)


def test_svdd_run_table_and_figure(data):
    table = svdd_run(data, params={"nu": 0.2, "sigma": 1.5}, dataset="toy")
    rates = table[table["metric"] == "acceptance_rate"]
    assert len(rates) == 9 and rates["value"].between(0, 1).all()
    detection = rates[rates["target_class"] == rates["tested_class"]]["value"]
    false_accept = rates[rates["target_class"] != rates["tested_class"]]["value"]
    assert detection.mean() > false_accept.mean()
    bounded = table[table["metric"] == "bounded_sv_fraction"]["value"]
    support = table[table["metric"] == "support_fraction"]["value"]
    assert np.all(bounded <= 0.2 + 1e-12) and np.all(support >= 0.2 - 1e-12)
    assert table.loc[table["metric"] == "test_error", "value"].between(0, 1).all()
    assert isinstance(svdd_detection(table), Figure)


def test_svm_stages_run_on_repeat_zero_with_one_stream(data):
    """The grid stage: repeat 0 only, folds from generator(seed, "svm_grid", split) at every level."""
    from mixlib.core.seeding import generator

    other = RepeatData.of(1, train=(data["train"].X[:40], data["train"].y[:40]), test=data["test"])
    table = svm_grid_job([data, other], seed=2, split="toy", level=0, previous=None, params=GRID)
    direct = svm_grid_level(data, level=0, previous=None, params=GRID,
                            rng=generator(2, "svm_grid", "toy"), dataset="toy")
    pd.testing.assert_frame_equal(table, direct)
    unseeded = svdd_job([data, other], split="toy", params={"nu": 0.2})
    pd.testing.assert_frame_equal(unseeded, svdd_run(data, params={"nu": 0.2}, dataset="toy"))
