"""``snakemake --lint`` finds nothing, and every job names the study's conda environment."""

import subprocess
import sys

import pytest

from mixlib.pipeline.software import conda_environment_name, use_conda_environment
from tests.pipeline.conftest import ROOT, copy_workflow


def test_snakemake_lint_passes(tmp_path):
    workdir = copy_workflow(tmp_path / "lint")
    result = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=workdir,
                            capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Lints for" not in output and "good condition" in output


def test_the_environment_named_on_rules_is_environment_yml():
    assert conda_environment_name(ROOT / "environment.yml") == "mixstudy"


class _Rule:
    def __init__(self, script, conda_env=None):
        self.script, self.conda_env = script, conda_env


def test_script_rules_get_the_environment_and_others_keep_theirs(tmp_path):
    (tmp_path / "environment.yml").write_text("name: study\ndependencies: [python=3.11]\n")
    script, target, own = _Rule("../scripts/x.py"), _Rule(None), _Rule("y.py", "envs/y.yaml")
    use_conda_environment([script, target, own], tmp_path / "environment.yml")
    assert (script.conda_env, target.conda_env, own.conda_env) == ("study", None, "envs/y.yaml")
    missing = _Rule("x.py")
    use_conda_environment([missing], tmp_path / "absent.yml")
    assert missing.conda_env is None


def test_an_environment_file_without_a_name_is_an_error(tmp_path):
    (tmp_path / "environment.yml").write_text("dependencies: [python=3.11]\n")
    with pytest.raises(ValueError, match="environment.yml: no 'name:'"):
        conda_environment_name(tmp_path / "environment.yml")
