"""The tables' words and the study's defaults are each written in one place."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import mixlib
from mixlib.core import vocabulary

PACKAGE = Path(mixlib.__file__).parent


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def test_the_any_value_is_defined_only_in_the_vocabulary():
    """No module but :mod:`mixlib.core.vocabulary` binds a name to the string ``"any"``."""
    definitions = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant) \
                    and node.value.value == vocabulary.ANY:
                definitions.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert len(definitions) == 1 and definitions[0].startswith("core/vocabulary.py:"), definitions


def test_no_module_compares_or_fills_with_a_literal_any():
    """Code uses :data:`~mixlib.core.vocabulary.ANY`, not the string, outside the vocabulary."""
    literal = re.compile(r"""(==|!=|\bin\b|=|,|\()\s*["']any["']""")
    found = [f"{path.relative_to(PACKAGE)}:{number}"
             for path in _modules() if path.name != "vocabulary.py"
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if literal.search(line.split("#")[0]) and "``" not in line and '"""' not in line]
    assert found == []


def test_no_semisupervised_default_threshold_outside_the_config():
    """The confidence threshold of the study comes from ``semisupervised.threshold``: the
    experiments read it without a fallback of their own."""
    pattern = re.compile(r"""\.get\(\s*["']threshold["']""")
    found = [f"{path.relative_to(PACKAGE)}:{number}"
             for path in sorted((PACKAGE / "experiments").glob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []
