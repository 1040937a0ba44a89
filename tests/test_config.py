"""Config validation: the JSON schema (keys, types) and the semantic checks (names, sizes)."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from mixlib.datasets import load_source
from mixlib.catalogue.settings import ComparisonProtocol, EMSettings
from mixlib.datasets.checks import check_classes_fill_folds
from mixlib.pipeline.config_checks import (
    check_config, schema_references, split_role_names, validate_study_config,
)
from mixlib.pipeline.datasets import dataset_source

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def _config(name="config.yaml"):
    return yaml.safe_load((ROOT / "config" / name).read_text())


@pytest.mark.parametrize("name", ["config.yaml", "test.yaml"])
def test_shipped_configs_are_valid(name):
    settings = validate_study_config(_config(name), SCHEMA, ROOT)
    assert isinstance(settings.em, EMSettings) and isinstance(settings.comparison, ComparisonProtocol)
    assert settings.em == EMSettings.from_mapping(_config(name)["em"])


def test_the_schema_declares_the_roles_each_stage_reads():
    references = {".".join(path): (kind, roles) for path, kind, roles in schema_references(SCHEMA)}
    assert references["mixture.splits"] == ("splits", ("labelled",))
    assert references["mlp.splits"] == ("splits", ("train", "test"))
    assert references["comparison.holdout_splits"] == ("splits", ("train", "test"))
    assert references["semisupervised.splits"] == ("splits", ("labelled", "unlabelled", "test"))
    assert references["comparison.datasets"] == ("datasets", ())
    # every stage key that names splits in the study's config is declared
    config = _config()
    named = {f"{section}.{key}" for section, keys in config.items() if isinstance(keys, dict)
             for key in keys if key in ("split", "splits", "holdout_splits")}
    assert named <= set(references)


def test_schema_fills_defaults():
    config = _config()
    config["datasets"]["wine"] = {}
    del config["splits"]["bacteria"]["stratify"]
    validate(config, SCHEMA)
    assert config["datasets"]["wine"]["source"] == "bundled"
    assert config["splits"]["bacteria"]["stratify"] is False


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c.update(seeed=1), "seeed"),
        (lambda c: c.update(repeats="ten"), "ten"),
        (lambda c: c["datasets"]["splice"].update(encoding="binary"), "binary"),
        (lambda c: c["splits"]["bacteria"]["roles"].update(labeled=3), "labeled"),
        (lambda c: c["datasets"].update(x={"source": "url", "url": "http://h/x", "sha256": "1"}),
         "sha256"),
        (lambda c: c["datasets"].update(x={"source": "csv", "path": "a.csv"}), "class_column"),
        (lambda c: c["semisupervised"].update(restart="cold"), "cold"),
        (lambda c: c["semisupervised"].update(unclassifiable=["tie"]), "tie"),
        (lambda c: c["semisupervised"].update(margin=0.1), "margin"),
        (lambda c: c["em"].update(relative_min_variance=1e-3), "relative_min_variance"),
        (lambda c: c["semisupervised_sensitivity"].update(thresholds=[1.5]), "1.5"),
    ],
)
def test_schema_errors_name_the_bad_key_or_value(edit, message):
    config = _config()
    edit(config)
    with pytest.raises(WorkflowError, match=message):
        validate(config, SCHEMA)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c["splits"]["bacteria"].update(dataset="bacteria"),
         r"splits.bacteria.dataset: unknown data set 'bacteria'"),
        (lambda c: c["splits"]["dna_mlp"]["roles"].update(train=3000),
         r"splits.dna_mlp.roles: the roles ask for 3300 rows .* only 3190"),
        (lambda c: c["datasets"].update(mnist={"source": "bundled"}),
         r"datasets.mnist.source: Unknown bundled data set 'mnist'"),
        (lambda c: c["datasets"].update(x={"source": "url", "url": "http://h/x", "format": "iris"}),
         r"datasets.x.sha256: a url data set needs its sha256"),
        (lambda c: c["datasets"].update(iris={"source": "url"}),  # url and format known, not sha256
         r"datasets.iris.sha256: a url data set needs its sha256"),
        (lambda c: c["datasets"]["wine"].update(encoding="onehot"),
         r"datasets.wine.encoding: only sequence data"),
        (lambda c: c["datasets"].update(mine={"source": "csv", "path": "no/such.csv", "class_column": "c"}),
         r"datasets.mine.path: no file"),
        (lambda c: c["mlp"].update(splits=["dna"]), r"mlp.splits: unknown split 'dna'"),
        (lambda c: c["mixture"].update(splits=["bacteria", "dna_mlp"]),
         r"mixture.splits: split 'dna_mlp' has no role \['labelled'\]"),
        (lambda c: c["semisupervised"].update(splits=["wine_holdout"]),
         r"semisupervised.splits: split 'wine_holdout' has no role \['labelled', 'unlabelled'\]"),
        (lambda c: c["kernel_sweep"].update(splits=["bacterium"]),
         r"kernel_sweep.splits: unknown split 'bacterium'"),
        (lambda c: c["comparison"]["params"].update(svm={"gamma": 1.0}),
         r"comparison.params.svm: unknown parameter\(s\) \['gamma'\]"),
        (lambda c: c["comparison"]["models"].append("lda"),
         r"comparison.models: unknown model\(s\) \['lda'\]; the catalogue's classifiers are"),
        (lambda c: c["comparison"]["models"].append("svdd"),
         r"comparison.models: unknown model\(s\) \['svdd'\]"),
        (lambda c: c["comparison"]["params"].update(lda={"shrinkage": 0.1}),
         r"comparison.params: unknown model\(s\) \['lda'\]"),
        (lambda c: c["imputation_study"].update(datasets=["heart"]),
         r"imputation_study.datasets: unknown data set 'heart'"),
    ],
)
def test_semantic_errors_name_the_key(edit, message):
    config = copy.deepcopy(_config())
    edit(config)
    with pytest.raises(ValueError, match=message):
        check_config(config, SCHEMA, ROOT)


def test_csv_split_sizes_are_checked_against_the_file(tmp_path):
    (tmp_path / "mine.csv").write_text("a,c\n1,x\n2,y\n3,x\n4,y\n")
    config = {
        "datasets": {"mine": {"source": "csv", "path": "mine.csv", "class_column": "c"}},
        "splits": {"s": {"dataset": "mine", "roles": {"train": 3, "test": 2}}},
    }
    with pytest.raises(ValueError, match=r"splits.s.roles: the roles ask for 5 rows .* only 4"):
        check_config(config, SCHEMA, tmp_path)


def test_fold_check_names_the_key_the_data_set_and_each_small_class():
    labels = ["a"] * 10 + ["b"] * 3 + ["c"] * 4
    check_classes_fill_folds(labels, 3, "mine")
    with pytest.raises(ValueError, match=r"comparison.n_folds: 4 folds .* data set 'mine' has "
                                         r"fewer of class 'b' \(3\)\. Lower"):
        check_classes_fill_folds(labels, 4, "mine")


def test_command_line_check_places_a_yaml_error_of_a_configfile(tmp_path, capsys):
    # Snakemake reads a --configfile before any project code and gives no line: this does.
    from mixlib.pipeline.cli import main

    good, bad = tmp_path / "good.yaml", tmp_path / "my.yaml"
    good.write_text("seed: 1\n")
    bad.write_text("seed: 1\ndatasets:\n  wine: {source: bundled\n")
    assert main([str(good)]) == 0
    assert main([str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"my.yaml, line 4, column 1: YAML syntax error: .* began at line 3, column 9",
                     err), err


def test_schema_accepts_each_form_of_a_split_and_rejects_two_at_once():
    config = _config()
    config["splits"]["dna_fixed"] = {"dataset": "splice", "rows": {"train": "0:2000", "test": "2000:"}}
    config["splits"]["mine"] = {"dataset": "splice", "role_column": "role"}
    validate(config, SCHEMA)
    # A fixed split gets stratify's default, false, which means nothing for it.
    assert config["splits"]["dna_fixed"]["stratify"] is False
    config["splits"]["mine"]["rows"] = {"train": "0:10"}
    with pytest.raises(WorkflowError, match="is valid under each of"):
        validate(config, SCHEMA)
    config = _config()
    config["splits"]["dna_fixed"] = {"dataset": "splice", "rows": {"holdout": "0:10"}}
    with pytest.raises(WorkflowError, match="holdout"):
        validate(config, SCHEMA)


def test_a_rows_split_of_a_shipped_data_set_passes_the_checks_and_gives_its_roles_to_stages():
    config = copy.deepcopy(_config("test.yaml"))
    config["splits"]["dna_fixed"] = {"dataset": "splice", "rows": {"train": "0:2000", "test": "2000:"}}
    config["ensembles"]["splits"] = ["dna_fixed"]
    check_config(config, SCHEMA, ROOT)
    config["mixture"]["splits"] = ["dna_fixed"]
    with pytest.raises(ValueError, match=r"mixture.splits: split 'dna_fixed' has no role \['labelled'\];"):
        check_config(config, SCHEMA, ROOT)


def test_role_column_splits_read_their_roles_from_the_csv(tmp_path):
    rows = ["a,c,fold"] + [f"{i},{'xy'[i % 2]},{'labelled' if i < 4 else 'unlabelled' if i < 8 else 'test'}"
                           for i in range(12)]
    (tmp_path / "mine.csv").write_text("\n".join(rows) + "\n")
    config = {
        "datasets": {"mine": {"source": "csv", "path": "mine.csv", "class_column": "c"}},
        "splits": {"s": {"dataset": "mine", "role_column": "fold"}},
        "semisupervised": {"splits": ["s"]},
    }
    check_config(config, SCHEMA, tmp_path)
    spec = dataset_source(config, "mine")
    assert spec["role_columns"] == {"fold": "splits.s.role_column"}
    assert "role_columns" not in dataset_source({"datasets": {"w": {}}, "splits": {}}, "w")
    table = load_source("mine", spec, tmp_path)
    assert split_role_names(config["splits"]["s"], table) == {"labelled", "unlabelled", "test"}
    assert split_role_names(config["splits"]["s"], None) is None
    assert split_role_names({"rows": {"train": "0:1"}}, None) == {"train"}
    config["mlp"] = {"splits": ["s"]}
    with pytest.raises(ValueError, match=r"mlp.splits: split 's' has no role \['train'\] \(its role column 'fold' holds"):
        check_config(config, SCHEMA, tmp_path)


def test_the_timing_tolerance_default_is_the_claims_codes():
    """claims.timing_tolerance: the schema's default (a run's) and the claims code's (a library
    call's) are one value, and an absent key takes it."""
    from mixlib.analysis.claims_measures import TIMING_TOLERANCE

    schema = yaml.safe_load(Path(SCHEMA).read_text())
    key = schema["properties"]["claims"]["properties"]["timing_tolerance"]
    assert key["default"] == TIMING_TOLERANCE
    config = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())
    assert "timing_tolerance" not in config["claims"]
    validate(config, SCHEMA)
    assert config["claims"]["timing_tolerance"] == TIMING_TOLERANCE
