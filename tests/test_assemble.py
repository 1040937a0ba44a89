"""Assembling an experiment's arrays: roles, substitutes, standardisation on training rows."""

import numpy as np
import pandas as pd
import pytest

from mixlib.experiments.contract import RepeatData
from mixlib.experiments.data import SplitRepeats, assemble
from mixlib.experiments.preparation import summarise_datasets
from mixlib.core.preprocessing import standardise


def _prepared():
    return pd.DataFrame({
        "row_id": [10, 11, 12, 13, 14],
        "f1": [1.0, 2.0, 3.0, 100.0, np.nan],
        "f2": [5.0, 5.0, 5.0, 7.0, 1.0],
        "class": ["a", "b", "a", "b", "a"],
    })


def _split():
    return pd.DataFrame({
        "repeat": [0] * 5,
        "row_id": [10, 11, 12, 13, 14],
        "role": ["train", "train", "train", "test", "unused"],
    })


def test_standardisation_uses_training_rows_only():
    arrays = assemble(_prepared(), _split(), 0)
    X_train, y_train = arrays["train"]
    np.testing.assert_allclose(X_train.mean(axis=0), [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(X_train[:, 0].std(), 1.0)
    # The test row (f1 = 100) is scaled with the training statistics, not its own.
    np.testing.assert_allclose(arrays["test"][0][0, 0], (100 - 2) / np.std([1, 2, 3]))
    # f2 is constant on the training rows: centred, not divided by zero.
    np.testing.assert_allclose(arrays["test"][0][0, 1], 2.0)
    assert y_train.tolist() == ["a", "b", "a"]
    assert "unused" not in arrays
    assert isinstance(arrays, RepeatData) and arrays.repeat == 0 and sorted(arrays) == ["test", "train"]
    assert arrays["train"].X is X_train


def test_substitutes_fill_missing_cells_before_standardisation():
    split = _split().assign(role=["train", "train", "train", "test", "test"])
    substitutes = pd.DataFrame({"repeat": [0], "row_id": [14], "feature": ["f1"], "value": [2.0]})
    X_test = assemble(_prepared(), split, 0, substitutes=substitutes)["test"][0]
    np.testing.assert_allclose(X_test[1, 0], 0.0)
    raw = assemble(_prepared(), split, 0, standardise_features=False)["test"][0]
    assert np.isnan(raw[1, 0])


def test_split_repeats_are_assemble_of_each_repeat_made_once_when_read():
    """A job's repeats (SplitRepeats): repeat numbers in increasing order whatever the split
    table's order, each the very arrays assemble gives (values, dtypes, roles), substitutes of
    its own repeat only, made on first read and kept; limit and slices as a list's."""
    rng = np.random.default_rng(0)
    prepared = pd.DataFrame({"row_id": np.arange(100, 140), "f1": rng.normal(size=40),
                             "f2": rng.integers(0, 3, 40), "class": rng.choice(["a", "bb"], 40)})
    prepared.loc[[3, 17, 30], "f1"] = np.nan
    repeats = []
    for repeat in (4, 0, 2):  # out of order in the table
        roles = rng.choice(["train", "test", "unused"], 40, p=[0.6, 0.3, 0.1])
        repeats.append(pd.DataFrame({"repeat": repeat, "row_id": rng.permutation(prepared["row_id"]),
                                     "role": roles}))
    split = pd.concat(repeats, ignore_index=True)
    substitutes = pd.DataFrame({"repeat": [4, 0, 0, 2], "row_id": [103, 103, 117, 130],
                                "feature": "f1", "value": [1.5, -2.0, 0.25, 3.0]})
    for standardise_features in (True, False):
        lazy = SplitRepeats(prepared, split, substitutes=substitutes,
                            standardise_features=standardise_features)
        assert len(lazy) == 3 and not lazy._made
        assert lazy[1] is lazy[1] and list(lazy._made) == [2]  # made once, when read
        for data, repeat in zip(lazy, (0, 2, 4)):
            expected = assemble(prepared, split, repeat, substitutes=substitutes,
                                standardise_features=standardise_features)
            assert data.repeat == repeat and list(data) == list(expected)
            for role in expected:
                for mine, theirs in zip(data[role], expected[role]):
                    assert mine.dtype == theirs.dtype
                    assert mine.tobytes() == theirs.tobytes()
        assert [data.repeat for data in lazy[1:]] == [2, 4]
    assert [data.repeat for data in SplitRepeats(prepared, split, limit=2)] == [0, 2]
    bad = split.assign(row_id=split["row_id"].where(split["repeat"] != 2, 999))
    with pytest.raises(ValueError, match=r"absent from the data: \[999\]"):
        SplitRepeats(prepared, bad)[1]


def test_assemble_errors_are_clear():
    with pytest.raises(ValueError, match="no repeat 3"):
        assemble(_prepared(), _split(), 3)
    bad = _split().assign(row_id=[10, 11, 12, 13, 99])
    with pytest.raises(ValueError, match=r"absent from the data: \[99\]"):
        assemble(_prepared(), bad, 0)


def test_standardise_rejects_features_never_observed_in_training_rows():
    X = np.array([[np.nan, 1.0], [np.nan, 2.0], [3.0, 3.0]])
    with pytest.raises(ValueError, match=r"Features \['0'\] have no observed value"):
        standardise(X, np.array([True, True, False]))
    with pytest.raises(ValueError, match=r"Features \['height'\] have no observed value"):
        standardise(X, np.array([True, True, False]), feature_names=["height", "weight"])


def test_summary_counts_rows_features_classes_and_missing_cells():
    summary = summarise_datasets({"toy": _prepared()})
    values = {(q, i): v for q, i, v in summary[["quantity", "item", "value"]].itertuples(index=False)}
    assert values[("rows", "all")] == 5 and values[("features", "all")] == 2
    assert values[("class_count", "a")] == 3 and values[("class_count", "b")] == 2
    assert values[("missing_cells", "f1")] == 1 and values[("missing_cells", "f2")] == 0


def test_summary_counts_duplicated_rows_with_missing_cells_comparing_equal():
    table = pd.concat([_prepared(), _prepared().iloc[[0, 4, 4]]], ignore_index=True)
    table["row_id"] = np.arange(len(table))
    summary = summarise_datasets({"toy": table, "plain": _prepared()})
    values = {(d, q): v for d, q, i, v in summary.itertuples(index=False) if i == "all"}
    assert values[("toy", "duplicated_rows")] == 3
    assert values[("plain", "duplicated_rows")] == 0


def test_standardise_cannot_overflow_on_huge_finite_values():
    # The naive variance of this column is inf: the scale became inf and the column all 0.
    X = np.array([[1e308, 1.0], [1.0, 2.0], [2.0, 3.0], [3.0, np.nan]])
    Z, mean, scale = standardise(X, np.ones(4, dtype=bool))
    assert np.isfinite(mean).all() and np.isfinite(scale).all()
    # Standardisation does not depend on the unit: the same column in units of 1e300.
    Z_small, _, _ = standardise(X * np.array([1e-300, 1.0]), np.ones(4, dtype=bool))
    np.testing.assert_allclose(Z, Z_small, rtol=1e-12)
    np.testing.assert_allclose(Z[:, 0], [np.sqrt(3.0), -1 / np.sqrt(3.0), -1 / np.sqrt(3.0),
                                         -1 / np.sqrt(3.0)], rtol=1e-12)


def test_standardise_agrees_with_the_textbook_formula_on_ordinary_values():
    rng = np.random.default_rng(0)
    X = rng.normal(50.0, 7.0, size=(30, 4))
    X[3, 1] = np.nan
    fit = np.arange(30) < 20
    Z, mean, scale = standardise(X, fit)
    np.testing.assert_allclose(mean, np.nanmean(X[fit], axis=0), rtol=1e-13)
    np.testing.assert_allclose(scale, np.nanstd(X[fit], axis=0), rtol=1e-13)
    np.testing.assert_allclose(Z, (X - mean) / scale, rtol=0, atol=1e-12)


def test_standardise_names_features_whose_values_cannot_be_standardised():
    X = np.array([[1.0, np.inf], [2.0, 1.0], [3.0, 2.0]])
    with pytest.raises(ValueError, match=r"Features \['weight'\] hold infinite values"):
        standardise(X, np.ones(3, dtype=bool), feature_names=["height", "weight"])
    X = np.array([[1.0, 1.0], [1.0 + 1e-10, 2.0], [1e300, 3.0]])
    with pytest.raises(ValueError, match=r"Features \['height'\] have values so far"):
        standardise(X, np.array([True, True, False]), feature_names=["height", "weight"])


def test_a_job_reads_a_split_and_its_replicate_from_its_named_inputs(tmp_path):
    """splits_and_replicates: each split's name, its repeats (SplitRepeats of its own split and
    substitutes files over the shared data table) and its output, in the params' order."""
    from types import SimpleNamespace

    from mixlib.pipeline.io import write_table
    from mixlib.pipeline.workflow import splits_and_replicates

    write_table(_prepared(), tmp_path / "data.tsv")
    # Row 14's missing f1 is read in both, from each split's own substitutes.
    main_split = _split().assign(role=["train", "train", "train", "test", "test"])
    replicate_split = _split().assign(role=["train", "test", "train", "train", "train"])
    files = {}
    for name, split in (("s", main_split), ("s_replicate", replicate_split)):
        files[name] = (tmp_path / f"{name}.split.tsv", tmp_path / f"{name}.substitutes.tsv")
        write_table(split, files[name][0])
        write_table(pd.DataFrame({"repeat": [0], "row_id": [14], "feature": ["f1"],
                                  "value": [2.5 if name == "s" else -1.0]}), files[name][1])
    smk = SimpleNamespace(
        params=SimpleNamespace(splits=["s", "s_replicate"]),
        input=SimpleNamespace(prepared=str(tmp_path / "data.tsv"),
                              split=[str(files[n][0]) for n in ("s", "s_replicate")],
                              substitutes=[str(files[n][1]) for n in ("s", "s_replicate")]),
        output=["out_s.tsv", "out_s_replicate.tsv"])
    got = list(splits_and_replicates(smk, standardise_features=False))
    assert [(name, output) for name, _, output in got] == [("s", "out_s.tsv"),
                                                           ("s_replicate", "out_s_replicate.tsv")]
    for (name, repeats, _), split in zip(got, (main_split, replicate_split)):
        value = 2.5 if name == "s" else -1.0
        expected = assemble(_prepared(), split, 0, standardise_features=False,
                            substitutes=pd.DataFrame({"repeat": [0], "row_id": [14],
                                                      "feature": ["f1"], "value": [value]}))
        assert len(repeats) == 1 and list(repeats[0]) == list(expected)
        for role in expected:
            for mine, theirs in zip(repeats[0][role], expected[role]):
                np.testing.assert_array_equal(mine, theirs)
    assert got[0][1][0]["test"][0][1, 0] == 2.5 and got[1][1][0]["train"][0][3, 0] == -1.0
    smk.output = ["out_s.tsv"]  # a file per split, or a clear error
    with pytest.raises(ValueError):
        list(splits_and_replicates(smk, standardise_features=False))
