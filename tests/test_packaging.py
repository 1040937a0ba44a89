"""The two ways to install (pip and conda) ask for the same packages."""

import ast
import re
import subprocess
import sys
import textwrap
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


#: The only modules that name scikit-learn, inside functions that scikit-learn itself calls
#: (``__sklearn_tags__``) or that import it only once the caller has loaded it.
LAZY_SKLEARN_IMPORTS = {"mixlib/core/base.py", "mixlib/core/exceptions.py"}


def _sklearn_imports(path: Path) -> list[tuple[int, bool]]:
    """(line, at module level) of every import of scikit-learn in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        else:
            continue
        if any(name.split(".")[0] == "sklearn" for name in names):
            found.append((node.lineno, id(node) in top_level))
    return found


def test_mixlib_imports_scikit_learn_only_inside_the_tags_protocol():
    offenders = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "mixlib").rglob("*.py"))
        for line, module_level in _sklearn_imports(path)
        if module_level or path.relative_to(ROOT).as_posix() not in LAZY_SKLEARN_IMPORTS
    ]
    assert offenders == []


def test_importing_and_using_mixlib_never_loads_scikit_learn():
    """Import every module, fit and predict every registry classifier, hit the not-fitted
    error: scikit-learn stays unloaded, so it is no runtime dependency."""
    script = textwrap.dedent("""
        import pkgutil, sys
        import numpy as np
        import mixlib
        from mixlib.core.exceptions import NotFittedError
        from mixlib.experiments.registry import MODELS, make_model

        for module in pkgutil.walk_packages(mixlib.__path__, "mixlib."):
            __import__(module.name)
        rng = np.random.default_rng(0)
        X = rng.standard_normal((60, 3))
        y = np.repeat(["a", "b", "c"], 20)
        for name in MODELS:
            model = make_model(name, None, 0, X=X)
            try:
                model.predict(X)
            except NotFittedError:
                pass
            model.fit(X, y).predict(X)
        loaded = sorted(name for name in sys.modules if name.split(".")[0] == "sklearn")
        assert not loaded, loaded
    """)
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, timeout=600)
