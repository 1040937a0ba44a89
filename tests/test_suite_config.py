"""config/suite.yaml: valid, 20+ data sets, only the comparison, and a Nemenyi
critical difference under 5 ranks for its models."""

from pathlib import Path

import yaml
from mixlib.datasets import BUNDLED
from mixlib.model_selection.significance import nemenyi_critical_difference
from mixlib.pipeline.config_checks import validate_study_config
from mixlib.pipeline.stages import configured_stages

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SUITE = yaml.safe_load((ROOT / "config" / "suite.yaml").read_text())


def test_suite_config_is_valid_and_runs_the_comparison_only():
    config = yaml.safe_load((ROOT / "config" / "suite.yaml").read_text())
    settings = validate_study_config(config, SCHEMA, ROOT)
    assert configured_stages(config) == ["comparison"]
    assert settings.comparison.n_folds == 2 and settings.comparison.cv_repeats == 5


def test_suite_has_every_shipped_data_set_and_power_across_them():
    comparison = SUITE["comparison"]
    assert sorted(comparison["datasets"]) == sorted(SUITE["datasets"]) == sorted(BUNDLED)
    assert len(comparison["datasets"]) >= 20
    study = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert comparison["models"] == study["comparison"]["models"]
    cd = nemenyi_critical_difference(len(comparison["models"]), len(comparison["datasets"]),
                                     comparison["significance_level"])
    assert cd < 5


def test_every_suite_job_declares_a_memory_for_its_data_set():
    comparison = SUITE["comparison"]
    assert sorted(comparison["mem_mb"]) == sorted(comparison["datasets"])
    assert all(100 <= mb <= 4000 for mb in comparison["mem_mb"].values())


def test_a_memory_for_a_data_set_outside_the_comparison_is_named():
    import copy

    import pytest

    config = copy.deepcopy(SUITE)
    config["comparison"]["mem_mb"]["mnist"] = 500
    with pytest.raises(ValueError, match=r"comparison.mem_mb.mnist: 'mnist' is not a data set"):
        validate_study_config(config, SCHEMA, ROOT)
