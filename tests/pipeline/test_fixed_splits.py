"""Splits fixed by the data (a role column or row ranges): every stage that takes a split runs on a fixed one.

The test config with a user's CSV whose two role columns are declared with ``role_column``
(``role``: train/test, ``ssl``: labelled/unlabelled/test) and a ``rows`` split of the shipped
splice data; every stage's split is replaced by one of these, the comparison's hold-out
protocol runs on the CSV's own train/test rows, and the whole DAG runs with no code change.
"""


import pandas as pd
import pytest
import yaml

from mixlib.pipeline.io import read_table
from tests.pipeline.conftest import (
    assert_dry_run_stops_before_any_job,
    copy_workflow,
    snakemake,
)
from tests.test_bad_inputs import CASES

pytestmark = pytest.mark.pipeline

N_ROWS = 150


def _role(i: int) -> str:
    """Rows 0-99 train, 100-139 test, the last 10 unused (an empty cell)."""
    return "train" if i < 100 else "test" if i < 140 else ""


def _ssl(i: int) -> str:
    """36 labelled, 60 unlabelled, the rest test."""
    return "labelled" if i < 36 else "unlabelled" if i < 96 else "test"


def _write_project(workdir) -> None:
    rows = ["sample,height,role,weight,ssl,kind"]
    for i in range(N_ROWS):
        kind = "tall" if i % 3 else "short"
        height = "" if i % 11 == 5 else f"{(175 if kind == 'tall' else 160) + (i * 7) % 13:.1f}"
        weight = (80 if kind == "tall" else 60) + (i * 13) % 17
        rows.append(f"s{i},{height},{_role(i)},{weight},{_ssl(i)},{kind}")
    (workdir / "data").mkdir()
    (workdir / "data/people.csv").write_text("\n".join(rows) + "\n")
    config = yaml.safe_load((workdir / "config/test.yaml").read_text())
    config["datasets"]["people"] = {"source": "csv", "path": "data/people.csv", "class_column": "kind",
                                    "drop_columns": ["sample"]}
    config["splits"].update(
        people_fixed={"dataset": "people", "role_column": "role"},
        people_ssl={"dataset": "people", "role_column": "ssl"},
        # splice is sorted by class (767 EI, 768 IE, 1655 N): rows 700-1599 hold all three.
        dna_rows={"dataset": "splice", "rows": {"train": "700:1600", "test": "-100:"}},
    )
    config["mixture"]["splits"] = ["people_ssl"]
    config["semisupervised"]["splits"] = ["people_ssl"]
    config["kernel_sweep"]["splits"] = ["people_ssl"]
    config["dna_kernel_sweep"]["splits"] = ["dna_rows"]
    config["mlp"]["splits"] = ["dna_rows"]
    config["svm"]["splits"] = ["people_fixed"]
    config["ensembles"]["splits"] = ["people_fixed"]
    # the comparison's hold-out protocol on the user's own train/test rows, for a model of each
    # kind (the test config's DAG runs them all)
    config["comparison"]["holdout_splits"] = ["people_fixed"]
    config["comparison"]["models"] = ["mixture", "mlp", "svm", "cart"]
    # a fixed split's replicate would be the same rows again: the test config's run covers it
    config["claims"]["replicate"] = False
    (workdir / "config/fixed.yaml").write_text(yaml.safe_dump(config))


@pytest.fixture(scope="module")
def fixed_run(tmp_path_factory):
    workdir = copy_workflow(tmp_path_factory.mktemp("fixed"))
    _write_project(workdir)
    snakemake(workdir, "--cores", "2", "--configfile", "config/fixed.yaml")
    return workdir


def test_role_columns_are_carried_to_the_split_and_kept_out_of_the_features(fixed_run):
    fetched = pd.read_csv(fixed_run / "resources/data/people.csv", keep_default_na=False)
    assert list(fetched.columns) == ["height", "weight", "role:ssl", "role:role", "class"] or \
        list(fetched.columns) == ["height", "weight", "role:role", "role:ssl", "class"]
    prepared = read_table(fixed_run / "results/data/people.prepared.tsv")
    assert list(prepared.columns) == ["row_id", "height", "weight", "class"]
    split = read_table(fixed_run / "results/splits/people_fixed.split.tsv")
    assert split["repeat"].unique().tolist() == [0]
    assert split["role"].tolist() == [_role(i) or "unused" for i in range(N_ROWS)]
    ssl = read_table(fixed_run / "results/splits/people_ssl.split.tsv")
    assert ssl["role"].tolist() == [_ssl(i) for i in range(N_ROWS)]
    rows = read_table(fixed_run / "results/splits/dna_rows.split.tsv")
    assert rows["repeat"].unique().tolist() == [0]
    assert rows["role"].value_counts().to_dict() == {"unused": 2190, "train": 900, "test": 100}
    assert (rows["role"].iloc[-100:] == "test").all()


def test_the_splits_summary_shows_each_split_kind_and_its_one_repeat(fixed_run):
    summary = read_table(fixed_run / "results/tables/splits_summary.tsv").set_index(["split", "role"])
    assert summary.loc[("people_fixed", "train"), ["kind", "repeats", "rows"]].tolist() == ["role_column", 1, 100]
    assert summary.loc[("people_fixed", "unused"), "rows"] == 10
    assert summary.loc[("dna_rows", "test"), ["kind", "repeats", "rows"]].tolist() == ["rows", 1, 100]
    assert summary.loc[("heart_holdout", "train"), ["kind", "repeats", "rows"]].tolist() == ["random", 2, 200]


@pytest.mark.parametrize("table, datasets", [
    ("em_trace", {"people"}), ("semisupervised_rounds", {"people"}), ("kernel_sweep", {"people"}),
    ("dna_kernel_sweep", None), ("mlp_sweep", None), ("ensembles", {"people_fixed"}),
])
def test_every_stage_ran_on_the_one_repeat_of_its_fixed_split(fixed_run, table, datasets):
    results = read_table(fixed_run / f"results/tables/{table}.tsv")
    if "split" in results:
        assert set(results["split"]) <= {"people_fixed", "people_ssl", "dna_rows"}
    if datasets is not None:
        assert set(results["dataset"]) == datasets
    assert results["repeat"].unique().tolist() == [0]


@pytest.mark.parametrize("table, column, split", [
    ("kernel_map", "split", "people_ssl"), ("mkl", "dataset", "people_fixed"), ("svdd", "dataset", "people_fixed"),
    ("svm_grid.people_fixed", "dataset", "people_fixed"), ("svm_best.people_fixed", "dataset", "people_fixed"),
])
def test_the_stages_of_repeat_zero_ran_on_the_fixed_split(fixed_run, table, column, split):
    # The SVM tables name the split in their `dataset` column.
    assert set(read_table(fixed_run / f"results/tables/{table}.tsv")[column]) == {split}


def test_the_svm_stage_and_imputation_ran_on_the_fixed_split(fixed_run):
    assert (fixed_run / "results/figures/svm_grid_people_fixed.png").is_file()
    substitutes = read_table(fixed_run / "results/impute/people_fixed.substitutes.tsv")
    # Every missing height of a used row (not of the 10 unused ones) is filled, in the one repeat.
    assert substitutes["repeat"].unique().tolist() == [0]
    assert sorted(substitutes["row_id"]) == [i for i in range(N_ROWS) if i % 11 == 5 and _role(i)]


DRY_RUN_CASES = ["role cell that is not a role", "split with both roles and rows", "overlapping row ranges"]


@pytest.mark.parametrize("case", [next(c for c in CASES if c.name == name) for name in DRY_RUN_CASES],
                         ids=DRY_RUN_CASES)
def test_a_bad_fixed_split_stops_a_dry_run_before_any_job(case, tmp_path):
    assert_dry_run_stops_before_any_job(case, copy_workflow(tmp_path / "bad_split"))


def test_the_comparison_holdout_protocol_runs_on_the_csv_role_column(fixed_run):
    config = yaml.safe_load((fixed_run / "config/fixed.yaml").read_text())
    summary = read_table(fixed_run / "results/tables/comparison_summary.tsv")
    holdout = summary[summary["protocol"] == "holdout"]
    assert set(holdout["split"]) == {"people_fixed"}
    assert sorted(holdout["model"]) == sorted(config["comparison"]["models"])
    assert (holdout["n_repeats"] == 1).all() and (holdout["dataset"] == "people").all()
    assert holdout["cv_error"].between(0, 1).all()
    # trained on the 100 rows marked train, tested on the 40 marked test (10 unused rows)
    table = read_table(fixed_run / "results/tables/comparison.tsv")
    confusion = table[(table["protocol"] == "holdout") & (table["metric"] == "confusion")]
    assert (confusion.groupby("model")["value"].sum() == 40).all()
    cv = summary[summary["protocol"] == "cv"]
    assert set(cv["dataset"]) == set(config["comparison"]["datasets"])
