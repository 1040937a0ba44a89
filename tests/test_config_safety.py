"""A config is data: bounded sizes, finite numbers, YAML merge keys, bounded aliases, no
Python run from a config file, and messages that echo no long value and no password."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from mixlib.pipeline.config import (MAX_MESSAGE_LINES, check_numbers, expanded_size,
                                    load_config_text, read_config_file, redact_credentials,
                                    safe_message, short_repr)
from mixlib.pipeline.config_checks import bounded_keys, check_limits
from tests.test_bad_inputs import ALIAS_BOMB

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
TEST_CONFIG = yaml.safe_load((ROOT / "config" / "test.yaml").read_text())


def test_a_merge_key_is_read_and_a_key_beside_it_overrides_the_merged_one(tmp_path):
    path = tmp_path / "merge.yaml"
    path.write_text("em: &em {init: report, tol: 1.0e-6, max_iter: 200}\n"
                    "impute:\n  <<: {method: mean, kernels_per_feature: 2}\n  method: kernel_mode\n"
                    "other:\n  <<: *em\n  max_iter: 5\n")
    config = read_config_file(path)
    assert config["impute"] == {"method": "kernel_mode", "kernels_per_feature": 2}
    assert config["other"] == {"init": "report", "tol": 1e-6, "max_iter": 5}


def test_a_key_written_twice_beside_a_merge_is_still_refused(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("em:\n  <<: {tol: 1.0}\n  max_iter: 3\n  max_iter: 4\n")
    with pytest.raises(ValueError, match=r"line 4, column 3: error: key 'max_iter' is given twice"):
        read_config_file(path)


def test_the_alias_bomb_stops_at_once_with_a_short_message(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB.encode()) <= 600
    start = time.process_time()
    with pytest.raises(ValueError) as error:
        read_config_file(path)
    assert time.process_time() - start < 1.0
    assert len(str(error.value).splitlines()) == 1
    assert "expand to more than 100,000 values" in str(error.value)


def test_expanded_size_counts_every_alias_as_its_whole_value():
    node = yaml.compose("a: &a [1, 2]\nb: [*a, *a, *a]\n")
    # mapping 1 + keys a, b 2 + list a (1 + 2) + list b (1 + 3 * 3)
    assert expanded_size(node) == 1 + 2 + 3 + 10
    assert load_config_text("a: &a [1, 2]\nb: [*a, *a]\n") == {"a": [1, 2], "b": [[1, 2], [1, 2]]}


@pytest.mark.pipeline
def test_the_alias_bomb_through_snakemake_prints_at_most_20_lines(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(ALIAS_BOMB)
    run = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-s",
                          str(ROOT / "Snakefile"), "--configfile", str(bomb)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0
    output = run.stdout + run.stderr
    assert "expand to more than 100,000 values" in output
    assert len(output.splitlines()) <= 20, output


YTE_CONFIG = "__use_yte__: true\nseed: ?open({path!r}, 'w').write('ran') or 1\nrepeats: 2\n"


def test_the_project_reads_a_yte_config_without_running_it(tmp_path):
    made = tmp_path / "made_by_the_config"
    path = tmp_path / "evil.yaml"
    path.write_text(YTE_CONFIG.format(path=str(made)))
    with pytest.raises(ValueError, match=r"sets __use_yte__"):
        read_config_file(path)
    assert not made.exists()


@pytest.mark.xfail(strict=True, reason=(
    "Snakemake (9.x) loads every --configfile with yte.process_yaml(require_use_yte=True) in "
    "snakemake.settings.types.ConfigSettings.__post_init__, while it parses its command line "
    "and before the workflow's code runs; no Snakemake option or profile setting turns YTE off"))
def test_snakemake_does_not_run_the_python_of_a_yte_configfile(tmp_path):
    from snakemake.settings.types import ConfigSettings

    made = tmp_path / "made_by_the_config"
    path = tmp_path / "evil.yaml"
    path.write_text(YTE_CONFIG.format(path=str(made)))
    ConfigSettings(configfiles=[path])  # what `snakemake --configfile evil.yaml` does first
    assert not made.exists()


def test_credentials_in_a_url_are_redacted_and_long_values_cut():
    assert redact_credentials("url 'https://alice:s3cret@host/x' and http://bob@h/y") == (
        "url 'https://***@host/x' and http://***@h/y")
    assert len(short_repr("x" * 10_000)) < 200
    assert len(short_repr([[list(range(100))] * 100] * 100)) < 200
    text = safe_message("\n".join(f"line {i}" for i in range(1000)))
    assert len(text.splitlines()) == MAX_MESSAGE_LINES and text.endswith("(981 more lines)")


def test_a_non_finite_number_is_named_inside_the_comparison_params():
    config = {"comparison": {"params": {"svm": {"C": float("inf")}}}}
    with pytest.raises(ValueError, match=r"^comparison.params.svm.C: .inf is not a finite number"):
        check_numbers(config, SCHEMA)


def _size_like(name: str) -> bool:
    return bool(re.search(r"^n_|^max_(?!train)|repeats$|samples$|members$|hidden|kernels", name))


def test_every_size_like_integer_key_of_the_schema_has_a_bound():
    """Walk the schema: an integer key named like a size (n_..., max_..., ...repeats, ...) is
    bounded, or is one of the few bounded by the data instead (checked against it)."""
    bounded = bounded_keys(SCHEMA)
    by_data = {"comparison.n_folds", "svm.grid.n_folds"}  # at most the rows of each class

    def walk(node, path):
        if "$ref" in node:
            target = SCHEMA
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = {**target, **node}
        types = node.get("type")
        if types == "array":
            types = node.get("items", {}).get("type")
        if path and _size_like(path[-1]) and "integer" in str(types):
            yield ".".join(path)
        for key, child in node.get("properties", {}).items():
            yield from walk(child, path + (key,))

    size_keys = set(walk(SCHEMA, ()))
    assert {"comparison.cv_repeats", "mlp.hidden_sizes", "svm.grid.n_points"} <= size_keys
    assert size_keys - by_data <= set(bounded), size_keys - by_data - set(bounded)


def test_a_lifted_bound_lets_the_value_through_and_only_it():
    config = copy.deepcopy(TEST_CONFIG)
    config["comparison"]["cv_repeats"] = 1500
    with pytest.raises(ValueError, match=r"set limits: {comparison.cv_repeats: 1500}"):
        check_limits(config, SCHEMA)
    config["limits"] = {"comparison.cv_repeats": 1500}
    check_limits(config, SCHEMA)
    config["comparison"]["cv_repeats"] = 1501
    with pytest.raises(ValueError, match=r"1,501 is above its bound 1,500"):
        check_limits(config, SCHEMA)


def test_a_bound_of_the_comparison_params_is_lifted_per_model():
    config = copy.deepcopy(TEST_CONFIG)
    config["comparison"]["params"]["bagging"] = {"n_estimators": 20_000}
    config["limits"] = {"comparison.params.random_forest.n_estimators": 20_000}
    with pytest.raises(ValueError, match=r"^comparison.params.bagging.n_estimators: 20,000"):
        check_limits(config, SCHEMA)
    config["limits"] = {"comparison.params.bagging.n_estimators": 20_000}
    check_limits(config, SCHEMA)


DRY_RUN_CASES = ["CV repeats of hours", "grid range beyond float64", "EM max_iter written 1.0e+3"]


@pytest.mark.pipeline
@pytest.mark.parametrize("case", DRY_RUN_CASES)
def test_a_bad_config_key_stops_snakemake_dry_run_before_any_job(case, tmp_path):
    from tests.pipeline.conftest import assert_dry_run_stops_before_any_job, copy_workflow
    from tests.test_bad_inputs import CASES

    bad = next(c for c in CASES if c.name == case)
    assert_dry_run_stops_before_any_job(bad, copy_workflow(tmp_path / "project"))


def test_a_size_beyond_float64_is_refused_with_its_order_of_magnitude():
    config = copy.deepcopy(TEST_CONFIG)
    config["comparison"]["cv_repeats"] = 10**400  # YAML reads 401 digits as an int
    with pytest.raises(ValueError, match=r"^comparison.cv_repeats: about 10\^400 is above its bound"):
        check_limits(config, SCHEMA)
