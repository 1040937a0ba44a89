"""Every bad input a user may give, as a table: the input, and a fragment of the message it gets.

A new case is one line of ``CASES``. Each case starts from ``config/test.yaml`` plus a user's
CSV (``data/people.csv``, 40 rows, classes ``tall``/``short``, 6 missing heights) declared as
data set ``people`` with split ``people_holdout``; it changes the CSV, the config or the config
file's text, and expects the pre-run checks (:func:`mixlib.pipeline.config_checks.validate_study_config`,
which ``workflow/rules/common.smk`` calls, or :func:`mixlib.pipeline.config.read_config_file` for YAML
syntax) to fail with a message matching the fragment. These are the checks ``snakemake -n`` runs before any job (see
``tests/pipeline/test_pipeline.py`` for the same cases through Snakemake).

``python -m tests.test_bad_inputs`` prints the table with the message each case now gets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError

from mixlib.pipeline.config_checks import validate_study_config
from mixlib.pipeline.config import read_config_file

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")

HEADER = "sample,height,weight,kind"


def people_rows() -> list[str]:
    """The user's CSV as lines: the header is line 1, the data lines 2 to 41."""
    rows = [HEADER]
    for i in range(40):
        height = "" if i % 7 == 3 else f"{150 + i * 0.7:.1f}"
        rows.append(f"s{i},{height},{50 + (i * 13) % 30},{'tall' if i % 3 else 'short'}")
    return rows


def people_config() -> dict:
    """``config/test.yaml`` with the user's data set and a split of it."""
    config = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    config["datasets"]["people"] = {
        "source": "csv", "path": "data/people.csv", "class_column": "kind",
        "drop_columns": ["sample"],
    }
    config["splits"]["people_holdout"] = {
        "dataset": "people", "roles": {"train": 30, "test": "rest"}, "stratify": True,
    }
    return config


# --- How a case changes the inputs -----------------------------------------------------------

def cell(line: int, column: str, value: str) -> Callable[[list[str]], list[str]]:
    """Set the cell of ``column`` on file line ``line`` (the header is line 1)."""
    def edit(rows: list[str]) -> list[str]:
        index = HEADER.split(",").index(column)
        fields = rows[line - 1].split(",")
        fields[index] = value
        return rows[:line - 1] + [",".join(fields)] + rows[line:]
    return edit


def add_column(name: str, value: Callable[[int], str]) -> Callable[[list[str]], list[str]]:
    """Append a column ``name`` whose cell on data row ``i`` is ``value(i)``."""
    return lambda rows: [rows[0] + f",{name}"] + [r + f",{value(i)}" for i, r in enumerate(rows[1:])]


def then(*edits: Callable) -> Callable:
    """Several edits of the same thing, in order."""
    def edit(thing):
        for one in edits:
            thing = one(thing)
        return thing
    return edit


def people(**changes) -> Callable[[dict], None]:
    """Change keys of the ``people`` data set's entry."""
    return lambda config: config["datasets"]["people"].update(changes)


def holdout_roles(**roles) -> Callable[[dict], None]:
    """Set the roles of split ``people_holdout``."""
    return lambda config: config["splits"]["people_holdout"].update(roles=roles)


def compare(datasets: list[str], n_folds: int) -> Callable[[dict], None]:
    """Compare the models on ``datasets`` with ``n_folds`` folds."""
    return lambda config: config["comparison"].update(datasets=datasets, n_folds=n_folds)


def fixed_split(**spec) -> Callable[[dict], None]:
    """Add split ``people_fixed`` of the ``people`` data set (or of ``spec["dataset"]``)."""
    return lambda config: config["splits"].update(people_fixed={"dataset": "people", **spec})


def roles_of(i: int) -> str:
    """The role cell of data row ``i`` (file line ``i + 2``) of the column ``role``."""
    return "train" if i < 30 else "test"


def rare_class(n: int) -> Callable[[list[str]], list[str]]:
    """Give the first ``n`` data rows (file lines 2 to ``n + 1``) the class ``rare``."""
    return then(*(cell(line, "kind", "rare") for line in range(2, n + 2)))


#: The message starts with the key (alone, or after Snakemake's "Error in the config: ").
KEY_FIRST = r"(?:^|Error in the config: )"
#: A data set or split name of 240 characters (not periodic, so Snakemake would take it).
LONG_NAME = "".join(f"n{i}" for i in range(100))[:240]


def alias_bomb(levels: int = 10, width: int = 15) -> str:
    """A YAML document of about 600 bytes whose aliases stand for ``width ** levels`` strings."""
    names = "abcdefghijklmnopqrstuvwxyz"
    rows = [f"{names[0]}: &{names[0]} [" + ", ".join(["lol"] * width) + "]"]
    for level in range(1, levels):
        rows.append(f"{names[level]}: &{names[level]} [" + ",".join([f"*{names[level - 1]}"] * width) + "]")
    return "\n".join(rows) + f"\nseed: *{names[levels - 1]}\n"


ALIAS_BOMB = alias_bomb()


@dataclass
class Case:
    """A bad input: an edit of the CSV lines, of the config, or the config file's own text."""

    name: str
    message: str
    csv: Callable[[list[str]], list[str]] | None = None
    config: Callable[[dict], None] | None = None
    yaml_text: str | None = None


CASES = [
    # Item 1: huge finite values, named by column and file line.
    Case("cell of 1e308", r"column 'height' holds 1e\+308 at line 6;", csv=cell(6, "height", "1e308")),
    Case("cell of -1e200", r"column 'weight' holds -1e\+200 at line 12;", csv=cell(12, "weight", "-1e200")),
    # Item 2: non-finite cells, caught when the data set is read.
    Case("cell 'inf'", r"column 'weight' holds inf at line 4;", csv=cell(4, "weight", "inf")),
    Case("cell '-Infinity'", r"column 'height' holds -inf at line 3;", csv=cell(3, "height", "-Infinity")),
    Case("cell '1e999' (overflows when read)", r"column 'weight' holds inf at line 41;",
         csv=cell(41, "weight", "1e999")),
    Case("cell 'NaN' not declared missing", r"column 'height' holds 'NaN' at line 8;",
         csv=cell(8, "height", "NaN")),
    # Item 4: data problems, by the names in the user's file.
    Case("all-empty column", r"column 'notes' has no value in any row", csv=add_column("notes", lambda i: "")),
    Case("column of missing markers only", r"column 'score' has no value in any row",
         csv=add_column("score", lambda i: "NA"), config=people(missing_values=["NA"])),
    Case("class with one example", r"class 'medium' has 1 example \(line 10\)", csv=cell(10, "kind", "medium")),
    Case("two classes with one example", r"class 'a' has 1 example \(line 2\); class 'b' has 1",
         csv=then(cell(2, "kind", "a"), cell(3, "kind", "b"))),
    Case("fewer rows per class than comparison.n_folds",
         r"comparison.n_folds: 20 folds need at least 20 examples of every class, but data set "
         r"'people' has fewer of class 'short' \(14\)", config=compare(["people"], 20)),
    Case("shipped data set too small for comparison.n_folds",
         r"comparison.n_folds: 60 folds .* 'wine' has fewer of class '1' \(59\), '3' \(48\)",
         config=compare(["wine"], 60)),
    Case("split larger than the CSV", r"splits.people_holdout.roles: the roles ask for 50 rows .* only 40",
         config=holdout_roles(train=50)),
    Case("split larger than a shipped data set", r"splits.wine_holdout.roles: the roles ask for 500 rows",
         config=lambda c: c["splits"]["wine_holdout"].update(roles={"train": 500})),
    # Item 6: class cells, by file line as an editor shows it (blank lines count).
    Case("empty class cell", r"class column 'kind' is empty \(or a missing marker\) at line 7;",
         csv=cell(7, "kind", "")),
    Case("empty class cell after a blank line", r"class column 'kind' is empty .* at line 6;",
         csv=lambda rows: [*rows[:3], "", *cell(5, "kind", "")(rows)[3:]]),
    Case("class cell holding a missing marker", r"class column 'kind' is empty .* at lines 2, 3;",
         csv=then(cell(2, "kind", "?"), cell(3, "kind", "?")), config=people(missing_values=["?"])),
    # Other CSV faults.
    Case("text in a numeric column", r"column 'weight' is not numeric: 'heavy' at line 9;",
         csv=cell(9, "weight", "heavy")),
    Case("decimal comma", r"column 'height' is not numeric: '150,7' at line 3;",
         csv=cell(3, "height", '"150,7"')),
    Case("row with an extra field", r"line 8 has 5 fields but the header \(line 1\) has 4",
         csv=lambda rows: rows[:7] + [rows[7] + ",1"] + rows[8:]),
    Case("row with a field missing", r"line 30 has 3 fields but the header \(line 1\) has 4",
         csv=lambda rows: rows[:29] + [rows[29].rsplit(",", 1)[0]] + rows[30:]),
    Case("column named twice in the header", r"the header names columns \['weight'\] more than once",
         csv=lambda rows: [rows[0].replace("height", "weight")] + rows[1:]),
    Case("header only", r"the file has a header but no data row", csv=lambda rows: rows[:1]),
    Case("empty file", r"the file is empty", csv=lambda rows: []),
    Case("class_column not in the file", r"class_column names 'species', which is not a column",
         config=people(class_column="species")),
    Case("drop_columns not in the file", r"drop_columns names 'id', which is not a column",
         config=people(drop_columns=["id"])),
    Case("no feature column left", r"no feature column is left besides 'kind'",
         config=people(drop_columns=["sample", "height", "weight"])),
    Case("feature column named 'class'", r"a feature column is named 'class'",
         csv=lambda rows: [rows[0].replace("weight", "class")] + rows[1:]),
    Case("feature column named 'row_id'", r"a feature column is named 'row_id', a name the pipeline uses",
         csv=lambda rows: [rows[0].replace("weight", "row_id")] + rows[1:]),
    Case("CSV path that does not exist", r"datasets.people.path: no file at .*nope.csv",
         config=people(path="data/nope.csv")),
    # Config keys (schema), each named.
    Case("misspelt top-level key", r"seeed", config=lambda c: c.update(seeed=c.pop("seed"))),
    Case("repeats not a number", r"'ten'", config=lambda c: c.update(repeats="ten")),
    Case("repeats zero", r"0 is less than the minimum of 1", config=lambda c: c.update(repeats=0)),
    Case("unknown encoding", r"'binary'", config=lambda c: c["datasets"]["splice"].update(encoding="binary")),
    Case("misspelt role", r"'labeled'", config=holdout_roles(labeled=3, test="rest")),
    Case("negative role size", r"-5", config=holdout_roles(train=-5, test="rest")),
    Case("url source without sha256", r"datasets.x.sha256: a url data set needs its sha256",
         config=lambda c: c["datasets"].update(x={"source": "url", "url": "https://h/x", "format": "uci_wine"})),
    Case("csv source without class_column", r"'class_column' is a required property",
         config=lambda c: c["datasets"]["people"].pop("class_column")),
    Case("unknown source", r"'ftp'", config=people(source="ftp")),
    # Config references (semantic checks), each named by key.
    Case("split of an unknown data set", r"splits.people_holdout.dataset: unknown data set 'persons'",
         config=lambda c: c["splits"]["people_holdout"].update(dataset="persons")),
    Case("unknown shipped data set", r"datasets.mnist.source: Unknown bundled data set 'mnist'",
         config=lambda c: c["datasets"].update(mnist={"source": "bundled"})),
    Case("encoding on numeric data", r"datasets.people.encoding: only sequence data",
         config=people(encoding="onehot")),
    # Splits fixed by the data (role_column, rows), named by key, column, value, line.
    Case("role cell that is not a role",
         r"splits.people_fixed.role_column: column 'role' of datasets.people \(data/people.csv\) holds "
         r"'dev' at line 11, which is not a role",
         csv=add_column("role", lambda i: "dev" if i == 9 else roles_of(i)), config=fixed_split(role_column="role")),
    Case("role column missing from the CSV",
         r"splits.people_fixed.role_column: datasets.people \(data/people.csv\) has no column 'role' "
         r"\(its columns: \['sample', 'height', 'weight', 'kind'\]\)", config=fixed_split(role_column="role")),
    Case("role column of a shipped data set",
         r"splits.people_fixed.role_column: datasets.wine \(the shipped wine\) has no column 'role'",
         config=fixed_split(dataset="wine", role_column="role")),
    Case("role_column naming the class column",
         r"splits.people_fixed.role_column: 'kind' is the class column of datasets.people",
         config=fixed_split(role_column="kind")),
    Case("stage needing a role the role column lacks",
         r"mixture.splits: split 'people_fixed' has no role \['labelled'\] \(its role column 'role' holds "
         r"\['test', 'train'\]\)",
         csv=add_column("role", roles_of),
         config=lambda c: (fixed_split(role_column="role")(c), c["mixture"].update(splits=["people_fixed"]))),
    Case("overlapping row ranges",
         r"splits.people_fixed.rows: the ranges of test and train overlap \(row 25 is in both\)",
         config=fixed_split(rows={"train": "0:30", "test": "25:"})),
    Case("row range beyond the CSV's rows",
         r"splits.people_fixed.rows.test: range '30:45' reaches row 45, beyond the data set's 40 rows",
         config=fixed_split(rows={"train": "0:30", "test": "30:45"})),
    Case("row range beyond a shipped data set",
         r"splits.people_fixed.rows.test: range '100:200' reaches row 200, beyond the data set's 178 rows",
         config=fixed_split(dataset="wine", rows={"train": "0:100", "test": "100:200"})),
    Case("bad row range string",
         r"splits.people_fixed.rows.train: '0-30' is not a range of rows; write start:stop",
         config=fixed_split(rows={"train": "0-30", "test": "30:"})),
    Case("empty row range", r"splits.people_fixed.rows.test: range '30:10' holds no row",
         config=fixed_split(rows={"train": "0:10", "test": "30:10"})),
    Case("split with both roles and rows",
         r"splits.people_holdout: a split takes exactly one of roles .* it has roles and rows",
         config=lambda c: c["splits"]["people_holdout"].update(rows={"train": "0:30"})),
    Case("split with no roles, role_column or rows", r"splits.people_fixed: a split takes exactly one of .* it has none",
         config=fixed_split()),
    Case("stratified fixed split", r"splits.people_fixed.stratify: only a random split \(roles\) is stratified",
         config=fixed_split(rows={"train": "0:30"}, stratify=True)),
    Case("stage naming an unknown split", r"mlp.splits: unknown split 'dna'",
         config=lambda c: c["mlp"].update(splits=["dna"])),
    Case("split without the role a stage needs", r"mixture.splits: split 'people_holdout' has no role \['labelled'\]",
         config=lambda c: c["mixture"].update(splits=["people_holdout"])),
    Case("semi-supervised split without unlabelled rows",
         r"semisupervised.splits: split 'people_holdout' has no role \['labelled', 'unlabelled'\]",
         config=lambda c: c["semisupervised"].update(splits=["people_holdout"])),
    Case("unknown unclassifiable rule", r"'tie' is not one of \['confidence', 'underflow'\]",
         config=lambda c: c["semisupervised"].update(unclassifiable=["tie"])),
    Case("both variance floors", r"relative_min_variance",
         config=lambda c: c["em"].update(relative_min_variance=1e-3)),
    Case("EM setting among the comparison's mixture overrides",
         r"comparison.params.mixture: \['tol'\] are EM settings",
         config=lambda c: c["comparison"]["params"].update(mixture={"n_components": 4, "tol": 1e-3})),
    Case("unknown comparison parameter", r"comparison.params.svm: unknown parameter\(s\) \['gamma'\]",
         config=lambda c: c["comparison"]["params"].update(svm={"gamma": 1.0})),
    Case("hold-out split that does not exist", r"comparison.holdout_splits: unknown split 'dna_holdout'",
         config=lambda c: c["comparison"].update(holdout_splits=["dna_holdout"])),
    Case("hold-out split without a train role",
         r"comparison.holdout_splits: split 'bacteria' has no role \['train'\]",
         config=lambda c: c["comparison"].update(holdout_splits=["bacteria"])),
    Case("zero CV repeats", r"cv_repeats", config=lambda c: c["comparison"].update(cv_repeats=0)),
    Case("EM setting left out", r"'max_iter' is a required property",
         config=lambda c: c["em"].pop("max_iter")),
    Case("no variance floor", r"min_variance", config=lambda c: c["em"].pop("min_variance")),
    Case("figures' level left out", r"figures: the stage\(s\) \['mixture', .*\] read this section",
         config=lambda c: c.pop("figures")),
    Case("one-class model in the comparison", r"'svdd' is not one of \['mixture'",
         config=lambda c: c["comparison"]["models"].append("svdd")),
    Case("study naming an unknown data set", r"imputation_study.datasets: unknown data set 'heart'",
         config=lambda c: c["imputation_study"].update(datasets=["heart"])),
    # A value given twice in a list.
    Case("kernel count given twice", r"\[2, 2, 8\] has non-unique elements",
         config=lambda c: c["kernel_sweep"].update(n_components=[2, 2, 8])),
    Case("hidden size given twice", r"\[4, 4\] has non-unique elements",
         config=lambda c: c["mlp"].update(hidden_sizes=[4, 4])),
    Case("missing rate given twice", r"\[0.1, 0.1\] has non-unique elements",
         config=lambda c: c["imputation_study"].update(missing_rates=[0.1, 0.1])),
    Case("model given twice", r"has non-unique elements",
         config=lambda c: c["comparison"].update(models=["knn", "knn", "svm"])),
    # Defect 5: comparison.params values, by the estimator's own validation.
    Case("knn n_neighbors 0", r"comparison.params.knn.n_neighbors: n_neighbors must be .*1",
         config=lambda c: c["comparison"]["params"].update(knn={"n_neighbors": 0})),
    Case("knn n_neighbors above the training rows",
         r"comparison.params.knn.n_neighbors: 100000 is more than the \d+ training rows of data set 'wine'",
         config=lambda c: c["comparison"]["params"].update(knn={"n_neighbors": 100000})),
    Case("svm C negative", r"comparison.params.svm.C: C must be",
         config=lambda c: c["comparison"]["params"].update(svm={"C": -1})),
    Case("tree max_depth not a number", r"comparison.params.tree_unpruned.max_depth: max_depth .*'deep'",
         config=lambda c: (c["comparison"]["models"].append("tree_unpruned"),
                           c["comparison"]["params"].update(tree_unpruned={"max_depth": "deep"}))),
    Case("max_train_rows 0", r"comparison.params.knn.max_train_rows: max_train_rows must be None or an integer >= 2, got 0",
         config=lambda c: c["comparison"]["params"].update(knn={"max_train_rows": 0})),
    Case("random forest n_estimators 1.5", r"comparison.params.random_forest.n_estimators: .*1.5",
         config=lambda c: (c["comparison"]["models"].append("random_forest"),
                           c["comparison"]["params"].update(random_forest={"n_estimators": 1.5}))),
    Case("mlp regime unknown", r"comparison.params.mlp.regime: .*'turbo'",
         config=lambda c: c["comparison"]["params"].update(mlp={"regime": "turbo"})),
    # Defect 6: data that pass the value checks but no stage could use.
    Case("single-class data set", r"datasets.people: every row has the class 'tall' \(column 'kind'\); a classifier needs at least two classes",
         csv=lambda rows: [rows[0]] + [r.rsplit(",", 1)[0] + ",tall" for r in rows[1:]]),
    Case("identical rows with group_duplicates",
         r"comparison.n_folds: 3 folds need at least 3 distinct rows of every class, because comparison.group_duplicates",
         csv=lambda rows: [rows[0]] + [f"s0,150.0,50,{'tall' if i % 3 else 'short'}" for i in range(40)],
         config=compare(["people"], 3)),
    Case("role of no row", r"splits.people_holdout.roles.train: the role 'train' gets no row of data set 'people'",
         config=holdout_roles(train=0, test="rest")),
    # Defect 6: every stage's minimum rows per role and class, on the rows its jobs get.
    Case("class of 2 rows, 2 folds, the comparison's MLP with early stopping",
         r"comparison.n_folds: with 2 folds, fold \d of CV repeat 0 trains on fewer than 2 rows of "
         r"class 'rare' \(1\) of data set 'people'.*comparison's model mlp.*early_stopping",
         csv=rare_class(2), config=compare(["people"], 2)),
    Case("class of 3 rows, 2 folds, the comparison's MLP with early stopping",
         r"comparison.n_folds: with 2 folds, .* class 'rare' \(1\)", csv=rare_class(3),
         config=compare(["people"], 2)),
    Case("MLP stage split with a class of 1 training row",
         r"splits.people_holdout: repeat 0 gives the role 'train' fewer than 2 rows of class 'rare' "
         r"\(1\) of data set 'people'.*mlp stage's regime early_stopping \(mlp.regimes",
         csv=rare_class(2), config=lambda c: c["mlp"].update(splits=["people_holdout"])),
    Case("hold-out split with a class of 1 training row",
         r"splits.people_holdout: repeat 0 gives the role 'train' fewer than 2 rows of class 'rare'"
         r".*comparison's model mlp", csv=rare_class(2),
         config=lambda c: c["comparison"].update(holdout_splits=["people_holdout"])),
    Case("training role of one class",
         r"splits.people_fixed: repeat 0 gives the role 'train' only class 'tall' of data set "
         r"'people'; the MLP \(mlp.splits\) needs at least two classes",
         config=lambda c: (fixed_split(rows={"train": "1:3", "test": "3:"})(c),
                           c["mlp"].update(splits=["people_fixed"]))),
    Case("svm split with fewer training rows than svm.grid.n_folds",
         r"splits.people_fixed: repeat 0 gives the role 'train' 2 rows of data set 'people'; "
         r"svm.grid.n_folds: 3 folds need at least 3",
         config=lambda c: (fixed_split(rows={"train": "0:2", "test": "3:"})(c),
                           c["svm"].update(splits=["people_fixed"]))),
    # Defect 7: empty stage lists and absurd repeats.
    Case("no ensembles split", r"ensembles.splits: \[\] (should be non-empty|is too short)",
         config=lambda c: c["ensembles"].update(splits=[])),
    Case("no svm split", r"svm.splits: \[\] (should be non-empty|is too short)",
         config=lambda c: c["svm"].update(splits=[])),
    Case("repeats beyond their bound", r"repeats: 100,000 is above its bound 1,000: each repeat .* set limits: {repeats: 100000}",
         config=lambda c: c.update(repeats=100000)),
    # Size-like keys: each bounded before any job, the message estimating the cost and naming
    # the key that lifts the bound.
    Case("CV repeats of hours", r"comparison.cv_repeats: 100,000 is above its bound 1,000: .*"
         r"\(2,700,000 fits\)\. If you mean it, lift the bound: set limits: {comparison.cv_repeats: 100000}",
         config=lambda c: c["comparison"].update(cv_repeats=100000)),
    Case("SVM grid of 10^10 cells", r"svm.grid.n_points: 100,000 is above its bound 100: "
         r"20,000,000,000 grid cells .* set limits: {svm.grid.n_points: 100000}",
         config=lambda c: c["svm"]["grid"].update(n_points=100000)),
    Case("SVM grid levels", r"svm.grid.n_levels: 1,000 is above its bound 20: .*grid cells",
         config=lambda c: c["svm"]["grid"].update(n_levels=1000)),
    Case("hidden layer of 18 GiB", r"mlp.hidden_sizes: 10,000,000 is above its bound 10,000: .*"
         r"240 features: 18.1 GiB.* set limits: {mlp.hidden_sizes: 10000000}",
         config=lambda c: c["mlp"].update(hidden_sizes=[4, 10_000_000])),
    Case("posterior draws of 1e10", r"comparison.bayes_samples: 10,000,000,000 is above its bound "
         r"1,000,000: .* = 372.5 GiB", config=lambda c: c["comparison"].update(bayes_samples=10**10)),
    Case("ensemble of a million members", r"ensembles.max_members: 1,000,000 is above its bound "
         r"10,000: .*fits", config=lambda c: c["ensembles"].update(max_members=10**6)),
    Case("comparison's bagging of a million trees",
         r"comparison.params.bagging.n_estimators: 1,000,000 is above its bound 10,000: .*"
         r"set limits: {comparison.params.bagging.n_estimators: 1000000}",
         config=lambda c: c["comparison"]["params"].update(bagging={"n_estimators": 10**6})),
    Case("kernel sweep of 100000 kernels", r"kernel_sweep.n_components: 100,000 is above its bound 1,000",
         config=lambda c: c["kernel_sweep"].update(n_components=[2, 100000])),
    Case("limit of a key that has no bound", r"limits.seed: not a bounded key; the bounded keys are",
         config=lambda c: c.update(limits={"seed": 5})),
    Case("data set name of 240 characters",
         r"datasets: 'n0n1n2.*' is too long \(at most 64 characters: a name becomes part of file names",
         config=lambda c: c["datasets"].update({LONG_NAME: {"source": "bundled", "bundled_name": "wine"}})),
    Case("split name of 300 characters", r"splits: 'n0n1n2.*' is too long \(at most 64 characters",
         config=lambda c: c["splits"].update({LONG_NAME * 2: {"dataset": "wine", "roles": {"train": 10}}})),
    # Every number finite, every integer key an integer, every estimator setting checked by the
    # estimator's or the stage function's own validation before any job, named by its key.
    Case("MKL's C infinite", KEY_FIRST + r"svm.mkl.C: .inf is not a finite number",
         config=lambda c: c["svm"]["mkl"].update(C=float("inf"))),
    Case("rope infinite", KEY_FIRST + r"comparison.rope: .inf is not a finite number",
         config=lambda c: c["comparison"].update(rope=float("inf"))),
    Case("rope above 1", KEY_FIRST + r"comparison.rope: 2.0 is greater than the maximum of 1",
         config=lambda c: c["comparison"].update(rope=2.0)),
    Case("grid range reversed", KEY_FIRST + r"svm.grid.log10_C_range: grid ranges must be \(low, high\) with low < high, got \(3.0, -1.0\)",
         config=lambda c: c["svm"]["grid"].update(log10_C_range=[3.0, -1.0])),
    Case("grid range beyond float64", KEY_FIRST + r"svm.grid.log10_sigma_range: the end 400 gives sigma = 10\^400 = inf, "
         r"and sigma must be a finite float > 0",
         config=lambda c: c["svm"]["grid"].update(log10_sigma_range=[400, 500])),
    Case("SVDD width whose square is 0", KEY_FIRST + r"svm.svdd: these settings fail .* ZeroDivisionError",
         config=lambda c: c["svm"]["svdd"].update(sigma=1e-320)),
    Case("EM tolerance .nan", KEY_FIRST + r"em.tol: .nan is not a finite number",
         config=lambda c: c["em"].update(tol=float("nan"))),
    Case("EM max_iter written 1.0e+3", KEY_FIRST + r"em.max_iter: 1000.0 is a float, and this key takes an "
         r"integer: write it as the integer 1000", config=lambda c: c["em"].update(max_iter=1000.0)),
    Case("EM tolerance written 1e-6 (text in YAML 1.1)", KEY_FIRST + r"em.tol: '1e-6' is not of type 'number'; "
         r"YAML 1.1 .* takes 1e-6 for text: .* write 1.0e-6", config=lambda c: c["em"].update(tol="1e-6")),
    Case("url with a user and password", r"datasets.x.url: 'ftp://\*\*\*@host/x.data'",
         config=lambda c: c["datasets"].update(x={"source": "url", "url": "ftp://alice:s3cret@host/x.data",
                                                  "sha256": "0" * 64, "format": "uci_wine"})),
    Case("alias bomb of 600 bytes", r"config.yaml: its aliases \(\*name\) expand to more than 100,000 values",
         yaml_text=ALIAS_BOMB),
    # Item 5: YAML syntax, named by file, line and column.
    Case("unclosed bracket", r"config.yaml, line 3, column 1: YAML syntax error: while parsing a flow "
         r"sequence expected ',' or '\]'", yaml_text="seed: 7\nrepeats: [2\n"),
    Case("tab indentation", r"config.yaml, line 3, column 1: YAML syntax error: .*'\\t'",
         yaml_text="seed: 7\ndatasets:\n\twine: {}\n"),
    Case("bad indentation", r"config.yaml, line 4, column 4: YAML syntax error",
         yaml_text="seed: 7\ndatasets:\n  wine: {}\n   x: 1\n"),
    Case("a list, not keys", r"config.yaml: expected a mapping of config keys, got list",
         yaml_text="- seed\n- repeats\n"),
]


def build_project(case: Case, directory: Path) -> dict:
    """Write the case's CSV (and config file) into ``directory``; return its config."""
    rows = people_rows()
    if case.csv is not None:
        rows = case.csv(rows)
    (directory / "data").mkdir(parents=True, exist_ok=True)
    (directory / "data" / "people.csv").write_text("\n".join(rows) + ("\n" if rows else ""))
    config = people_config()
    if case.config is not None:
        case.config(config)
    return config


def run_checks(case: Case, directory: Path) -> str:
    """The message the pre-run checks give for ``case`` ('' if none fails)."""
    try:
        if case.yaml_text is not None:
            path = directory / "config.yaml"
            path.write_text(case.yaml_text)
            read_config_file(path)
            return ""
        validate_study_config(build_project(case, directory), SCHEMA, directory)
    except (ValueError, WorkflowError) as exc:
        return str(exc)
    return ""


def test_the_people_project_itself_passes_every_check(tmp_path):
    assert run_checks(Case("good", ""), tmp_path) == ""


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_is_stopped_before_any_job_by_name(case, tmp_path):
    message = run_checks(case, tmp_path)
    assert message, f"{case.name}: no check failed"
    assert re.search(case.message, message, flags=re.DOTALL), message


def test_case_names_are_unique():
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))


if __name__ == "__main__":
    import tempfile

    print("| # | bad input | message now |\n|---|---|---|")
    for number, case in enumerate(CASES, start=1):
        with tempfile.TemporaryDirectory() as scratch:
            text = run_checks(case, Path(scratch)).replace(scratch, "<project>")
        # Snakemake's schema errors go on to print the whole schema: keep the first sentence.
        first = " ".join(text.split()).split(" Failed validating")[0]
        print(f"| {number} | {case.name} | {first.replace('|', '/')} |")
