"""The suite's DAG decides the chapter-6 claims across its data sets; the
study's DAG, on 3 data sets, plans no such job."""

import re

import pytest

from tests.pipeline.conftest import copy_workflow, snakemake

pytestmark = pytest.mark.pipeline


def _plan(workdir, configfile: str) -> tuple[dict[str, int], list[str], list[str]]:
    """Jobs per rule, the inputs of `rule all` and of `rule suite_claims` in a dry run."""
    out = snakemake(workdir, "-n", "--quiet", "host", "--configfile", configfile).stdout
    rules = re.findall(r"^(?:local)?rule (\w+):$", out, flags=re.MULTILINE)
    inputs = dict(re.findall(r"^(?:local)?rule (all|suite_claims):\n    input: (.*)$", out, flags=re.MULTILINE))
    return ({rule: rules.count(rule) for rule in set(rules)},
            inputs.get("all", "").split(", "), inputs.get("suite_claims", "").split(", "))


def test_the_suite_plans_the_claims_across_data_sets_and_the_study_does_not(tmp_path):
    workdir = copy_workflow(tmp_path / "plan")
    jobs, targets, claims_inputs = _plan(workdir, "config/suite.yaml")
    assert jobs["suite_claims"] == 1 and "claims" not in jobs
    assert "results/tables/suite_claims.tsv" in targets
    assert claims_inputs == ["results/tables/comparison.tsv"]
    jobs, targets, _ = _plan(workdir, "config/config.yaml")
    assert "suite_claims" not in jobs and jobs["claims"] == 1
    assert not any("suite_claims" in target for target in targets)
