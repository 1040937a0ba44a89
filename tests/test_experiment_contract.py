"""The experiment contract: RepeatData and the one runner of a stage's repeats, run_repeats."""

import numpy as np
import pandas as pd
import pytest

from mixlib.core.seeding import generator
from mixlib.experiments.contract import RepeatData, RoleData, labelled, run_repeats


def _repeats(n):
    """``n`` repeats whose train rows differ, so a table shows which repeat it came from."""
    return [RepeatData.of(r, train=(np.full((3, 2), float(r)), np.array(["a", "b", "a"])))
            for r in range(n)]


def draws(data, *, rng, size=2):
    """A stage function that shows its stream and its data: two uniforms and the first feature."""
    return pd.DataFrame({"first_x": data["train"].X[0, 0], "draw": rng.random(size)})


def summary(data, *, label):
    """An unseeded stage function."""
    X, y = data["train"]
    return pd.DataFrame({"label": [label], "n_rows": [len(y)], "mean": [X.mean()]})


def test_repeat_data_is_a_mapping_of_role_data():
    data = RepeatData.of(3, train=(np.ones((2, 1)), np.array(["a", "b"])), test=(np.zeros((1, 1)), np.array(["a"])))
    X, y = data["train"]
    assert isinstance(data["test"], RoleData) and data["test"].y.tolist() == ["a"]
    assert X.shape == (2, 1) and data.repeat == 3 and sorted(data) == ["test", "train"] and len(data) == 2
    with pytest.raises(KeyError, match="repeat 3 has no role 'labelled'; its roles are \\['test', 'train'\\]"):
        data["labelled"]


def test_each_repeat_draws_from_its_own_stream():
    table = run_repeats(draws, _repeats(3), {"size": 2}, seed=9, keys=("toy", "split"))
    assert list(table.columns) == ["first_x", "draw", "repeat"]
    assert table["repeat"].tolist() == [0, 0, 1, 1, 2, 2]
    for r in range(3):
        rows = table[table["repeat"] == r]
        np.testing.assert_array_equal(rows["draw"], generator(9, "toy", "split", r).random(2))
        assert (rows["first_x"] == r).all()
    # Repeat 2's rows do not depend on the other repeats: run alone, they are the same.
    alone = run_repeats(draws, _repeats(3)[2:], {"size": 2}, seed=9, keys=("toy", "split"))
    np.testing.assert_array_equal(alone["draw"], table.loc[table["repeat"] == 2, "draw"])


def test_label_columns_go_first_in_order():
    table = labelled(run_repeats(draws, _repeats(2), seed=0, keys=("k",)), split="s", dataset="d")
    assert list(table.columns) == ["split", "dataset", "first_x", "draw", "repeat"]
    assert (table["split"] == "s").all() and (table["dataset"] == "d").all()
    assert isinstance(table.index, pd.RangeIndex) and len(table) == 4


def test_the_first_repeats_only_without_a_stream():
    table = run_repeats(summary, _repeats(3), {"label": "x"}, first=1)
    pd.testing.assert_frame_equal(table, summary(_repeats(1)[0], label="x").assign(repeat=0))


def test_runner_errors_are_clear():
    with pytest.raises(ValueError, match="stage draws is seeded: give a seed"):
        run_repeats(draws, _repeats(1), keys=("k",))
    with pytest.raises(ValueError, match="summary: the split has no repeat to run on"):
        run_repeats(summary, [], {"label": "x"})
    with pytest.raises(ValueError, match="first must be at least 1, got 0"):
        run_repeats(summary, _repeats(2), {"label": "x"}, first=0)
