"""``snakemake --lint`` finds nothing: every script rule declares the study's environment."""

import subprocess
import sys

from mixlib.pipeline.software import conda_environment
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


def test_script_rules_declare_the_environment_file_or_none_without_it(tmp_path):
    environment = tmp_path / "environment.yml"
    environment.write_text("name: study\ndependencies: [python=3.11]\n")
    assert conda_environment(environment) == str(environment.resolve())
    assert conda_environment(tmp_path / "absent.yml") is None
