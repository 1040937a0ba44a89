"""``pip install mixstudy`` gives the estimators with numpy, scipy and numba only.

pyproject.toml keeps Snakemake, pandas and matplotlib in the [workflow] extra. These tests run
a fresh interpreter in which importing any of them fails, as in an environment without the
extra, and import every estimator family there, then fit and predict with a few of them.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The packages that come with the [workflow] extra only.
WORKFLOW_PACKAGES = ("snakemake", "pandas", "matplotlib", "yaml", "jsonschema")
#: Every family of estimators (and the shared core they build on).
FAMILIES = ("core", "mixture", "semi_supervised", "neural_network", "svm", "tree", "ensemble",
            "neighbors", "linear_model", "generative", "impute")

_BLOCKER = textwrap.dedent(f"""
    import importlib.abc, sys

    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {WORKFLOW_PACKAGES!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}} (the [workflow] extra)")
            return None

    sys.meta_path.insert(0, Missing())
""")


def _run_without_workflow_packages(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _BLOCKER + textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_every_estimator_family_imports_without_the_workflow_extra():
    imports = "\n".join(f"import mixlib.{family}" for family in FAMILIES)
    result = _run_without_workflow_packages(imports + "\nprint('imported')")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "imported"


def test_estimators_fit_and_predict_without_the_workflow_extra():
    result = _run_without_workflow_packages("""
        import numpy as np
        from mixlib.mixture import MixtureClassifier
        from mixlib.neighbors import KNeighborsClassifier
        from mixlib.tree import CARTClassifier

        rng = np.random.default_rng(0)
        X = np.vstack([rng.normal(0, 1, (30, 2)), rng.normal(4, 1, (30, 2))])
        y = np.repeat([0, 1], 30)
        for model in (MixtureClassifier(random_state=0), KNeighborsClassifier(),
                      CARTClassifier(random_state=0)):
            print(type(model).__name__, (model.fit(X, y).predict(X) == y).mean())
    """)
    assert result.returncode == 0, result.stderr
    accuracies = dict(line.split() for line in result.stdout.splitlines())
    assert set(accuracies) == {"MixtureClassifier", "KNeighborsClassifier", "CARTClassifier"}
    # two well-separated classes: every model gets (nearly) all of its training set right
    assert all(float(value) >= 0.95 for value in accuracies.values()), accuracies
