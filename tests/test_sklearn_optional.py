"""scikit-learn is no runtime dependency: using mixlib never loads it, and mixlib names it only
in the tags protocol (called by scikit-learn) and the not-fitted error (once it is loaded)."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
    """Import every module, fit and predict every catalogue classifier, hit the not-fitted
    error: scikit-learn stays unloaded, so it is no runtime dependency."""
    script = textwrap.dedent("""
        import pkgutil, sys
        import numpy as np
        import mixlib
        from mixlib.core.exceptions import NotFittedError
        from mixlib.catalogue.registry import CLASSIFIERS, make_model
        from mixlib.catalogue.settings import EMSettings

        for module in pkgutil.walk_packages(mixlib.__path__, "mixlib."):
            __import__(module.name)
        rng = np.random.default_rng(0)
        X = rng.standard_normal((60, 3))
        y = np.repeat(["a", "b", "c"], 20)
        given = {"mkl": {"kernels": [{"kernel": "gaussian", "sigma": 1.0}]}}
        for name in CLASSIFIERS:
            model = make_model(name, given.get(name), 0, X=X, em=EMSettings())
            try:
                model.predict(X)
            except NotFittedError:
                pass
            model.fit(X, y).predict(X)
        loaded = sorted(name for name in sys.modules if name.split(".")[0] == "sklearn")
        assert not loaded, loaded
    """)
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT, timeout=600)
