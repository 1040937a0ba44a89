"""Tests of the pipeline units of mixlib.experiments.semisupervised and semisupervised_sweep
(figs. 5.1, 5.3-5.5), and of the DNA stage (fig. 6.1)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from mixlib.core.exceptions import ConvergenceWarning
from mixlib.experiments.contract import RepeatData
from mixlib.experiments.dna import dna_kernel_job, dna_kernel_point
from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings
from mixlib.experiments.semisupervised import METHODS, semisupervised_rounds
from mixlib.experiments.semisupervised_sweep import kernel_sweep_point
from mixlib.mixture.gaussian_mixture import MixtureClassifier


@pytest.fixture(autouse=True)
def _quiet_em():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def tiny_problem(seed=0):
    """Repeat 0 of 12 labelled, 60 unlabelled, 40 test rows of two 3-d classes with string labels."""
    rng = np.random.default_rng(seed)

    def draw(n):
        y = rng.integers(0, 2, n)
        return rng.normal(size=(n, 3)) + 2.0 * y[:, None], np.array(["neg", "pos"])[y]

    X_l, y_l = draw(12)
    y_l[:2] = ["neg", "pos"]
    X_u, y_u = draw(60)
    X_t, y_t = draw(40)
    return RepeatData.of(0, labelled=(X_l, y_l), unlabelled=(X_u, y_u), test=(X_t, y_t))


EM = EMSettings(tol=1e-5)
SETTINGS = SemiSupervisedSettings(threshold=0.8, max_rounds=6)


ROUNDS_COLUMNS = ["method", "n_components", "restart", "finish", "threshold", "round", "metric",
                  "unclassifiable", "value"]
RULE_METRICS = {"hard_error", "unknown_error", "test_hard_error", "test_unknown_error", "test_error"}


@pytest.mark.parametrize("method, own_metric", [("iterative", "unknown"), ("prior", "flips")])
def test_semisupervised_rounds_table(method, own_metric):
    table = semisupervised_rounds(tiny_problem(), method=method, n_components=2, em=EM, settings=SETTINGS,
                                  rng=np.random.default_rng(1))
    assert list(table.columns) == ROUNDS_COLUMNS
    assert (table["method"] == method).all() and (table["n_components"] == 2).all()
    assert (table["threshold"] == 0.8).all()
    assert set(table[["restart", "finish"]].iloc[0]) == {"any", "warm" if method == "prior" else "argmax"}
    by_rule = table[table["unclassifiable"] != "any"]
    assert set(by_rule["metric"]) == RULE_METRICS
    assert set(by_rule["unclassifiable"]) == {"confidence", "underflow"}
    free = {own_metric, "pseudo_label_error", "n_rounds", "collapsed_kernels", "effective_components:neg",
            "effective_components:pos"}
    free |= ({"n_argmax", "unassigned_by_margin"} if method == "iterative"
             else {"migrant_share", "migrant_margin", "resident_margin"})
    assert set(table.loc[table["unclassifiable"] == "any", "metric"]) == free
    counts = table["metric"].isin(["n_rounds", "n_argmax", "collapsed_kernels"]) | table["metric"].str.startswith(
        "effective_components")
    assert table.loc[~counts, "value"].dropna().between(0, 1).all()
    assert (table.loc[table["metric"].str.startswith("effective_components:"), "value"] == 2).all()
    last = int(table.loc[table["metric"] == "n_rounds", "value"].item())
    assert table["round"].max() == last and last <= SETTINGS.max_rounds + 1
    for rule in ("confidence", "underflow"):
        wide = by_rule[by_rule["unclassifiable"] == rule].pivot(index="round", columns="metric", values="value")
        np.testing.assert_allclose(wide["test_error"], wide["test_hard_error"] + wide["test_unknown_error"])
    own = table[table["metric"] == own_metric].set_index("round")["value"]
    if method == "iterative":
        assert own.loc[0] == 1.0 and np.all(np.diff(own) <= 0) and own.iloc[-1] == 0.0
    else:
        assert 0 not in own.index and own.iloc[-1] == 0.0


def test_rounds_settings_reach_the_methods_and_the_table():
    settings = SETTINGS.replaced(restart="fresh", finish="stop", unclassifiable=["confidence"])
    prior = semisupervised_rounds(tiny_problem(), method="prior", n_components=2, em=EM, settings=settings,
                                  rng=1)
    assert set(prior["restart"]) == {"fresh"} and set(prior["finish"]) == {"any"}
    assert set(prior["unclassifiable"]) == {"confidence", "any"}
    warm = semisupervised_rounds(tiny_problem(), method="prior", n_components=2, em=EM, settings=SETTINGS, rng=1)
    assert not warm["value"].equals(prior["value"])
    iterative = semisupervised_rounds(tiny_problem(), method="iterative", n_components=2, em=EM,
                                      settings=settings.replaced(threshold=0.99), rng=1)
    assert set(iterative["finish"]) == {"stop"}
    assert iterative.loc[iterative["metric"] == "n_argmax", "value"].item() == 0.0
    left = iterative.loc[iterative["metric"] == "unknown", "value"].iloc[-1]
    assert left > 0
    # The share the margin never assigns is the unknowns left by "stop" and those "argmax"
    # forces in its last round: the same runs up to that round, so the same share.
    assert iterative.loc[iterative["metric"] == "unassigned_by_margin", "value"].item() == left
    forced = semisupervised_rounds(tiny_problem(), method="iterative", n_components=2,
                                   em=EM, settings=settings.replaced(threshold=0.99, finish="argmax"), rng=1)
    assert forced.loc[forced["metric"] == "unknown", "value"].iloc[-1] == 0.0
    n_unlabelled = len(tiny_problem()["unlabelled"].y)
    assert forced.loc[forced["metric"] == "n_argmax", "value"].item() == pytest.approx(left * n_unlabelled)
    assert forced.loc[forced["metric"] == "unassigned_by_margin", "value"].item() == left


def test_migrations_and_margins_match_a_hand_count():
    from mixlib.catalogue.registry import seeded_classifier
    from mixlib.experiments.semisupervised import posterior_margin
    from mixlib.semi_supervised import prior_probability_classification

    problem = tiny_problem(4)
    settings = SETTINGS.replaced(threshold=0.6)
    table = semisupervised_rounds(problem, method="prior", n_components=2, em=EM, settings=settings, rng=7)
    values = table[table["unclassifiable"] == "any"].drop_duplicates("metric", keep="last").set_index("metric")["value"]
    # The same fit by hand, recording each round's argmax classes of the unlabelled rows.
    X_u = problem["unlabelled"].X
    classes = []
    fitted = prior_probability_classification(
        *problem["labelled"], X_u, estimator=seeded_classifier(2, EM, np.random.default_rng(7)),
        max_iter=settings.max_rounds, callback=lambda state: classes.append(
            state.estimator.predict_proba(X_u).argmax(axis=1)))
    moved = np.any(np.diff(np.array(classes), axis=0) != 0, axis=0)
    margin = np.sort(fitted.predict_proba(X_u), axis=1)
    margin = margin[:, -1] - margin[:, -2]
    assert values["migrant_share"] == pytest.approx(moved.mean())
    assert values["resident_margin"] == pytest.approx(margin[~moved].mean())
    if moved.any():
        assert values["migrant_margin"] == pytest.approx(margin[moved].mean())
    np.testing.assert_allclose(posterior_margin(fitted.estimator_, X_u), margin)


def test_posterior_margin_is_zero_on_a_tie_and_one_far_inside():
    problem = tiny_problem()
    model = MixtureClassifier(1, random_state=0).fit(*problem["labelled"])
    far = np.array([[-40.0, -40.0, -40.0], [40.0, 40.0, 40.0]])
    from mixlib.experiments.semisupervised import posterior_margin

    assert posterior_margin(model, far) == pytest.approx([1.0, 1.0])
    # Where the two class densities are equal the posteriors tie: a point on the boundary.
    line = np.linspace(-3, 5, 2001)[:, None] * np.ones((1, 3))
    margins = posterior_margin(model, line)
    assert margins.min() < 1e-2 and np.all((margins >= 0) & (margins <= 1))


@pytest.mark.parametrize("method", ["iterative", "prior"])
def test_semisupervised_rounds_deterministic_from_seed(method):
    first = semisupervised_rounds(tiny_problem(), method=method, n_components=2, em=EM, settings=SETTINGS,
                                  rng=np.random.default_rng(5))
    second = semisupervised_rounds(tiny_problem(), method=method, n_components=2, em=EM, settings=SETTINGS, rng=5)
    pd.testing.assert_frame_equal(first, second)


def test_semisupervised_rounds_rejects_unknown_method():
    with pytest.raises(ValueError, match="method must be 'iterative' or 'prior', got 'labelled_only'"):
        semisupervised_rounds(tiny_problem(), method="labelled_only", n_components=2, em=EM, settings=SETTINGS,
                              rng=0)


def _values(table, rule="underflow"):
    return table[table["unclassifiable"].isin([rule, "any"])].set_index("metric")["value"]


@pytest.mark.parametrize("method", METHODS)
def test_kernel_sweep_point_table(method):
    table = kernel_sweep_point(tiny_problem(), method=method, n_components=2, em=EM, settings=SETTINGS,
                               rng=np.random.default_rng(3))
    assert list(table.columns) == ["method", "n_components", "restart", "finish", "threshold", "metric",
                                   "unclassifiable", "value"]
    for rule in ("confidence", "underflow"):
        values = _values(table, rule)
        for name in ("train_error", "test_error", "train_hard_error", "test_unknown_error"):
            assert 0 <= values[name] <= 1
        assert values["train_error"] == pytest.approx(values["train_hard_error"] + values["train_unknown_error"])
    values = _values(table)
    assert values["effective_components"] == 2.0
    assert values["effective_components:neg"] == values["effective_components:pos"] == 2.0
    assert 0 <= values["collapsed_kernels"] <= 2
    assert ("pseudo_label_error" in values) == (method != "labelled_only")
    again = kernel_sweep_point(tiny_problem(), method=method, n_components=2, em=EM, settings=SETTINGS,
                               rng=np.random.default_rng(3))
    pd.testing.assert_frame_equal(table, again)


def test_labelled_only_point_is_round_zero_of_both_methods():
    problem = tiny_problem(2)
    (X_l, y_l), (X_t, y_t) = problem["labelled"], problem["test"]
    point = _values(kernel_sweep_point(problem, method="labelled_only", n_components=3, em=EM, settings=SETTINGS,
                                       rng=np.random.default_rng(9)))
    # The reference: a MixtureClassifier with the one seed the experiment draws from its rng.
    seed = int(np.random.default_rng(9).integers(2**32))
    reference = MixtureClassifier(3, tol=1e-5, random_state=seed).fit(X_l, y_l)
    # Nothing underflows on these data: under that rule the error is the share misclassified.
    assert point["test_error"] == pytest.approx(1 - reference.score(X_t, y_t))
    assert point["train_error"] == pytest.approx(1 - reference.score(X_l, y_l))
    for method in ("iterative", "prior"):
        rounds = semisupervised_rounds(problem, method=method, n_components=3, em=EM, settings=SETTINGS,
                                       rng=np.random.default_rng(9))
        first = _values(rounds[rounds["round"] == 0])
        assert first["test_error"] == pytest.approx(point["test_error"])
        assert first["hard_error"] + first["unknown_error"] == pytest.approx(point["train_error"])


def test_kernel_sweep_point_caps_kernels_at_class_size():
    with pytest.warns(UserWarning, match="fewer than n_components=32"):
        table = kernel_sweep_point(tiny_problem(), method="labelled_only", n_components=32, em=EM, settings=SETTINGS,
                                   rng=0)
    values = _values(table)
    assert values["effective_components"] < 32
    # Each class fits one kernel per distinct labelled example of it.
    _, y = tiny_problem()["labelled"]
    for label in ("neg", "pos"):
        assert values[f"effective_components:{label}"] == np.sum(y == label)
    assert values["train_error"] == 0.0  # one kernel on every labelled example
    # ... each at the variance floor: collapse, now counted.
    assert values["collapsed_kernels"] == values["effective_components"]


def test_dna_kernel_point_table_and_live_kernels():
    rng = np.random.default_rng(0)
    # A miniature "DNA": 20 one-hot bases (80 features), 3 classes told apart by 2 bases.
    n = 150
    y = rng.integers(0, 3, n)
    bases = rng.integers(0, 4, (n, 20))
    bases[:, 5] = np.where(rng.random(n) < 0.8, y, bases[:, 5])
    bases[:, 6] = np.where(rng.random(n) < 0.8, y, bases[:, 6])
    X = np.eye(4)[bases].reshape(n, -1)
    labels = np.array(["EI", "IE", "N"])[y]
    data = RepeatData.of(0, train=(X[:100], labels[:100]), test=(X[100:], labels[100:]))
    table = dna_kernel_point(data, n_components=8, em=EMSettings(), rng=np.random.default_rng(1))
    assert list(table.columns) == ["n_components", "class", "metric", "value"]
    overall = table[table["class"] == "all"].set_index("metric")["value"]
    assert set(overall.index) == {"train_error", "test_error", "train_hard_error", "test_hard_error",
                                  "test_unknown_error", "fit_seconds", "fit_cpu_seconds"}
    timings = ["fit_seconds", "fit_cpu_seconds"]
    assert overall.drop(timings).between(0, 1).all() and overall["test_error"] < 2 / 3
    assert (overall[timings] > 0).all()
    per_class = table[table["class"] != "all"].pivot(index="class", columns="metric", values="value")
    assert per_class.index.tolist() == ["EI", "IE", "N"]
    assert ((per_class["live_kernels"] >= 1) & (per_class["live_kernels"] <= per_class["effective_components"])).all()
    seed = int(np.random.default_rng(1).integers(2**32))
    reference = MixtureClassifier(8, random_state=seed).fit(X[:100], labels[:100])
    expected = [np.sum(m.weights_ > 1e-6) for m in reference.mixtures_]
    assert per_class["live_kernels"].tolist() == expected
    assert (per_class["collapsed_kernels"] <= per_class["live_kernels"]).all()
    assert overall["test_error"] == pytest.approx(1 - reference.score(X[100:], labels[100:]))


# ---------------------------------------------------------------------------- figures
def test_fig6_1_draws_means_against_kernels():
    from mixlib.figures.kernel_sweep import fig6_1

    problem = tiny_problem()
    repeats = [RepeatData.of(r, train=problem["labelled"], test=problem["test"]) for r in range(2)]
    dna = dna_kernel_job(repeats, seed=0, split="s", encoding="onehot", kernel_counts=[1, 2],
                         em=EMSettings(), dataset="d")
    assert (dna["dataset"] == "d").all()
    # A count's rows are those of a job at that count alone (its own stream), timing aside.
    alone = dna_kernel_job(repeats, seed=0, split="s", encoding="onehot", kernel_counts=[2],
                           em=EMSettings(), dataset="d")
    untimed = ~dna["metric"].str.endswith("_seconds")
    pd.testing.assert_frame_equal(dna[untimed & (dna["n_components"] == 2)].reset_index(drop=True),
                                  alone[~alone["metric"].str.endswith("_seconds")].reset_index(drop=True))
    dna = dna.drop(columns=["split", "encoding"])  # one encoding: curves without its name
    fig = fig6_1(dna, confidence_level=0.95)
    ax, ax_live, ax_collapsed = fig.axes
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["test error", "training error", "report: 20 %"]
    assert ax.get_lines()[2].get_ydata()[0] == 20.0
    expected = dna[(dna["metric"] == "test_error")].groupby("n_components")["value"].mean()
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), 100 * expected.to_numpy())
    live_labels = [line.get_label() for line in ax_live.get_lines()]
    assert {"class neg", "class pos", "all alive"} <= set(live_labels)


# ---------------------------------------------------------------------------- sensitivity study
def test_a_grid_floor_replaces_the_study_floor():
    """A grid point's EM settings: the study's, with its relative floor instead of theirs."""
    assert EMSettings(tol=1e-5, min_variance=1e-6).with_relative_floor(1e-6) == EMSettings(
        tol=1e-5, relative_min_variance=1e-6)
    assert EMSettings(relative_min_variance=0.1).with_relative_floor(0.25) == EMSettings(
        relative_min_variance=0.25)
    with pytest.raises(ValueError, match=r"^em\.relative_min_variance: "):
        EMSettings().with_relative_floor(0.0)


def test_sensitivity_job_runs_every_finish_and_restart():
    from mixlib.core.seeding import generator
    from mixlib.experiments.semisupervised_readings import sensitivity_job

    problem = tiny_problem()
    repeats = [RepeatData(r, problem.roles) for r in range(2)]
    em, settings = EM.with_relative_floor(1e-2), SETTINGS.replaced(threshold=0.6)
    def run(thresholds=(0.6,)):
        return sensitivity_job(repeats, seed=3, split="s", dataset="d", n_components=2, em=EM,
                               settings=SETTINGS, floors=[1e-2], thresholds=thresholds,
                               restarts=["warm", "fresh"], finishes=["argmax", "stop"])

    table = run()
    assert list(table.columns[:8]) == ["split", "dataset", "method", "n_components", "restart", "finish",
                                      "threshold", "relative_min_variance"]
    assert table.columns[-1] == "repeat"
    assert set(map(tuple, table[["method", "restart", "finish"]].drop_duplicates().to_numpy())) == {
        ("iterative", "any", "argmax"), ("iterative", "any", "stop"), ("prior", "warm", "any"),
        ("prior", "fresh", "any")}
    assert (table["relative_min_variance"] == 1e-2).all() and (table["threshold"] == 0.6).all()
    assert set(table["repeat"]) == {0, 1}
    # The same point again gives the same table (seeded by the job's identity).
    pd.testing.assert_frame_equal(table, run())
    # Both prior restarts start from the same initialisations: the prior stream of repeat 1.
    fresh = semisupervised_rounds(repeats[1], method="prior", n_components=2,
                                  em=em, settings=settings.replaced(restart="fresh"),
                                  setting_columns=("relative_min_variance",),
                                  rng=generator(3, "semisupervised_sensitivity", "s", "prior", 1))
    mine = table[(table["restart"] == "fresh") & (table["repeat"] == 1)]
    np.testing.assert_array_equal(mine["value"].to_numpy(), fresh["value"].to_numpy())
    # Both finishes run the same rounds until the last: the margin leaves the same unknowns.
    unassigned = table[table["metric"] == "unassigned_by_margin"].pivot(index="repeat", columns="finish",
                                                                       values="value")
    np.testing.assert_array_equal(unassigned["argmax"], unassigned["stop"])


def test_sensitivity_job_thresholds_are_the_jobs_of_one_threshold_each():
    """A job runs every threshold of its floor; each threshold's block is the table of a job
    with that threshold alone (fits shared through the memo change nothing), in order."""
    from mixlib.experiments.semisupervised import FITS
    from mixlib.experiments.semisupervised_readings import sensitivity_job

    problem = tiny_problem(3)
    repeats = [RepeatData(r, problem.roles) for r in range(2)]

    def run(thresholds):
        return sensitivity_job(repeats, seed=8, split="s", dataset="d", n_components=2, em=EM,
                               settings=SETTINGS, floors=[1e-2], thresholds=thresholds,
                               restarts=["warm", "fresh"],
                               finishes=["argmax", "stop"])

    alone = {}
    for threshold in (0.55, 0.9):
        FITS._fits.clear()
        alone[threshold] = run([threshold])
    FITS._fits.clear()
    hits = FITS.hits
    both = run([0.9, 0.55])
    assert FITS.hits > hits  # the second threshold found fits of the first in the memo
    pd.testing.assert_frame_equal(both, pd.concat([alone[0.9], alone[0.55]], ignore_index=True))
    assert list(both["threshold"].drop_duplicates()) == [0.9, 0.55]
    # The prior method's fit does not use the threshold: its rounds are the same at both.
    fits = both[(both["method"] == "prior") & both["metric"].isin(["n_rounds", "flips"])]
    assert len(fits) > 0
    assert fits.groupby(["restart", "repeat", "round", "metric"])["value"].nunique().eq(1).all()


def test_grid_jobs_floors_are_the_jobs_of_one_floor_each():
    """A grid job runs every variance floor of the split in turn: each floor's block is the
    job of that floor alone, carries the config's very value (two close floors stay two
    readings), and the blocks follow the order of the floors."""
    from mixlib.experiments.semisupervised_readings import kernel_sweep_reading_job, sensitivity_job

    problem = tiny_problem(4)
    repeats = [RepeatData(r, problem.roles) for r in range(2)]
    floors = [0.0100001, 1e-2]
    common = {"seed": 9, "split": "s", "dataset": "d", "em": EM, "thresholds": [0.7, 0.9],
              "restarts": ["warm"], "finishes": ["argmax", "stop"]}
    jobs = [(sensitivity_job, {"n_components": 2, "settings": SETTINGS}),
            (kernel_sweep_reading_job, {"kernel_counts": [1, 2], "settings": SETTINGS})]
    for job, params in jobs:
        table = job(repeats, floors=floors, **common, **params)
        assert list(table["relative_min_variance"].drop_duplicates()) == floors
        alone = [job(repeats, floors=[floor], **common, **params) for floor in floors]
        pd.testing.assert_frame_equal(table, pd.concat(alone, ignore_index=True))


def test_kernel_sweep_point_scores_one_fit_at_every_threshold():
    problem = tiny_problem(1)
    for method in ("labelled_only", "prior"):
        grid = kernel_sweep_point(problem, method=method, n_components=2, em=EM, settings=SETTINGS, thresholds=[0.6, 0.9],
                                  rng=4)
        assert sorted(grid["threshold"].unique()) == [0.6, 0.9]
        for threshold in (0.6, 0.9):
            alone = kernel_sweep_point(problem, method=method, n_components=2,
                                       em=EM, settings=SETTINGS.replaced(threshold=threshold), rng=4)
            mine = grid[grid["threshold"] == threshold].reset_index(drop=True)
            pd.testing.assert_frame_equal(mine, alone)
    with pytest.raises(ValueError, match="not for the iterative method"):
        kernel_sweep_point(problem, method="iterative", n_components=2, em=EM, settings=SETTINGS, thresholds=[0.6], rng=4)


def test_kernel_sweep_reading_job_covers_every_reading():
    from mixlib.experiments.semisupervised_readings import kernel_sweep_reading_job

    problem = tiny_problem()
    repeats = [RepeatData(r, problem.roles) for r in range(2)]
    table = kernel_sweep_reading_job(repeats, seed=2, split="s", dataset="d", kernel_counts=[1, 2],
                                     em=EM, settings=SETTINGS, floors=[0.25],
                                     thresholds=[0.6, 0.9], restarts=["warm", "fresh"],
                                     finishes=["argmax", "stop"])
    assert list(table.columns[:2]) == ["split", "dataset"]
    assert list(table.columns[-2:]) == ["repeat", "relative_min_variance"]
    assert (table["relative_min_variance"] == 0.25).all()
    variants = set(map(tuple, table[["method", "restart", "finish", "threshold", "n_components"]]
                       .drop_duplicates().to_numpy()))
    expected = {(m, r, f, t, k) for k in (1, 2) for t in (0.6, 0.9)
                for m, r, f in [("labelled_only", "any", "any"), ("prior", "warm", "any"), ("prior", "fresh", "any"),
                                ("iterative", "any", "argmax"), ("iterative", "any", "stop")]}
    assert variants == expected
    # One fit per (method, K), scored at each threshold: the threshold-free metrics agree.
    free = table[(table["method"] == "prior") & (table["metric"] == "n_rounds")]
    assert free.groupby(["restart", "n_components", "repeat"])["value"].nunique().eq(1).all()


def test_the_supervised_scores_do_not_use_the_semisupervised_rules():
    """Fig. 6.1 is scored by the classifier's own decision: neither the DNA stage nor the
    shared mixture scores import the semi-supervised package."""
    import ast
    import inspect

    from mixlib.experiments import dna, mixture_errors

    for module in (dna, mixture_errors):
        imported = [node.module for node in ast.walk(ast.parse(inspect.getsource(module)))
                    if isinstance(node, ast.ImportFrom)]
        assert not [name for name in imported if name.startswith("mixlib.semi_supervised")], module


def test_finish_pairs_give_the_tables_of_one_run_per_finish():
    """The grid fits the iterative method once for both finishes (FinishPair); its tables are
    those of one fit per finish (a job with a single finish shares nothing), value for value
    and row for row."""
    from mixlib.experiments.semisupervised_readings import kernel_sweep_reading_job, sensitivity_job

    problem = tiny_problem(2)
    repeats = [RepeatData(r, problem.roles) for r in range(3)]
    settings = SETTINGS.replaced(threshold=0.95, max_rounds=2)

    def rounds(restarts, finishes):
        return sensitivity_job(repeats, seed=5, split="s", dataset="d", n_components=2, em=EM,
                               settings=settings, floors=[1e-2], thresholds=[settings.threshold],
                               restarts=restarts, finishes=finishes)

    table = rounds(["warm"], ["argmax", "stop"])
    alone = pd.concat([rounds([], ["argmax"]), rounds([], ["stop"]), rounds(["warm"], [])], ignore_index=True)
    pd.testing.assert_frame_equal(table, alone)
    # The finishes part ways: the argmax fits assigned some unknowns by argmax.
    argmax = table[(table["finish"] == "argmax") & (table["metric"] == "n_argmax")]
    assert (argmax["value"] > 0).any()

    def sweep(finishes):
        table = kernel_sweep_reading_job(repeats, seed=6, split="s", dataset="d", kernel_counts=[1, 3], em=EM,
                                         settings=settings, floors=[1e-2], thresholds=[0.9, 0.99],
                                         restarts=["warm"],
                                         finishes=finishes)
        return table[table["method"] == "iterative"]

    swept = sweep(["stop", "argmax"])
    for finish in ("stop", "argmax"):
        pd.testing.assert_frame_equal(swept[swept["finish"] == finish].reset_index(drop=True),
                                      sweep([finish]).reset_index(drop=True))
    rounds_run = swept[swept["metric"] == "n_rounds"]
    assert rounds_run.groupby("finish")["value"].sum().pipe(lambda s: s["argmax"] > s["stop"])


def test_a_single_finish_needs_no_pair():
    from mixlib.experiments.semisupervised_readings import FinishPair

    assert FinishPair.of(["argmax", "argmax"], semisupervised_rounds) is None
    assert FinishPair.of(["stop"], semisupervised_rounds) is None
    assert isinstance(FinishPair.of(["argmax", "stop"], semisupervised_rounds), FinishPair)


def test_a_kernel_sweep_curve_draws_each_kernel_count_from_its_own_stream():
    """One job runs every method and kernel count of a split; the rows of a (method, count)
    do not depend on the others, and come in method-then-count order."""
    from mixlib.experiments.semisupervised_sweep import kernel_sweep_job

    repeats = [RepeatData(r, tiny_problem().roles) for r in range(2)]

    def curve(methods, counts):
        return kernel_sweep_job(repeats, seed=8, split="s", dataset="d", methods=methods,
                                kernel_counts=counts, em=EM, settings=SETTINGS)

    both = curve(["iterative", "prior"], [1, 2])
    assert both[["method", "n_components"]].drop_duplicates().apply(tuple, axis=1).tolist() == [
        ("iterative", 1), ("iterative", 2), ("prior", 1), ("prior", 2)]
    pd.testing.assert_frame_equal(both[(both["method"] == "prior") & (both["n_components"] == 2)]
                                  .reset_index(drop=True), curve(["prior"], [2]))


def test_a_rounds_job_stacks_its_methods_each_as_run_alone():
    """One job runs every method of a split: each method's block is its table alone, with its
    own count of repeats (the prior method runs on until enough repeats have migrants)."""
    from mixlib.experiments.semisupervised import rounds_job

    repeats = [RepeatData(r, tiny_problem(4).roles) for r in range(4)]

    def job(methods):
        return rounds_job(repeats, seed=9, split="s", dataset="d", methods=methods,
                          n_components=2, em=EM, settings=SETTINGS, first=2, needed=2)

    both = job(["iterative", "prior"])
    assert list(both["method"].drop_duplicates()) == ["iterative", "prior"]
    alone = pd.concat([job(["iterative"]), job(["prior"])], ignore_index=True)
    pd.testing.assert_frame_equal(both, alone)


def test_dna_kernel_point_warms_up_the_same_classifier_once_per_process(monkeypatch):
    """An untimed fit of the same classifier on a few rows comes before the process's first
    point, so the first repeat's fit_seconds does not carry the compiled EM loop's loading;
    the later points (other kernel counts too) do not fit it again, other EM settings do.
    The timed fit is unchanged (the test above compares it with a reference fit)."""
    import mixlib.experiments.dna as stage
    from mixlib.model_selection import resampling

    built, original = [], resampling.warm_up

    def recording_warm_up(build, X, y):
        built.append(build(X, np.random.default_rng(0)))
        original(build, X, y)

    monkeypatch.setattr(resampling, "warm_up", recording_warm_up)
    monkeypatch.setattr(resampling, "_WARMED", set())
    data = tiny_problem()
    X, y = data["labelled"]
    for k, tol in [(3, 1e-4), (2, 1e-4), (3, 1e-4), (3, 1e-3)]:
        stage.dna_kernel_point(RepeatData.of(0, train=(X, y), test=data["test"]), n_components=k,
                               em=EMSettings(tol=tol), rng=np.random.default_rng(1))
    assert [type(model) for model in built] == [MixtureClassifier] * 2
    assert [(model.n_components, model.tol) for model in built] == [(3, 1e-4), (3, 1e-3)]

def test_columnar_jobs_stack_the_stage_functions_tables_bit_for_bit():
    """kernel_sweep_job and dna_kernel_job run the stages' columnar twins and stack once:
    their rows are kernel_sweep_point's and dna_kernel_point's DataFrames with the label
    and repeat columns, value for value and dtype for dtype (timings aside)."""
    from mixlib.core.seeding import generator
    from mixlib.experiments.semisupervised_sweep import kernel_sweep_job

    repeats = [RepeatData(r, tiny_problem(r).roles) for r in range(3)]
    sweep = kernel_sweep_job(repeats, seed=8, split="s", dataset="d", kernel_counts=[1, 3],
                             methods=["labelled_only", "iterative", "prior"], em=EM,
                             settings=SETTINGS)
    expected = pd.concat([
        kernel_sweep_point(data, method=method, n_components=k, em=EM, settings=SETTINGS,
                           rng=generator(8, "kernel_sweep", "s", method, k, data.repeat))
        .assign(repeat=data.repeat) for method in ("labelled_only", "iterative", "prior")
        for k in (1, 3) for data in repeats], ignore_index=True)
    expected.insert(0, "dataset", "d")
    expected.insert(0, "split", "s")
    pd.testing.assert_frame_equal(sweep, expected, check_exact=True)
    assert str(sweep["metric"].dtype) == str(pd.Series(["a"]).dtype)

    dna_repeats = [RepeatData.of(r, train=tiny_problem(r)["labelled"], test=tiny_problem(r)["test"])
                   for r in range(3)]
    dna = dna_kernel_job(dna_repeats, seed=0, split="s", encoding="onehot", kernel_counts=[1, 2],
                         em=EM, dataset="d")
    expected = pd.concat([
        dna_kernel_point(data, n_components=k, em=EM, rng=generator(0, "dna_kernel_sweep", "s", k, data.repeat))
        .assign(repeat=data.repeat) for k in (1, 2) for data in dna_repeats], ignore_index=True)
    expected = expected.assign(split="s", encoding="onehot", dataset="d")
    timed = dna["metric"].isin(["fit_seconds", "fit_cpu_seconds"])
    assert timed.any() and (dna.loc[timed, "value"] > 0).all()
    pd.testing.assert_frame_equal(dna[~timed].reset_index(drop=True),
                                  expected[~timed].reset_index(drop=True), check_exact=True)
