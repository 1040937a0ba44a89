"""``snakemake --lint`` finds nothing: every script rule declares the study's environment."""

import subprocess
import sys

from mixlib.pipeline.software import use_conda_environment
from tests.pipeline.conftest import copy_workflow


def test_snakemake_lint_passes(tmp_path):
    workdir = copy_workflow(tmp_path / "lint")
    result = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=workdir,
                            capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Lints for" not in output and "good condition" in output
    # from the root, Snakemake finds the top-level Snakefile and loads profiles/default itself
    assert "Using workflow specific profile profiles/default" in output


class _Rule:
    def __init__(self, script, conda_env=None):
        self.script, self.conda_env = script, conda_env


def test_script_rules_declare_the_environment_file_and_others_keep_theirs(tmp_path):
    environment = tmp_path / "environment.yml"
    environment.write_text("name: study\ndependencies: [python=3.11]\n")
    script, target, own = _Rule("../scripts/x.py"), _Rule(None), _Rule("y.py", "envs/y.yaml")
    use_conda_environment([script, target, own], environment)
    assert (script.conda_env, target.conda_env, own.conda_env) == (
        str(environment.resolve()), None, "envs/y.yaml")
    missing = _Rule("x.py")
    use_conda_environment([missing], tmp_path / "absent.yml")
    assert missing.conda_env is None
