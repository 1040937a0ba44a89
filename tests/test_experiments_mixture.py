"""Tests of the mixture experiments (em_trace, kernel_map, imputation_study) and their figures."""

import warnings

import numpy as np
import pandas as pd
import pytest

from mixlib.mixture.isotropic import kernel_counts
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from mixlib.experiments.contract import RepeatData, run_repeats
from mixlib.experiments.imputation import (
    imputation_study,
    imputation_study_job,
    imputer_variants,
    mcar_mask,
)
from mixlib.experiments.mixture import em_trace, kernel_map, kernel_map_job, principal_axes
from mixlib.figures.fig3_3 import fig3_3
from mixlib.figures.fig3_4 import fig3_4
from mixlib.figures.imputation import imputation_figure
from mixlib.catalogue.registry import make_imputer, make_mixture
from mixlib.model_selection.resampling import holdout_units, standardised
from mixlib.catalogue.settings import EMSettings
from mixlib.mixture.gaussian_mixture import MixtureClassifier

EM = EMSettings(init="report", tol=1e-6, max_iter=200, min_variance=1e-6)


@pytest.fixture
def two_classes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (30, 4)), rng.normal(3, 1, (30, 4))])
    y = np.array(["a"] * 30 + ["b"] * 30)
    return X, y


def _labelled(X, y, repeat=0):
    return RepeatData.of(repeat, labelled=(X, y))


def _traces(X, y, seed, n_repeats=3, **params):
    """em_trace on ``n_repeats`` repeats of the same rows, through the runner."""
    table = run_repeats(em_trace, [_labelled(X, y, r) for r in range(n_repeats)],
                        {"n_components": 2, "em": EM, "n_restarts": 0, **params}, seed=seed, keys=("em_trace", "s"))
    table.insert(0, "repeat", table.pop("repeat"))
    return table


def test_em_trace_table(two_classes):
    X, y = two_classes
    params = {"n_labelled": 20, "em": EMSettings(tol=1e-5)}
    trace = _traces(X, y, 1, **params)
    assert list(trace.columns) == [
        "repeat", "class", "n_components", "n_labelled", "iteration", "mean_log_likelihood",
        "n_iter", "converged", "collapsed", "n_restarts", "global_gap", "nondegenerate_gap",
    ]
    assert (trace["n_restarts"] == 0).all() and (trace["global_gap"] == 0).all()
    assert set(trace["repeat"]) == {0, 1, 2} and set(trace["n_labelled"]) == {20}
    for (_, label), run in trace.groupby(["repeat", "class"]):
        # iterations 0..n_iter, non-decreasing likelihood, last row = the fitted model
        np.testing.assert_array_equal(run["iteration"], np.arange(run["n_iter"].iloc[0] + 1))
        assert (np.diff(run["mean_log_likelihood"]) >= -1e-9).all()
        assert np.isfinite(run["mean_log_likelihood"]).all()
    pd.testing.assert_frame_equal(trace, _traces(X, y, 1, **params))
    assert not trace.equals(_traces(X, y, 2, **params))


def test_em_trace_matches_a_direct_fit(two_classes):
    X, y = two_classes
    trace = em_trace(_labelled(X, y), n_restarts=0, n_components=3, em=EM, rng=5)
    clf = MixtureClassifier(3, random_state=np.random.default_rng(5), **EM.as_kwargs()).fit(X, y)
    for c, label in enumerate(clf.classes_):
        run = trace[trace["class"] == label]["mean_log_likelihood"].to_numpy()
        np.testing.assert_allclose(run[:-1], clf.mixtures_[c].lower_bounds_)
        assert run[-1] == pytest.approx(clf.mixtures_[c].score(X[y == label]))


def test_em_trace_restarts_find_the_best_maximum_without_changing_the_fit(two_classes):
    X, y = two_classes
    plain = em_trace(_labelled(X, y), n_restarts=0, n_components=4, em=EM, rng=8)
    restarted = em_trace(_labelled(X, y), n_components=4, em=EM, n_restarts=5, rng=8)
    # The restarts are drawn after the first fit: its trace is unchanged.
    gaps = ["n_restarts", "global_gap", "nondegenerate_gap"]
    pd.testing.assert_frame_equal(restarted.drop(columns=gaps), plain.drop(columns=gaps))
    assert (restarted["n_restarts"] == 5).all() and (restarted["global_gap"] >= 0).all()
    # The gap by hand: the same generator gives the first fit, then the five restarts.
    rng = np.random.default_rng(8)
    fits = [MixtureClassifier(4, random_state=rng).fit(X, y) for _ in range(6)]
    for c, label in enumerate(fits[0].classes_):
        scores = [fit.mixtures_[c].score(X[y == label]) for fit in fits]
        gap = restarted.loc[restarted["class"] == label, "global_gap"].iloc[0]
        assert gap == pytest.approx(max(scores) - scores[0])
        # among the fits without a kernel at the variance floor only
        sound = [score for fit, score in zip(fits, scores) if kernel_counts(fit.mixtures_[c])[1] == 0]
        own = restarted.loc[restarted["class"] == label, "nondegenerate_gap"].iloc[0]
        if kernel_counts(fits[0].mixtures_[c])[1]:
            assert np.isnan(own)
        else:
            assert own == pytest.approx(max(sound) - scores[0])
    with pytest.raises(ValueError, match="n_restarts must be >= 0"):
        em_trace(_labelled(X, y), n_components=2, em=EM, n_restarts=-1, rng=0)


def test_em_trace_floor_job_differs_by_the_floor_alone(two_classes):
    from mixlib.core.seeding import generator
    from mixlib.experiments.mixture import em_trace_floor_job

    X, y = two_classes
    repeats = [_labelled(X, y)]
    table = em_trace_floor_job(repeats, seed=4, split="s", dataset="d", n_components=3,
                               em=EMSettings(min_variance=1e-6, tol=1e-5), n_restarts=2, floors=[1e-6, 0.5])
    assert list(table.columns[:3]) == ["split", "dataset", "repeat"] and table.columns[-1] == "relative_min_variance"
    assert sorted(table["relative_min_variance"].unique()) == [1e-6, 0.5]
    low = table[table["relative_min_variance"] == 1e-6]
    direct = em_trace(repeats[0], n_components=3, n_restarts=2, em=EMSettings(tol=1e-5, relative_min_variance=1e-6),
                      rng=generator(4, "em_trace_sensitivity", "s", 0))
    np.testing.assert_allclose(low["mean_log_likelihood"].to_numpy(), direct["mean_log_likelihood"].to_numpy())


def test_em_trace_and_kernel_map_count_collapsed_kernels():
    # Five examples per class and four kernels: every kernel that keeps a single example
    # shrinks onto it and stops at the variance floor.
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (5, 3)), rng.normal(3, 1, (5, 3))])
    y = np.repeat(["a", "b"], 5)
    trace = em_trace(_labelled(X, y), n_restarts=0, n_components=4, em=EM, rng=0)
    clf = MixtureClassifier(4, random_state=np.random.default_rng(0), **EM.as_kwargs()).fit(X, y)
    expected = [int((m.at_floor_ & (m.weights_ > 1e-6)).sum()) for m in clf.mixtures_]
    assert trace.groupby("class")["collapsed"].first().tolist() == expected
    assert sum(expected) > 0
    table = kernel_map(_labelled(X, y), n_components=4, em=EM, rng=0)
    kernels = table[table["kind"] == "kernel"]
    assert kernels.groupby("class")["collapsed"].sum().tolist() == expected
    assert not table.loc[table["kind"] == "point", "collapsed"].any()
    # A floor relative to the data's variance keeps those kernels at a width of the data's
    # scale: still "at the floor", but no longer points.
    relaxed = kernel_map(_labelled(X, y), n_components=4, em=EMSettings(relative_min_variance=0.5), rng=0)
    widths = relaxed.loc[relaxed["kind"] == "kernel", "sigma"]
    assert widths.min() >= np.sqrt(0.5 * X.var(axis=0).mean()) * (1 - 1e-9)
    assert widths.min() > 1000 * kernels["sigma"].min()


def test_principal_axes_match_the_covariance_eigenvectors(two_classes):
    X, _ = two_classes
    mean, axes = principal_axes(X)
    values, vectors = np.linalg.eigh(np.cov(X.T))
    for i in range(2):
        top = vectors[:, -1 - i]
        assert abs(axes[i] @ top) == pytest.approx(1.0)
    np.testing.assert_allclose(axes @ axes.T, np.eye(2), atol=1e-12)
    assert (axes[np.arange(2), np.abs(axes).argmax(1)] > 0).all()


def test_kernel_map_table(two_classes):
    X, y = two_classes
    table = kernel_map(_labelled(X, y), n_components=3, em=EMSettings(tol=1e-5), rng=0)
    kernels, points = table[table["kind"] == "kernel"], table[table["kind"] == "point"]
    assert len(kernels) == 6 and len(points) == len(X)
    assert (kernels["sigma"] > 0).all()
    np.testing.assert_allclose(kernels.groupby("class")["weight"].sum(), 1.0)
    assert points["sigma"].isna().all() and (points["kernel"] == -1).all()
    mean, axes = principal_axes(X)
    np.testing.assert_allclose(points[["pc1", "pc2"]].to_numpy(), (X - mean) @ axes.T)
    clf = MixtureClassifier(3, tol=1e-5, random_state=np.random.default_rng(0)).fit(X, y)
    np.testing.assert_allclose(
        kernels[["pc1", "pc2"]].to_numpy(),
        (np.vstack([m.means_ for m in clf.mixtures_]) - mean) @ axes.T,
    )
    pd.testing.assert_frame_equal(table, kernel_map(_labelled(X, y), n_components=3, em=EMSettings(tol=1e-5),
                                                    rng=0))
    with pytest.raises(ValueError, match="at least 2 features"):
        kernel_map(_labelled(X[:, :1], y), n_components=2, em=EM, rng=0)


def test_kernel_map_job_runs_on_repeat_zero_only(two_classes):
    """A one-repeat stage: repeat 0 with generator(seed, "kernel_map", split, 0), no repeat column."""
    from mixlib.core.seeding import generator

    X, y = two_classes
    repeats = [_labelled(X, y, 0), _labelled(X[:40], y[:40], 1)]
    table = kernel_map_job(repeats, seed=4, split="s", dataset="d", n_components=2, em=EMSettings(tol=1e-5))
    direct = kernel_map(repeats[0], n_components=2, em=EMSettings(tol=1e-5),
                        rng=generator(4, "kernel_map", "s", 0))
    pd.testing.assert_frame_equal(table, direct.assign(split="s", dataset="d")[["split", "dataset", *direct.columns]])


def test_imputation_study_table():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (25, 3)), rng.normal(2, 1, (25, 3))])
    y = np.repeat([0, 1], 25)
    settings = dict(rates=[0.0, 0.2], methods=["mean", "class_mean", "kernel_mode"],
                    kernels_per_feature=[2], em=EM, n_repeats=2, rng=3, test_fraction=0.3,
                    classifier_components=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = imputation_study(X, y, **settings)
        again = imputation_study(X, y, **settings)
    pd.testing.assert_frame_equal(table, again)
    assert set(table["method"]) == {"mean", "class_mean", "kernel_mode:2"}
    assert list(table.columns) == ["repeat", "missing_rate", "method", "metric", "value", "n_hidden"]
    errors = table[table["metric"] == "test_error"]
    assert len(errors) == 2 * 2 * 3 and errors["value"].between(0, 1).all()
    assert set(table.loc[table["missing_rate"] == 0.0, "metric"]) == {"test_error"}
    rmse = table[table["metric"].str.startswith("rmse")]
    assert (rmse["value"] > 0).all() and (rmse["n_hidden"] > 0).all()
    # the same mask for every method; class-free mean = class mean on test rows (no labels)
    by = table.set_index(["repeat", "missing_rate", "method", "metric"])["value"]
    for repeat in (0, 1):
        assert by[(repeat, 0.2, "mean", "rmse_test")] == pytest.approx(by[(repeat, 0.2, "class_mean", "rmse_test")])
    # every repeat is a unit of the resampling protocol: round(0.3 * 50) = 15 test rows, the
    # classes in proportion (8 + 7 or 7 + 8), standardised on its training rows, whose
    # generator then draws the (empty) mask and the classifier's start
    units = [standardised(unit) for unit in holdout_units(X, y, 0.3, 2, 3)]
    assert [len(unit.y_test) for unit in units] == [15, 15]
    assert all(sorted(np.bincount(unit.y_test).tolist()) == [7, 8] for unit in units)
    for unit in units:
        unit.rng.random((50, 3))  # the rate-0 mask
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            make_imputer("mean", em=EM, kernels_per_feature=None, random_state=unit.rng)
            clf = make_mixture(1, EM, unit.rng).fit(unit.X_train, unit.y_train)
        expected = np.mean(clf.predict(unit.X_test) != unit.y_test)
        assert by[(unit.repeat, 0.0, "mean", "test_error")] == pytest.approx(expected, abs=0)
    # the complete-data error does not depend on the (absent) imputation
    assert errors[errors["missing_rate"] == 0.0].groupby("repeat")["value"].nunique().eq(1).all()


def test_mcar_mask_keeps_an_observed_training_value_of_every_feature():
    train = np.arange(50) < 35
    for seed in range(20):
        hidden = mcar_mask((50, 6), 0.999999, train, np.random.default_rng(seed))
        assert (~hidden[train]).sum(axis=0).tolist() == [1] * 6  # exactly the one kept
        assert hidden[~train].all()  # test rows are not touched


def test_mcar_mask_is_the_plain_draw_when_every_feature_keeps_a_value():
    train = np.arange(40) < 30
    hidden = mcar_mask((40, 5), 0.3, train, np.random.default_rng(4))
    np.testing.assert_array_equal(hidden, np.random.default_rng(4).random((40, 5)) < 0.3)


def test_imputation_study_runs_at_rate_099_on_the_shipped_wine():
    """``missing_rates: [0.99]`` runs to finite errors, even where a feature of the training
    rows is fully hidden and there is nothing to impute it from."""
    from mixlib.experiments.preparation import fetch_dataset, prepare_dataset

    spec = {"source": "bundled"}
    prepared = prepare_dataset(fetch_dataset("wine", spec), "wine", spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # class-free fallback of classes left without a value
        table = imputation_study_job(
            prepared, rate=0.99, methods=["mean", "class_mean", "kernel_mode"],
            kernels_per_feature=[2], em=EM, n_repeats=3, test_fraction=0.3, classifier_components=2,
            seed=20061,
            dataset="wine")
    assert np.isfinite(table["value"]).all()
    errors = table[table["metric"] == "test_error"]
    assert len(errors) == 3 * 3 and errors["value"].between(0, 1).all()
    # nearly every cell hidden: at most one kept per feature beyond the draw's own
    assert (errors["n_hidden"] > 0.97 * prepared.shape[0] * 13).all()


def test_imputation_study_errors():
    X, y = np.ones((10, 2)), np.repeat([0, 1], 5)
    common = dict(kernels_per_feature=[2], em=EM, n_repeats=1, rng=0, test_fraction=0.3,
                  classifier_components=2)
    with pytest.raises(ValueError, match="Unknown imputation method 'median'"):
        imputation_study(X, y, rates=[0.1], methods=["median"], **common)
    with pytest.raises(ValueError, match="Unknown imputation method 'kernel_mode:2'"):
        imputation_study(X, y, rates=[0.1], methods=["kernel_mode:2"], **common)
    with pytest.raises(ValueError, match=r"missing rates must lie in \[0, 1\), got 1.5"):
        imputation_study(X, y, rates=[1.5], methods=["mean"], **common)
    with pytest.raises(ValueError, match=r"imputation_study.test_fraction must be a number in "
                                         r"\(0, 1\), got 1.0"):
        imputation_study(X, y, rates=[0.1], methods=["mean"], **{**common, "test_fraction": 1.0})
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X_complete contains NaN"):
        imputation_study(X, y, rates=[0.1], methods=["mean"], **common)


def test_make_imputer_builds_kernel_mode_from_the_em_settings_only():
    imputer = make_imputer("kernel_mode", em=EM._replace(tol=1e-3, max_iter=50),
                           kernels_per_feature=3, random_state=np.random.default_rng(0))
    assert (imputer.n_components, imputer.tol, imputer.max_iter) == (3, 1e-3, 50)
    relative = make_imputer("kernel_mode", kernels_per_feature=2, random_state=0,
                            em=EMSettings(init="report", tol=1e-6, max_iter=200,
                                          relative_min_variance=0.01))
    assert relative.relative_min_variance == 0.01
    with pytest.raises(ValueError, match="kernel_mode imputer fits mixtures by EM: it needs"):
        make_imputer("kernel_mode", kernels_per_feature=3, random_state=0)
    assert type(make_imputer("mean")).__name__ == "MeanImputer"


def test_imputer_variants_expand_kernel_mode_over_its_kernel_counts():
    assert imputer_variants(["mean", "kernel_mode", "class_mean"], [2, 4]) == [
        ("mean", "mean", None), ("kernel_mode:2", "kernel_mode", 2),
        ("kernel_mode:4", "kernel_mode", 4), ("class_mean", "class_mean", None)]


def test_figures_draw_from_the_tables(two_classes):
    X, y = two_classes
    one_split = {"split": "s", "dataset": "d"}
    fig = fig3_3(_traces(X, y, 0, n_repeats=2).assign(**one_split), confidence_level=0.95)
    assert isinstance(fig, Figure) and fig.axes[0].get_xlabel() == "EM iteration"
    fig = fig3_4(kernel_map(_labelled(X, y), n_components=2, em=EM, rng=0).assign(**one_split))
    circles = [p for p in fig.axes[0].patches if isinstance(p, Circle)]
    assert len(circles) == 4
    table = pd.DataFrame({
        "repeat": [0, 1] * 6, "missing_rate": [0.1] * 6 + [0.2] * 6,
        "method": ["mean", "mean", "kernel_mode:2", "kernel_mode:2"] * 3,
        "metric": (["rmse_test"] * 4 + ["mae_test"] * 4 + ["test_error"] * 4)[:12],
        "value": np.linspace(0.1, 0.9, 12),
    })
    fig = imputation_figure(table, confidence_level=0.95)
    assert len(fig.axes) == 3 and all(len(ax.lines) >= 1 for ax in fig.axes)


def test_em_trace_jobs_stack_the_stage_functions_tables_bit_for_bit(two_classes):
    """The jobs run em_trace's columnar twin and stack once; their rows are em_trace's
    DataFrames (one per repeat, every class's rows in it) with the label columns, value for
    value and dtype for dtype, a collapsed class (NaN nondegenerate_gap) among them."""
    from mixlib.core.seeding import generator
    from mixlib.experiments.mixture import em_trace_floor_job, em_trace_job

    X, y = two_classes
    repeats = [_labelled(X, y, r) for r in range(3)]
    params = {"n_components": 4, "em": EMSettings(tol=1e-5, relative_min_variance=1e-3),
              "n_restarts": 2}
    job = em_trace_job(repeats, seed=6, split="s", dataset="d", first=3, needed=0, **params)
    floors = em_trace_floor_job(repeats, seed=6, split="s", dataset="d", floors=[1e-3, 0.2],
                                **{**params, "em": EMSettings(tol=1e-5)})
    for table, keys, floor in [(job, ("em_trace", "s"), None),
                               (floors[floors["relative_min_variance"] == 1e-3], ("em_trace_sensitivity", "s"), 1e-3),
                               (floors[floors["relative_min_variance"] == 0.2], ("em_trace_sensitivity", "s"), 0.2)]:
        em = params["em"] if floor is None else EMSettings(tol=1e-5).with_relative_floor(floor)
        frames = [em_trace(data, **{**params, "em": em}, rng=generator(6, *keys, data.repeat))
                  .assign(split="s", dataset="d", repeat=data.repeat) for data in repeats]
        expected = pd.concat(frames, ignore_index=True)
        expected = expected[["split", "dataset", "repeat", *frames[0].columns[:-3]]]
        if floor is not None:
            expected = expected.assign(relative_min_variance=floor)
        pd.testing.assert_frame_equal(table.reset_index(drop=True), expected, check_exact=True)
    assert job["nondegenerate_gap"].isna().any() and job["converged"].dtype == bool
    assert [str(job[c].dtype) for c in ("class", "n_components", "iteration", "collapsed")] == \
        [str(pd.Series(["a"]).dtype), "int64", "int64", "int64"]
