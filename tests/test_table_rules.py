"""Every table of the study has a rule whose ``output:`` names it.

A reader who greps a table's file name in ``workflow/`` finds the rule that makes it: no rule
writes ``results/tables/{table}.tsv`` for a table looked up elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = sorted((ROOT / "workflow" / "rules").glob("*.smk"))
TABLE = re.compile(r'(?<![f\w])"(results/tables/[^"]+\.tsv)"')
#: A rule (or ``use rule``) and its indented body.
RULE = re.compile(r"^(?:rule \w+|use rule \w+ as \w+ with):\n((?:(?: {4}.*)?\n)+)", re.MULTILINE)


def _output_sections() -> list[str]:
    """The text of every rule's ``output:`` section."""
    sections = []
    for path in RULE_FILES:
        for body in RULE.findall(path.read_text()):
            match = re.search(r"^ {4}output:\n((?: {8}.*\n)+)", body, re.MULTILINE)
            if match:
                sections.append(match.group(1))
    return sections


def _pattern(output: str) -> re.Pattern:
    """An output path with wildcards as a regex of the paths it makes."""
    parts = re.split(r"(\{[^}]+\})", output)
    return re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts))


def test_no_table_rule_has_a_wildcard_for_the_table_name():
    outputs = [path for section in _output_sections() for path in TABLE.findall(section)]
    assert outputs, "no table outputs found: the rule parser no longer matches the rule files"
    generic = [path for path in outputs if re.fullmatch(r"results/tables/\{[^}]+\}(\.[^/]*)?\.tsv", path)
               or re.match(r"results/tables/\{", path)]
    assert generic == []


def test_every_table_the_workflow_reads_is_named_by_an_output():
    """Each ``results/tables/...`` path written in a rule file (an input, a target, a claim
    table) matches a rule output whose file name starts with the same literal table name."""
    outputs = [path for section in _output_sections() for path in TABLE.findall(section)]
    referenced = {path for rules in RULE_FILES for path in TABLE.findall(rules.read_text())}
    concrete = {path: re.sub(r"\{[^}]+\}", "x", path) for path in referenced}
    orphans = [path for path in sorted(referenced)
               if not any(_pattern(output).fullmatch(concrete[path]) for output in outputs)]
    assert orphans == []


def test_the_chapter5_tables_are_named_by_their_rules():
    text = (ROOT / "workflow" / "rules" / "semisupervised.smk").read_text()
    outputs = "".join(_output_sections())
    for table in ("semisupervised_rounds", "kernel_sweep", "semisupervised_sensitivity",
                  "kernel_sweep_sensitivity"):
        assert f'"results/tables/{table}.tsv"' in outputs and f"{table}.tsv" in text
