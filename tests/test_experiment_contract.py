"""The experiment contract: RepeatData, Stage and the one runner, run_stages."""

import numpy as np
import pandas as pd
import pytest

from mixlib.core.seeding import generator
from mixlib.experiments.contract import RepeatData, RoleData, Stage, run_stages


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
    stage = Stage(draws, {"size": 2}, keys=("toy", "split"))
    table = run_stages(stage, _repeats(3), seed=9)
    assert list(table.columns) == ["first_x", "draw", "repeat"]
    assert table["repeat"].tolist() == [0, 0, 1, 1, 2, 2]
    for r in range(3):
        rows = table[table["repeat"] == r]
        np.testing.assert_array_equal(rows["draw"], generator(9, "toy", "split", r).random(2))
        assert (rows["first_x"] == r).all()
    # Repeat 2's rows do not depend on the other repeats: run alone, they are the same.
    alone = run_stages(stage, _repeats(3)[2:], seed=9)
    np.testing.assert_array_equal(alone["draw"], table.loc[table["repeat"] == 2, "draw"])


def test_stage_stream_is_shared_by_the_repeats():
    stage = Stage(draws, keys=("grid", "split"), stream="stage", repeat_column=None)
    table = run_stages(stage, _repeats(2), seed=1)
    np.testing.assert_array_equal(table["draw"].to_numpy().reshape(2, 2),
                                  np.tile(generator(1, "grid", "split").random(2), (2, 1)))


def test_label_columns_and_the_repeat_column_position():
    stage = Stage(draws, keys=("k",), repeat_column=1, leading={"split": "s", "dataset": "d"},
                  trailing={"encoding": "onehot"})
    table = run_stages(stage, _repeats(2), seed=0)
    assert list(table.columns) == ["split", "dataset", "first_x", "repeat", "draw", "encoding"]
    assert (table["split"] == "s").all() and (table["encoding"] == "onehot").all()
    assert isinstance(table.index, pd.RangeIndex) and len(table) == 4


def test_one_repeat_stage_without_a_stream():
    stage = Stage(summary, {"label": "x"}, n_repeats=1, repeat_column=None)
    table = run_stages(stage, _repeats(3))
    pd.testing.assert_frame_equal(table, summary(_repeats(1)[0], label="x"))


def test_several_stages_stack_in_order():
    stages = [Stage(summary, {"label": label}, leading={"split": "s"}) for label in ("a", "b")]
    table = run_stages(stages, _repeats(2))
    assert table["label"].tolist() == ["a", "a", "b", "b"] and table["repeat"].tolist() == [0, 1, 0, 1]
    assert table.columns[0] == "split"


def test_runner_errors_are_clear():
    with pytest.raises(ValueError, match="stage draws is seeded: give a seed"):
        run_stages(Stage(draws, keys=("k",)), _repeats(1))
    with pytest.raises(ValueError, match="at least one repeat"):
        run_stages(Stage(summary, {"label": "x"}), [])
    with pytest.raises(ValueError, match="stream must be 'repeat' or 'stage', got 'job'"):
        Stage(draws, keys=("k",), stream="job")
    with pytest.raises(ValueError, match="n_repeats must be None or an int >= 1, got 0"):
        Stage(draws, n_repeats=0)
