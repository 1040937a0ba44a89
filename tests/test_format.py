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


def test_readme_is_a_front_door_with_both_commands_on_its_first_screen():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 250
    first = lines[:60]
    # .ci/run runs the line after "# 2." verbatim; command 1 is the line after "# 1."
    for number, command in (("1", "snakemake --cores 4"), ("2", "pytest -n auto")):
        (index,) = [i for i, line in enumerate(first) if line.startswith(f"# {number}. ")]
        assert first[index + 1].endswith(command), first[index + 1]


#: The product: what a user reads or runs (process history stays in the issue tracker).
PRODUCT = ["README.md", "Snakefile", "pyproject.toml", "environment.yml", "mixlib", "workflow",
           "profiles", "config", "docs", "tests", "benchmarks", "tools", "requirements", ".ci"]


def test_no_issue_numbers_in_the_product():
    pattern = re.compile(r"issue ?#?[0-9]+", re.IGNORECASE)
    found = []
    for entry in PRODUCT:
        path = ROOT / entry
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            relative = file.relative_to(ROOT).as_posix()
            if "__pycache__" in relative or file.suffix == ".gz":
                continue
            for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{relative}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
