"""The experiment contract: RepeatData and the one runner of a stage's repeats, run_repeats."""

import numpy as np
import pandas as pd
import pytest

from mixlib.core.seeding import generator
from mixlib.experiments.contract import (Columns, RepeatData, RoleData, columnar, labelled,
                                         run_repeats, stacked)


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


def _old_stack(tables, repeats):
    """The stacking run_repeats did before it stacked once: a repeat column per table, then concat."""
    for table, repeat in zip(tables, repeats):
        table.insert(table.shape[1], "repeat", repeat)
    return pd.concat(tables, ignore_index=True)


def mixed(data, *, rng):
    """A columnar stage of every kind of column: constants, lists and arrays of strings of
    several widths, ints, floats with NaN, booleans; its length varies with the repeat."""
    n = 2 + data.repeat
    return Columns({"method": "prior" if data.repeat % 2 else "labelled_only", "k": 3,
                    "label": [("a" * (i + 1)) for i in range(n)], "code": np.arange(n),
                    "value": np.where(rng.random(n) < 0.5, np.nan, rng.random(n)),
                    "flag": rng.random(n) < 0.5, "gap": np.nan, "sure": True,
                    "class": np.array(["EI", "N"])[np.arange(n) % 2]}, n)


def mixed_frame(data, *, rng):
    """``mixed`` as a DataFrame stage function without a twin."""
    return mixed(data, rng=rng).frame()


twins_run = []


def _counted_mixed(data, *, rng):
    twins_run.append(data.repeat)
    return mixed(data, rng=rng)


@columnar(_counted_mixed)
def mixed_stage(data, *, rng):
    """``mixed`` as a stage function marked with its columnar twin."""
    return _counted_mixed(data, rng=rng).frame()


def test_columnar_twins_stack_to_the_stage_functions_tables_bit_for_bit():
    """run_repeats of a stage marked with its columnar twin runs the twin, and its table is
    that of the plain DataFrame stage and of the old per-table stacking: same values, dtypes,
    column and row order."""
    repeats = _repeats(4)
    twins_run.clear()
    twin = run_repeats(mixed_stage, repeats, seed=3, keys=("k",))
    assert twins_run == [0, 1, 2, 3] and mixed_stage.columns is _counted_mixed
    pd.testing.assert_frame_equal(mixed_stage(repeats[1], rng=generator(3, "k", 1)),
                                  mixed_frame(repeats[1], rng=generator(3, "k", 1)), check_exact=True)
    frames = run_repeats(mixed_frame, repeats, seed=3, keys=("k",))
    old = _old_stack([mixed_frame(data, rng=generator(3, "k", data.repeat)) for data in repeats],
                     range(4))
    for table in (twin, frames):
        pd.testing.assert_frame_equal(table, old, check_exact=True)
    assert str(twin["label"].dtype) == str(pd.Series(["a"]).dtype) and twin["flag"].dtype == bool
    assert len(twin) == 2 + 3 + 4 + 5 and isinstance(twin.index, pd.RangeIndex)


def test_stacks_that_columns_cannot_make_alike_take_concat():
    """An empty part, a column of different kinds, or other columns: the parts' frames, each
    with its rows of the last columns, stacked by pandas.concat itself."""
    parts = [Columns({"a": [1.0, 2.0], "b": "x"}, 2), Columns({"a": [], "b": "y"}, 0),
             Columns({"a": [3.0], "b": "z"}, 1)]
    kinds = [Columns({"a": [True], "b": "x"}, 1), Columns({"a": [0.5], "b": "y"}, 1)]
    other = [Columns({"a": [1.0], "b": "x"}, 1), Columns({"b": ["y", "w"], "c": [2, 3]}, 2)]
    for stack in (parts, kinds, other):
        frames, start = [part.frame() for part in stack], 0
        tags = np.array([f"t{i}" for i in range(sum(part.length for part in stack))])
        for frame in frames:
            frame["tag"] = tags[start:start + len(frame)]
            start += len(frame)
        expected = pd.concat(frames, ignore_index=True)
        table = stacked(stack, tag=tags)
        pd.testing.assert_frame_equal(table, expected, check_exact=True)
    assert list(table.columns) == ["a", "b", "tag", "c"]


def test_frames_with_other_columns_stack_as_they_first_appear():
    def varying(data):
        return pd.DataFrame({"a": [data.repeat], f"c{data.repeat % 2}": ["x"]})

    table = run_repeats(varying, _repeats(3))
    old = _old_stack([varying(data) for data in _repeats(3)], range(3))
    pd.testing.assert_frame_equal(table, old, check_exact=True)
    assert list(table.columns) == ["a", "c0", "repeat", "c1"]


def test_counts_reads_a_columnar_table_by_column_name():
    seen = []
    table = run_repeats(mixed, _repeats(4), seed=3, keys=("k",), first=1, needed=2,
                        counts=lambda part: seen.append(part["k"].tolist()) or part.length > 3)
    assert seen == [[3, 3], [3, 3, 3], [3, 3, 3, 3], [3] * 5] and table["repeat"].max() == 3
