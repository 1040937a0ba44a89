"""The workflow's files are formatted by snakefmt, and say the same as the README."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_snakefile_and_rule_files_are_snakefmt_formatted():
    # settings in pyproject.toml ([tool.snakefmt]); `snakefmt workflow/` formats them
    result = subprocess.run([sys.executable, "-m", "snakefmt", "--check", "workflow"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_snakefile_header_gives_the_readme_report_command():
    header = (ROOT / "workflow/Snakefile").read_text().split("\n\n")[0]
    readme = (ROOT / "README.md").read_text()
    (command,) = re.findall(r"snakemake --report \S+", header)
    assert f"`{command}`" in readme
