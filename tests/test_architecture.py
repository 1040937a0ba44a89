"""The shape of the house: module sizes, import layers, no cycles, no importlib.

Layers, lowest first: ``core``; ``datasets`` and ``model_selection``; the estimator families;
``catalogue`` (the model catalogue and the typed settings); ``experiments`` (the stages);
``analysis``, ``figures`` and ``report`` (the report's HTML of tables); ``pipeline`` (the
Snakemake glue). A module may import its own
layer and the layers below it, never a higher one; figure modules read tables only, so they
import nothing of mixlib but ``core`` and ``figures``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MIXLIB = ROOT / "mixlib"

#: The largest module mixlib may hold, in lines.
MAX_MODULE_LINES = 450

FAMILIES = ("mixture", "impute", "semi_supervised", "neural_network", "svm", "tree", "ensemble",
            "neighbors", "linear_model", "generative")
LAYERS = {"core": 0, "datasets": 1, "model_selection": 1, **{family: 2 for family in FAMILIES},
          "catalogue": 3, "experiments": 4, "analysis": 5, "figures": 5, "report": 5, "pipeline": 6}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(MIXLIB.rglob("*.py"))}


def package_of(module: str) -> str | None:
    """The top-level subpackage of a mixlib module (None for ``mixlib`` itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def imported_modules(path: Path) -> set[str]:
    """The mixlib modules ``path`` imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # "from mixlib.x import y" imports mixlib.x, or the submodule mixlib.x.y
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES
                     else node.module for alias in node.names]
        else:
            continue
        found.update(name for name in names if name.split(".")[0] == "mixlib")
    return found


GRAPH = {name: imported_modules(path) & set(MODULES) for name, path in MODULES.items()}


def test_every_mixlib_package_has_a_layer():
    packages = {package_of(name) for name in MODULES} - {None}
    assert packages <= set(LAYERS), f"packages without a layer: {sorted(packages - set(LAYERS))}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_small(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{name} has {lines} lines (at most {MAX_MODULE_LINES})"


def test_no_import_goes_up_a_layer():
    upward = []
    for name, targets in GRAPH.items():
        source = package_of(name)
        for target in targets:
            if source and package_of(target) and LAYERS[package_of(target)] > LAYERS[source]:
                upward.append(f"{name} -> {target}")
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(sorted(upward))


def test_figures_import_neither_experiments_nor_estimators():
    wrong = [f"{name} -> {target}" for name, targets in GRAPH.items()
             if package_of(name) == "figures" for target in targets
             if package_of(target) not in ("core", "figures")]
    assert not wrong, "figure modules must read tables only:\n" + "\n".join(sorted(wrong))


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules, or None (depth-first search).

    A package's ``__init__`` importing its own submodules is not a cycle: the edge from a
    submodule back to its package (``mixlib.svm.svc -> mixlib.svm``) is followed only when
    the submodule is not inside that package.
    """
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if node.startswith(target + "."):
                continue
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def test_find_cycle_finds_a_cycle_and_ignores_package_inits():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"p": {"p.x"}, "p.x": {"p"}}) is None
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


DYNAMIC_IMPORT = r"importlib(?!\.metadata\b| import metadata\b)"


def test_no_importlib_in_mixlib_or_workflow():
    places = [*MIXLIB.rglob("*.py"), ROOT / "Snakefile", *(ROOT / "workflow").rglob("*.smk"),
              *(ROOT / "workflow").rglob("*.py")]
    # importlib.metadata (installed packages' versions, for the provenance record) loads nothing
    users = [str(path.relative_to(ROOT)) for path in places
             if re.search(DYNAMIC_IMPORT, path.read_text(encoding="utf-8"))]
    assert not users, f"importlib used in {users}: import modules by name a reader can follow"


def workflow_imports() -> set[str]:
    """The mixlib modules the Snakefile and the rule files import when Snakemake parses them."""
    sources = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
    pattern = re.compile(r"^(?:from\s+(mixlib[\w.]*)\s+import|import\s+(mixlib[\w.]*))", re.M)
    return {a or b for path in sources for a, b in pattern.findall(path.read_text(encoding="utf-8"))}


def test_parsing_the_workflow_does_not_import_scipy_stats():
    """Every Snakemake process parses the workflow: the main one, and two per job under SLURM
    (the job and its step). scipy.stats alone takes about a second to import, so the modules
    the rule files import must not load it (the t quantile comes from scipy.special)."""
    modules = sorted(workflow_imports())
    assert "mixlib.pipeline.config" in modules
    code = ("import sys\n" + "".join(f"import {name}\n" for name in modules)
            + "print('scipy.stats' in sys.modules)")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.strip()
    assert loaded == "False", f"importing {modules} imports scipy.stats"


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and its functions."""
    owners = [tree, *(node for node in ast.walk(tree)
                      if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)))]
    return {id(owner.body[0].value) for owner in owners
            if owner.body and isinstance(owner.body[0], ast.Expr)
            and isinstance(owner.body[0].value, ast.Constant)}


def test_only_the_pipeline_names_the_workflow_files():
    """The paths of the workflow's files (``results/...``) and the wildcards in them are the
    workflow's: no library module outside ``mixlib.pipeline`` (the Snakemake glue) writes one
    in its code (a docstring may say where a table goes)."""
    found = []
    for name, path in MODULES.items():
        if package_of(name) == "pipeline":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        found += [f"{name}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and "results/" in node.value and id(node) not in docstrings]
    assert found == []


def test_analysis_fits_no_estimator():
    """The analysis modules take tables in and give tables out: no estimator family, no
    experiment stage, no pipeline glue."""
    allowed = {"core", "model_selection", "catalogue", "analysis"}
    wrong = [f"{name} -> {target}" for name, targets in GRAPH.items()
             if package_of(name) == "analysis" for target in targets
             if package_of(target) not in allowed]
    assert not wrong, "analysis modules must read tables only:\n" + "\n".join(sorted(wrong))


def test_experiments_holds_the_stages_only():
    """The catalogue and the typed settings live in ``mixlib/catalogue``; ``experiments``
    keeps the contract and one module per stage, at most 16 of them."""
    stages = [path.name for path in (MIXLIB / "experiments").glob("*.py")
              if path.name != "__init__.py"]
    assert len(stages) <= 16, sorted(stages)
    assert not {"registry.py", "settings.py"} & set(stages)
