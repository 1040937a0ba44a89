"""The ensemble experiment function and its figure, on a tiny problem."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from mixlib.experiments.contract import RepeatData
from mixlib.experiments.ensembles import ENSEMBLE_METHODS, ensemble_curve
from mixlib.figures.ensembles import ensemble_error_curves
from mixlib.ensemble.forest import RandomForestClassifier
from mixlib.tree.decision_tree import DecisionTreeClassifier


def tiny(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(160, 6)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] + rng.normal(scale=0.7, size=160) > 2, "x", "y")
    return RepeatData.of(0, train=(X[:100], y[:100]), test=(X[100:], y[100:]))


#: Tree settings of the stage (the config's ``ensembles.trees``); those left out take the
#: estimators' defaults.
TREES = {"criterion": "gini", "max_features": "sqrt", "adaboost_max_depth": 1}


@pytest.mark.parametrize("method", ENSEMBLE_METHODS)
def test_curve_columns_ranges_and_determinism(method):
    data = tiny()
    base = DecisionTreeClassifier(max_depth=2) if method == "bagging_base" else None
    table = ensemble_curve(data, method=method, max_members=8, params=TREES, rng=5, base_estimator=base)
    again = ensemble_curve(data, method=method, max_members=8, params=TREES, rng=5, base_estimator=base)
    first = ["method", "n_members", "test_error", "oob_error", "fit_seconds"]
    assert list(table.columns[:5]) == first
    assert list(table.columns[5:]) == list(TREES)  # one column per setting given
    assert (table["method"] == method).all()
    assert table["test_error"].between(0, 1).all()
    pd.testing.assert_frame_equal(
        table.drop(columns="fit_seconds"), again.drop(columns="fit_seconds")
    )
    if method in ("tree", "id3"):
        assert table["n_members"].tolist() == [1] and table["oob_error"].isna().all()
    elif method == "adaboost":
        assert 1 <= len(table) <= 8 and table["oob_error"].isna().all()
    else:
        assert table["n_members"].tolist() == list(range(1, 9))
        assert table["oob_error"].iloc[1:].between(0, 1).all()


def test_curve_equals_the_staged_errors_of_one_fit():
    data = tiny(1)
    (X_train, y_train), (X_test, y_test) = data["train"], data["test"]
    table = ensemble_curve(data, method="forest_simple", max_members=10, rng=3)
    forest = RandomForestClassifier(n_estimators=10, random_state=np.random.default_rng(3))
    forest.fit(X_train, y_train)
    for b in (1, 5, 10):
        sub_votes = forest.member_predictions(X_test)[:b]
        counts = np.stack([(sub_votes == k).sum(0) for k in range(2)], axis=1)
        expected = np.mean(forest.classes_[counts.argmax(1)] != y_test)
        assert table.loc[b - 1, "test_error"] == pytest.approx(expected)
    np.testing.assert_allclose(table["oob_error"], forest.oob_error_curve_)


def test_curve_rejects_bad_input():
    data = tiny()
    with pytest.raises(ValueError, match="method must be one of"):
        ensemble_curve(data, method="boosting", max_members=5, rng=0)
    with pytest.raises(ValueError, match="needs a base_estimator"):
        ensemble_curve(data, method="bagging_base", max_members=5, rng=0)
    with pytest.raises(ValueError, match=r"unknown ensembles.trees key\(s\) \['depth'\]"):
        ensemble_curve(data, method="tree", max_members=5, params={"depth": 3}, rng=0)


def test_figure_from_repeats():
    data = tiny()
    parts = []
    for repeat in range(2):
        for method in ("tree", "forest_simple", "adaboost"):
            part = ensemble_curve(data, method=method, max_members=6, rng=repeat)
            parts.append(part.assign(repeat=repeat, dataset="tiny"))
    table = pd.concat(parts, ignore_index=True)
    fig = ensemble_error_curves(table, confidence_level=0.95)
    assert isinstance(fig, Figure)
    # one panel per family present (boosting, random forests), the baselines in each
    boosting, forests = fig.axes
    assert [ax.get_title() for ax in fig.axes] == ["tiny: boosting", "tiny: random forests"]
    assert forests.get_xlabel() == "number of members"
    assert any(line.get_linestyle() == "--" for line in forests.get_lines())  # OOB curve
    # in %, and no mean clipped: the y axis reaches above every mean curve and baseline
    tree_level = 100 * table.loc[table["method"] == "tree", "test_error"].mean()
    assert any(np.allclose(line.get_ydata(), tree_level) for line in boosting.get_lines())
    highest = max(float(np.max(line.get_ydata())) for ax in fig.axes for line in ax.get_lines())
    assert boosting.get_ylim()[1] > highest > 1.0
    # one shared key: every method and the two line styles
    (legend,) = fig.legends
    assert [text.get_text() for text in legend.get_texts()] == [
        "AdaBoost (SAMME)", "random forest, simple vote", "single tree", "test error",
        "out-of-bag error"]
