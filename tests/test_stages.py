"""A config runs the stages whose sections it has (the suite runs the comparison
alone)."""

from pathlib import Path

import pytest
import yaml

from mixlib.pipeline.stages import CLAIM_STAGES, STAGES, configured_stages

ROOT = Path(__file__).resolve().parents[1]


def test_the_study_config_runs_every_stage_and_the_claims():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert configured_stages(config) == [*STAGES, "report"]


def test_a_config_without_a_stage_section_skips_that_stage_and_the_claims():
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    del config["mlp"]
    stages = configured_stages(config)
    assert "mlp" not in stages and "report" not in stages and "comparison" in stages
    assert configured_stages({"comparison": {}}) == ["comparison"]
    assert set(CLAIM_STAGES) <= set(STAGES)


def test_half_a_stage_is_an_error_naming_the_missing_section():
    with pytest.raises(ValueError, match=r"semisupervised: the semisupervised stage also needs "
                                         r"the section\(s\) \['kernel_sweep'\]"):
        configured_stages({"semisupervised": {}})


def test_every_stage_has_its_rule_file():
    for stage in [*STAGES, "report"]:
        assert (ROOT / "workflow" / "rules" / f"{stage}.smk").is_file()
