"""The workflow's files are formatted by snakefmt, and say the same as the README."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_snakefile_and_rule_files_are_snakefmt_formatted():
    # settings in pyproject.toml ([tool.snakefmt]); `snakefmt Snakefile workflow/rules` formats them
    rule_files = sorted((ROOT / "workflow/rules").glob("*.smk"))
    result = subprocess.run([sys.executable, "-m", "snakefmt", "--check", "Snakefile",
                             "workflow/rules"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # every file was looked at: the top-level Snakefile and each rule file
    assert f"All {len(rule_files) + 1} file(s) would be left unchanged" in result.stderr


def test_snakefile_header_gives_the_readme_report_command():
    header = (ROOT / "Snakefile").read_text().split("\n\n")[0]
    readme = (ROOT / "README.md").read_text()
    (command,) = re.findall(r"snakemake --report \S+", header)
    assert f"`{command}`" in readme
