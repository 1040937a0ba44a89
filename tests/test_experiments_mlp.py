"""Tests of the fig. 6.2 experiment (mlp_sweep_point) and of its figure."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from mixlib.experiments.contract import RepeatData
from mixlib.experiments.mlp import METRICS, TRAINING_KEYS, mlp_sweep_job, mlp_sweep_point
from mixlib.figures.fig6_2 import fig6_2
from mixlib.neural_network.mlp import MLPClassifier


def tiny_data(seed=0, repeat=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 5))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(60) > 0, "IE", "N")
    return RepeatData.of(repeat, train=(X[:40], y[:40]), test=(X[40:], y[40:]))


def sweep(regime, hidden_size, seed, n_repeats, data_seed=0):
    """The sweep point's stage on ``n_repeats`` repeats of the same rows."""
    repeats = [tiny_data(data_seed, r) for r in range(n_repeats)]
    return mlp_sweep_job(repeats, seed=seed, split="s", regime=regime, hidden_size=hidden_size, params=PARAMS,
                         encoding="ordinal", dataset="d")


PARAMS = {"n_epochs": 8, "learning_rate": 0.05, "patience": 3}
# 8 epochs are often too few for early stopping to trigger on these tiny problems; the warning
# itself is tested in test_mlp.py
no_convergence_warning = pytest.mark.filterwarnings(
    "ignore::mixlib.core.exceptions.ConvergenceWarning"
)


@no_convergence_warning
@pytest.mark.parametrize("regime", ["plain", "early_stopping", "weight_decay"])
def test_sweep_point_table(regime):
    table = sweep(regime, 3, 1, n_repeats=3)
    expected_columns = ["regime", "hidden_size", "repeat", *PARAMS, "metric", "value", "split", "encoding",
                        "dataset"]
    assert set(table["encoding"]) == {"ordinal"}
    assert list(table.columns) == expected_columns
    assert len(table) == 3 * len(METRICS)
    assert isinstance(table.index, pd.RangeIndex)
    assert set(table["regime"]) == {regime} and set(table["hidden_size"]) == {3}
    assert sorted(set(table["repeat"])) == [0, 1, 2]
    assert table["n_epochs"].eq(8).all() and table["patience"].eq(3).all()
    wide = table.pivot(index="repeat", columns="metric", values="value")
    assert wide[["train_error", "test_error"]].stack().between(0, 1).all()
    assert (wide["best_epoch"] <= wide["epochs_run"]).all()
    assert (wide["epochs_run"] <= 8).all() and (wide["best_epoch"] >= 1).all()
    if regime != "early_stopping":
        assert (wide["epochs_run"] == 8).all() and (wide["best_epoch"] == 8).all()


def test_sweep_point_values_are_those_of_the_estimator():
    """The network is an MLPClassifier seeded with the first child spawned from rng."""
    data = tiny_data(2, repeat=4)
    table = mlp_sweep_point(data, regime="plain", hidden_size=2, params=PARAMS, rng=5)
    child = np.random.default_rng(5).spawn(1)[0]
    model = MLPClassifier(hidden_size=2, regime="plain", random_state=child, **PARAMS)
    (X_tr, y_tr), (X_te, y_te) = data["train"], data["test"]
    model.fit(X_tr, y_tr)
    row = table[table["metric"] == "test_error"]
    assert row["value"].item() == pytest.approx(1 - model.score(X_te, y_te))
    assert "repeat" not in table.columns  # the runner adds it


@no_convergence_warning
def test_sweep_point_is_deterministic_from_seed():
    a = sweep("early_stopping", 2, 7, n_repeats=2, data_seed=3)
    b = sweep("early_stopping", 2, 7, n_repeats=2, data_seed=3)
    c = sweep("early_stopping", 2, 8, n_repeats=2, data_seed=3)
    timed = ["fit_seconds", "fit_cpu_seconds"]
    untimed = [frame[~frame["metric"].isin(timed)] for frame in (a, b, c)]
    pd.testing.assert_frame_equal(untimed[0], untimed[1])
    assert not untimed[0]["value"].equals(untimed[2]["value"])
    assert (a.loc[a["metric"].isin(timed), "value"] > 0).all()


def test_sweep_point_rejects_bad_arguments():
    data = tiny_data()
    with pytest.raises(ValueError, match="unknown MLP training setting\\(s\\) \\['epochs'\\]"):
        mlp_sweep_point(data, regime="plain", hidden_size=2, params={"epochs": 3}, rng=0)
    with pytest.raises(ValueError, match="regime must be one of"):
        mlp_sweep_point(data, regime="dropout", hidden_size=2, rng=0)


def test_fig6_2_draws_one_test_and_one_training_curve_per_regime():
    rows = []
    for regime in ("plain", "early_stopping", "weight_decay"):
        for h in (1, 2, 4):
            for repeat in range(3):
                for metric, value in (("test_error", 0.1 + 0.01 * repeat), ("train_error", 0.02)):
                    rows.append({"regime": regime, "hidden_size": h, "repeat": repeat,
                                 "metric": metric, "value": value})
    fig = fig6_2(pd.DataFrame(rows), confidence_level=0.95)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "hidden units" and "%" in ax.get_ylabel()
    solid = [line for line in ax.lines if line.get_linestyle() == "-"]
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(solid) == 3 and len(dashed) == 3
    np.testing.assert_allclose(solid[0].get_ydata(), [11.0, 11.0, 11.0])  # mean, in percent
    np.testing.assert_allclose(dashed[0].get_ydata(), [2.0, 2.0, 2.0])
    assert len(ax.collections) == 3  # one band per regime
    with pytest.raises(ValueError, match="lacks column"):
        fig6_2(pd.DataFrame({"regime": ["plain"]}), confidence_level=0.95)


def test_fig6_2_draws_one_panel_per_coding():
    rows = []
    for split, encoding, error in (("dna_mlp", "onehot", 0.05), ("dna_mlp_ordinal", "ordinal", 0.2)):
        for h in (1, 2):
            for repeat in range(2):
                rows.append({"regime": "plain", "hidden_size": h, "repeat": repeat, "metric": "test_error",
                             "value": error, "split": split, "encoding": encoding, "dataset": "d"})
    fig = fig6_2(pd.DataFrame(rows), confidence_level=0.95)
    assert len(fig.axes) == 2
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["dna_mlp\nonehot coding", "dna_mlp_ordinal\nordinal coding"]
    assert all(t.count("\n") <= 1 for t in titles + [fig._suptitle.get_text()])
    # each panel draws its own split's errors: 5 % one-hot, 20 % ordinal
    means = [[line for line in ax.lines if line.get_linestyle() == "-"][0].get_ydata() for ax in fig.axes]
    np.testing.assert_allclose(means, [[5.0, 5.0], [20.0, 20.0]])


def test_training_settings_are_the_networks_parameters_but_the_swept_ones():
    """The sweep sets hidden_size and regime itself; every other setting is the MLP's own."""
    import inspect

    taken = set(inspect.signature(MLPClassifier.__init__).parameters) - {"self", "random_state"}
    assert set(TRAINING_KEYS) == taken - {"hidden_size", "regime"}


def test_sweep_point_warms_up_the_same_network_before_timing_it(monkeypatch):
    """An untimed fit of the same network on a few rows comes first (so the first repeat's
    fit_seconds does not carry the compiled loop's loading), and leaves the timed fit as it
    was: the values are those of the estimator alone (test above)."""
    import mixlib.experiments.mlp as stage

    built = []

    def recording_warm_up(build, X, y):
        built.append(build(X, np.random.default_rng(0)))
        stage_warm_up(build, X, y)

    stage_warm_up = stage.warm_up
    monkeypatch.setattr(stage, "warm_up", recording_warm_up)
    data = tiny_data(2, repeat=4)
    mlp_sweep_point(data, regime="weight_decay", hidden_size=3, params=PARAMS, rng=5)
    assert len(built) == 1
    params = built[0].get_params()
    assert params["hidden_size"] == 3 and params["regime"] == "weight_decay"
    assert all(params[key] == value for key, value in PARAMS.items())
