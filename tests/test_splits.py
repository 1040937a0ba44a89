"""Seeded splits (sizes, disjoint roles, stratification, reproducibility) and splits fixed by the data."""

import numpy as np
import pandas as pd
import pytest

from mixlib.experiments.preparation import make_split, summarise_splits
from mixlib.core.seeding import generator
from mixlib.model_selection.resampling import grouped_stratified_folds
from mixlib.model_selection.fixed_splits import (
    check_row_ranges, dataset_role_columns, fixed_split_table, parse_row_range, resolve_row_range,
    roles_from_rows, split_kind, split_repeats,
)
from mixlib.model_selection.splits import (
    assign_roles, duplicate_groups, role_sizes, split_table,
)

Y = np.array(["a"] * 164 + ["b"] * 139)
ROW_IDS = np.arange(len(Y)) + 1000
BACTERIA = {"labelled": 36, "unlabelled": 100, "test": "rest"}


def test_role_sizes_resolve_rest_and_reject_oversized_splits():
    assert role_sizes(BACTERIA, 303) == {"labelled": 36, "unlabelled": 100, "test": 167}
    with pytest.raises(ValueError, match=r"splits.x.roles: the roles ask for 400 rows .* only 303"):
        role_sizes({"train": 300, "test": 100}, 303, where="splits.x.roles")
    with pytest.raises(ValueError, match="only one role may be 'rest'"):
        role_sizes({"train": "rest", "test": "rest"}, 10)
    with pytest.raises(ValueError, match=r"unknown role\(s\) \['holdout'\]"):
        role_sizes({"holdout": 3}, 10)


def test_every_row_gets_exactly_one_role_with_the_asked_sizes():
    table = split_table(Y, ROW_IDS, BACTERIA, seed=1, split_name="bacteria", repeats=3)
    assert len(table) == 3 * len(Y)
    for _, repeat in table.groupby("repeat"):
        assert sorted(repeat["row_id"]) == sorted(ROW_IDS)
        assert repeat["role"].value_counts().to_dict() == {"test": 167, "unlabelled": 100, "labelled": 36}


def test_rows_no_role_asks_for_are_marked_unused():
    roles = assign_roles(Y, {"train": 10, "test": 5}, generator(0, "t"))
    assert (roles == "unused").sum() == len(Y) - 15


def test_stratified_roles_keep_class_proportions():
    roles = assign_roles(Y, BACTERIA, generator(3, "s"), stratify=True)
    labelled = Y[roles == "labelled"]
    # 36 * 164/303 = 19.5 -> 19 or 20 of class a.
    assert (labelled == "a").sum() in (19, 20)
    unlabelled = Y[roles == "unlabelled"]
    assert abs((unlabelled == "a").sum() - 100 * 164 / 303) <= 1


def test_stratified_split_never_takes_more_rows_of_a_class_than_exist():
    y = np.array(["a"] * 5 + ["b"] * 95)
    roles = assign_roles(y, {"train": 90, "test": 10}, generator(1), stratify=True)
    assert pd.Series(roles).value_counts().to_dict() == {"train": 90, "test": 10}
    assert (y[roles == "test"] == "a").sum() in (0, 1)


def test_same_seed_same_bytes_other_seed_other_split():
    def as_bytes(seed):
        return split_table(Y, ROW_IDS, BACTERIA, seed=seed, split_name="bacteria",
                           repeats=2, stratify=True).to_csv(sep="\t", index=False).encode()

    assert as_bytes(5) == as_bytes(5)
    assert as_bytes(5) != as_bytes(6)


def test_repeats_and_split_names_draw_different_roles():
    table = split_table(Y, ROW_IDS, BACTERIA, seed=1, split_name="a", repeats=2)
    first, second = (t["role"].to_numpy() for _, t in table.groupby("repeat"))
    assert (first != second).any()
    other = split_table(Y, ROW_IDS, BACTERIA, seed=1, split_name="b", repeats=1)
    assert (other["role"].to_numpy() != first).any()


def test_generator_depends_only_on_seed_and_keys():
    assert generator(1, "x", 2).random() == generator(1, "x", 2).random()
    assert generator(1, "x", 2).random() != generator(1, "x", 3).random()
    assert generator(1, "x").random() != generator(2, "x").random()
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        generator(-1)


def test_split_job_names_the_split_when_the_data_set_is_too_small():
    # A url data set's size is known only after the download: the split job must name the key.
    prepared = pd.DataFrame({"row_id": range(5), "x": range(5), "class": list("aabbb")})
    with pytest.raises(ValueError, match=r"splits.remote_holdout.roles: the roles ask for 8 rows"):
        make_split(prepared, "remote_holdout", {"roles": {"train": 8}}, seed=1, repeats=1)


def test_duplicate_groups_match_features_class_and_gaps():
    X = np.array([[1.0, np.nan], [1.0, np.nan], [1.0, 2.0], [1.0, np.nan], [1.0, 2.0]])
    y = np.array(["a", "a", "a", "b", "a"])
    assert duplicate_groups(X, y).tolist() == [0, 0, 1, 2, 1]


def test_grouped_folds_keep_duplicates_together_and_stay_stratified():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(60, 3))
    X = np.vstack([base, base[:20], base[:20]])  # rows 0-19 three times each
    y = np.array((["a"] * 40 + ["b"] * 20) + (["a"] * 20) * 2)
    groups = duplicate_groups(X, y)
    folds = grouped_stratified_folds(y, groups, 5, generator(1, "folds"))
    for g in np.unique(groups):
        assert len(np.unique(folds[groups == g])) == 1
    per_fold = pd.crosstab(folds, y)
    # 20 triples and 20 single rows of class a, 20 single rows of b: an even deal exists.
    assert per_fold["a"].tolist() == [16] * 5 and per_fold["b"].tolist() == [4] * 5


def test_grouped_folds_without_duplicates_are_the_plain_stratified_folds():
    from mixlib.model_selection.evaluation import stratified_folds

    y = np.array(["a"] * 30 + ["b"] * 17)
    groups = np.arange(len(y))
    np.testing.assert_array_equal(grouped_stratified_folds(y, groups, 4, generator(3, "f")),
                                  stratified_folds(y, 4, generator(3, "f")))


def test_comparison_with_grouped_duplicates_no_longer_flatters_nearest_neighbours():
    from mixlib.experiments.comparison import comparison_dataset_job
    from mixlib.catalogue.settings import ComparisonProtocol

    # Pure noise, every row four times: 1-NN finds each test row's copy unless grouped.
    rng = np.random.default_rng(5)
    X = np.repeat(rng.normal(size=(40, 3)), 4, axis=0)
    y = np.repeat(np.array(["a", "b"] * 20), 4)
    prepared = pd.DataFrame(X, columns=["u", "v", "w"]).assign(**{"class": y})
    prepared.insert(0, "row_id", np.arange(len(y)))

    def error(group):
        protocol = ComparisonProtocol(n_folds=4, cv_repeats=1, group_duplicates=group,
                                      significance_level=0.05)
        table = comparison_dataset_job(prepared, dataset="noise", model="knn",
                                       params={"n_neighbors": 1}, protocol=protocol, seed=11,
                                       standardise=True, impute={"method": "mean"},
                                       em=None).scores
        return table.loc[table["metric"] == "cv_error", "value"].iloc[0]

    assert error(False) < 0.05
    assert error(True) > 0.3


# --- Splits fixed by the data (role column, row ranges) ------------------------------------------------------


def test_split_kind_is_read_from_the_one_key_that_defines_the_split():
    assert split_kind({"dataset": "d", "roles": {"train": 3}}) == "random"
    assert split_kind({"dataset": "d", "role_column": "role"}) == "role_column"
    assert split_kind({"dataset": "d", "rows": {"train": "0:3"}, "stratify": False}) == "rows"
    with pytest.raises(ValueError, match=r"splits.s: a split takes exactly one of .*it has roles and rows"):
        split_kind({"roles": {"train": 3}, "rows": {"test": "3:"}}, "splits.s")
    with pytest.raises(ValueError, match=r"splits.s: .*it has none"):
        split_kind({"dataset": "d"}, "splits.s")
    with pytest.raises(ValueError, match=r"splits.s.stratify: only a random split"):
        split_kind({"role_column": "r", "stratify": True}, "splits.s")


def test_a_fixed_split_has_one_repeat_whatever_the_config_says():
    assert split_repeats({"roles": {"train": 3}}, 10) == 10
    assert split_repeats({"rows": {"train": "0:3"}}, 10) == 1
    assert split_repeats({"role_column": "role"}, 10) == 1


@pytest.mark.parametrize("text, bounds", [
    ("0:2000", (0, 2000)), ("2000:", (2000, None)), (":10", (None, 10)), (" -5 : ", (-5, None)),
    (":", (None, None)),
])
def test_row_ranges_use_python_slice_syntax(text, bounds):
    assert parse_row_range(text, "k") == bounds


@pytest.mark.parametrize("text", ["abc", "5", "1:2:3", "1.5:3", "a:b", 7, ""])
def test_a_bad_range_string_is_named_with_its_key(text):
    with pytest.raises(ValueError, match=r"splits.s.rows.train: .* is not a range of rows; write start:stop"):
        parse_row_range(text, "splits.s.rows.train")


def test_ranges_resolve_like_python_slices_but_never_clip():
    rows = np.arange(10)
    for text in ("0:4", "4:", "-3:", ":-3", "2:-2", ":"):
        start, stop = parse_row_range(text, "k")
        assert list(resolve_row_range(text, 10, "k")) == list(rows[start:stop])
    with pytest.raises(ValueError, match=r"k: range '0:11' reaches row 11, beyond the data set's 10 rows"):
        resolve_row_range("0:11", 10, "k")
    with pytest.raises(ValueError, match=r"reaches row -11"):
        resolve_row_range("-11:", 10, "k")
    with pytest.raises(ValueError, match=r"k: range '5:5' holds no row"):
        resolve_row_range("5:5", 10, "k")


def test_roles_from_rows_give_each_range_its_role_and_the_rest_unused():
    roles = roles_from_rows({"train": "0:6", "test": "8:"}, 10, "splits.s.rows")
    assert roles.tolist() == ["train"] * 6 + ["unused"] * 2 + ["test"] * 2
    # The DNA protocol: the first 2000 rows train, the rest test.
    roles = roles_from_rows({"train": "0:2000", "test": "2000:"}, 3186, "w")
    assert (roles == "train").sum() == 2000 and (roles == "test").sum() == 1186


def test_overlapping_ranges_and_unknown_roles_are_errors():
    with pytest.raises(ValueError, match=r"splits.s.rows: the ranges of test and train overlap \(row 4 is in both\)"):
        roles_from_rows({"train": "0:5", "test": "4:"}, 10, "splits.s.rows")
    with pytest.raises(ValueError, match=r"splits.s.rows: unknown role\(s\) \['holdout'\]"):
        check_row_ranges({"holdout": "0:3"}, "splits.s.rows")
    with pytest.raises(ValueError, match=r"splits.s.rows.test: 'x' is not a range"):
        check_row_ranges({"train": "0:3", "test": "x"}, "splits.s.rows")


def test_fixed_split_table_is_an_ordinary_split_table_with_repeat_zero():
    table = fixed_split_table(np.array(["train", "test", "unused"], dtype=object), np.array([0, 1, 2]))
    assert list(table.columns) == ["repeat", "row_id", "role"]
    assert table["repeat"].tolist() == [0, 0, 0] and table["role"].tolist() == ["train", "test", "unused"]
    with pytest.raises(ValueError, match="2 roles for 3 rows"):
        fixed_split_table(np.array(["a", "b"]), np.arange(3))


def test_role_columns_of_a_data_set_name_the_first_split_that_reads_them():
    splits = {"b": {"dataset": "d", "role_column": "role"}, "a": {"dataset": "d", "role_column": "role"},
              "c": {"dataset": "d", "role_column": "fold"}, "e": {"dataset": "other", "role_column": "x"},
              "f": {"dataset": "d", "roles": {"train": 3}}}
    assert dataset_role_columns(splits, "d") == {"role": "splits.a.role_column", "fold": "splits.c.role_column"}
    assert dataset_role_columns(splits, "nothing") == {}


def test_make_split_reads_a_role_column_or_row_ranges_into_one_repeat():
    prepared = pd.DataFrame({"row_id": np.arange(6), "x": np.arange(6.0), "class": list("ababab")})
    raw = pd.DataFrame({"x": np.arange(6.0), "role:role": ["train", "train", "", "test", "test", "unused"],
                        "class": list("ababab")})
    table = make_split(prepared, "fixed", {"dataset": "d", "role_column": "role"}, seed=1, repeats=5, raw=raw)
    assert table["repeat"].unique().tolist() == [0]
    assert table["role"].tolist() == ["train", "train", "unused", "test", "test", "unused"]
    table = make_split(prepared, "r", {"dataset": "d", "rows": {"test": "-2:", "train": ":3"}}, seed=1, repeats=5)
    assert table["role"].tolist() == ["train"] * 3 + ["unused"] + ["test"] * 2
    with pytest.raises(ValueError, match=r"splits.fixed.role_column: datasets.d has no column 'fold'"):
        make_split(prepared, "fixed", {"dataset": "d", "role_column": "fold"}, seed=1, repeats=5, raw=raw)
    with pytest.raises(ValueError, match=r"splits.fixed.role_column: column 'role' of datasets.d holds 'dev' at line 3"):
        make_split(prepared, "fixed", {"dataset": "d", "role_column": "role"}, seed=1, repeats=5,
                   raw=raw.assign(**{"role:role": ["train", "dev", "", "", "", ""]}))
    with pytest.raises(ValueError, match=r"splits.r.rows.train: range '0:9' reaches row 9, beyond the data set's 6 rows"):
        make_split(prepared, "r", {"dataset": "d", "rows": {"train": "0:9"}}, seed=1, repeats=5)


def test_splits_summary_gives_kind_repeats_and_rows_per_role():
    random = split_table(Y, ROW_IDS, {"train": 200, "test": "rest"}, seed=1, split_name="h", repeats=3)
    fixed = fixed_split_table(np.array(["test", "train", "unused", "train"], dtype=object), np.arange(4))
    summary = summarise_splits({"h": random, "f": fixed},
                               {"h": {"dataset": "heart", "roles": {}}, "f": {"dataset": "d", "rows": {}}})
    assert summary.to_dict("list") == {
        "split": ["f", "f", "f", "h", "h"], "dataset": ["d", "d", "d", "heart", "heart"],
        "kind": ["rows", "rows", "rows", "random", "random"], "repeats": [1, 1, 1, 3, 3],
        "role": ["train", "test", "unused", "train", "test"], "rows": [2, 1, 1, 200, 103],
    }
