"""Placeholder account or partition: a SLURM run stops before submitting anything."""

import os
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from mixlib.pipeline.cluster import (
    ClusterSettingsError,
    check_slurm_workflow,
    is_placeholder,
    slurm_placeholders,
)
from tests.pipeline.conftest import copy_workflow

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "docs/slurm-profile/config.yaml"      # the site's settings: a user profile
WORKFLOW_PROFILE = ROOT / "profiles/slurm/config.yaml"  # the workflow's cluster settings
DEFAULT_PROFILE = ROOT / "profiles/default/config.yaml"


def _workflow(executor: str | None, jobs: list[tuple[str, dict]], no_account: bool = False):
    """A stand-in for snakemake's Workflow with just what check_slurm_workflow reads."""
    needrun = [SimpleNamespace(rule=SimpleNamespace(name=rule), resources=resources)
               for rule, resources in jobs]
    return SimpleNamespace(
        executor_plugin=None if executor is None else SimpleNamespace(name=executor),
        executor_settings=SimpleNamespace(no_account=no_account),
        dag=SimpleNamespace(needrun_jobs=lambda: needrun),
    )


PLACEHOLDERS = {"slurm_account": "<your-account>", "slurm_partition": "<your-partition>"}


def test_is_placeholder():
    assert is_placeholder("<your-account>")
    assert is_placeholder(" <your-partition> ")
    assert not is_placeholder("mixstudy")
    assert not is_placeholder("")
    assert not is_placeholder(None)
    assert not is_placeholder(2000)


def test_placeholders_are_collected_per_key_value_and_rule():
    jobs = [("split", dict(PLACEHOLDERS, mem_mb=1000)),
            ("fetch", dict(PLACEHOLDERS)),
            ("claims", {"slurm_account": "lab", "slurm_partition": "<your-partition>"})]
    assert slurm_placeholders(jobs) == {
        "slurm_account": {"<your-account>": ["fetch", "split"]},
        "slurm_partition": {"<your-partition>": ["claims", "fetch", "split"]},
    }
    filled = [("split", {"slurm_account": "lab", "slurm_partition": "short"})]
    assert slurm_placeholders(filled) == {}


def test_no_account_setting_skips_the_account():
    jobs = [("split", dict(PLACEHOLDERS))]
    assert list(slurm_placeholders(jobs, no_account=True)) == ["slurm_partition"]


def test_check_names_the_key_and_where_to_set_it():
    workflow = _workflow("slurm", [("split", {"slurm_account": "lab",
                                              "slurm_partition": "<your-partition>"})])
    with pytest.raises(ClusterSettingsError) as error:
        check_slurm_workflow(workflow)
    message = str(error.value)
    assert "slurm_partition is '<your-partition>' (rules: split)" in message
    assert "slurm_account is" not in message
    assert "docs/slurm-profile/config.yaml" in message
    assert "--default-resources slurm_partition=PARTITION" in message
    assert "no job was submitted" in message


def test_check_ignores_other_executors_and_filled_values():
    jobs = [("split", dict(PLACEHOLDERS))]
    for executor in (None, "local", "dryrun", "slurm-jobstep"):
        check_slurm_workflow(_workflow(executor, jobs))
    check_slurm_workflow(_workflow("slurm", [("split", {"slurm_account": "lab",
                                                        "slurm_partition": "short"})]))
    with pytest.raises(ClusterSettingsError, match="slurm_partition"):
        check_slurm_workflow(_workflow("slurm", jobs, no_account=True))


def test_shipped_profile_holds_the_placeholders_the_check_knows():
    profile = yaml.safe_load(PROFILE.read_text())
    resources = profile["default-resources"]
    assert is_placeholder(resources["slurm_account"])
    assert is_placeholder(resources["slurm_partition"])
    # the study's defaults for jobs whose rule declares none, in the same (replaced-as-a-whole) list
    assert yaml.safe_load(DEFAULT_PROFILE.read_text())["default-resources"].items() \
        <= resources.items()


def test_cluster_profile_keeps_the_default_profiles_settings_and_no_site_settings():
    """--workflow-profile profiles/slurm replaces profiles/default: the scheduler, the quiet
    console and the report settings come along; the site's resources stay in the user profile,
    which a workflow profile's default-resources would replace."""
    default = yaml.safe_load(DEFAULT_PROFILE.read_text())
    cluster = yaml.safe_load(WORKFLOW_PROFILE.read_text())
    local_only = {"cores", "default-resources"}
    assert {key: cluster.get(key) for key in default if key not in local_only} == \
        {key: value for key, value in default.items() if key not in local_only}
    assert "default-resources" not in cluster and cluster["executor"] == "slurm"
    assert not any(is_placeholder(value) for value in cluster.values())


@pytest.mark.pipeline
def test_profile_unchanged_fails_before_any_submission(tmp_path):
    """The real Snakemake with the example user profile as shipped and the cluster profile:
    stopped by the check, sbatch never called."""
    pytest.importorskip("snakemake_executor_plugin_slurm", reason='needs pip install -e ".[workflow,slurm]"')
    workdir = copy_workflow(tmp_path / "run")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    calls = tmp_path / "slurm-calls.txt"
    # Every SLURM client the executor could call records its call and fails.
    for command in ("sbatch", "sacct", "squeue", "sinfo", "sacctmgr", "sshare", "scancel"):
        script = fake_bin / command
        script.write_text(f"#!/bin/sh\necho {command} \"$@\" >> {calls}\nexit 1\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, PATH=f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    env.pop("SLURM_CONF", None)
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "--profile", str(PROFILE.parent),
         "--workflow-profile", "profiles/slurm",
         "--configfile", "config/test.yaml"],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "ClusterSettingsError" in output, output
    assert "slurm_account is '<your-account>'" in output
    assert "slurm_partition is '<your-partition>'" in output
    submitted = calls.read_text() if calls.exists() else ""
    assert "sbatch" not in submitted, submitted
    assert not (workdir / "results").exists() or not any((workdir / "results").rglob("*.tsv"))
