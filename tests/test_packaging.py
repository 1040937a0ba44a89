"""The two ways to install (pip and conda) ask for the same packages."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _requirement(spec: str) -> tuple[str, str]:
    name, bound = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", spec.strip()).groups()
    return name.lower().replace("_", "-"), bound.replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_side = dict(_requirement(s) for s in project["dependencies"])
    pip_side.update(_requirement(s) for s in project["optional-dependencies"]["test"])

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda_side = dict(
        _requirement(s) for s in env["dependencies"]
        if isinstance(s, str) and not s.startswith(("python", "pip"))
    )
    assert conda_side == pip_side


def test_mixlib_never_imports_scikit_learn():
    offenders = [
        str(path.relative_to(ROOT)) for path in (ROOT / "mixlib").rglob("*.py")
        if re.search(r"^\s*(from|import)\s+sklearn", path.read_text(), flags=re.MULTILINE)
    ]
    assert offenders == []
