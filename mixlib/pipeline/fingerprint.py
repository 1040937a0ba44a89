"""Code provenance for reruns: a fingerprint of the mixlib modules a job's script imports.

Snakemake reruns a ``script:`` job when the script changes, not when the library the script
imports does. Every such rule therefore declares one more parameter, ``code``
(:func:`script_fingerprint`): the SHA-256 of the mixlib files in the script's import closure. Editing one module changes the ``code`` of exactly
the jobs that import it, and Snakemake's ``params`` rerun trigger (on by default) plans them:
``snakemake -n`` gives the reason "Params have changed since last execution".

The closure is found statically from the ``import`` statements (at module level and inside
functions, absolute and relative), starting from the script (and from the modules a rule says
its script imports by name, the figure rules' drawing module) and following every mixlib module
it reaches; importing ``mixlib.a.b`` also runs ``mixlib/__init__.py`` and
``mixlib/a/__init__.py``, which are part of it. Files that are not Python but sit in a package
of the closure (a matplotlib style, the shipped data sets) are part of it too.

The model catalogue (:mod:`mixlib.catalogue.registry`) names each estimator class by its
dotted path and imports it when a model is built (as its :func:`~mixlib.catalogue.registry.make_mixture`
imports the mixture classifier), and which one is built is decided by a model name at run
time. A job depends on an entry's estimator packages when a module of its
closure builds it: ``make_model("svm"`` (a model named in the code) builds that model,
``make_mixture(`` the mixture classifier;
``.build(`` or ``make_model(`` with a name computed at run time build the job's ``model``
wildcard, or every model for a job without one; ``make_imputer(`` builds an imputer
(:mod:`mixlib.impute`). Importing the catalogue for its names alone (the config checks)
builds nothing.

Everything is computed once per Snakemake invocation (:func:`functools.cache`): each file is
read and hashed once, however many jobs share it.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import mixlib

PACKAGE = "mixlib"
PACKAGE_DIR = Path(mixlib.__file__).resolve().parent
#: The modules whose functions import the estimator they build (see the module docstring): the
#: catalogue.
BUILDERS = frozenset({"mixlib.catalogue.registry"})


@cache
def module_path(module: str) -> Path | None:
    """The file of a mixlib module (``__init__.py`` for a package), or None if there is none."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = PACKAGE_DIR.joinpath(*parts[1:])
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    relative = path.resolve().relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def _imported_modules(node: ast.AST, module: str, is_package: bool) -> set[str]:
    """The mixlib modules named by the import statements under ``node``.

    ``from a import b`` names ``a`` and, when ``b`` is a submodule, ``a.b``; relative imports are
    resolved against ``module``.
    """
    names: set[str] = set()
    for statement in ast.walk(node):
        if isinstance(statement, ast.Import):
            names.update(alias.name for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            if statement.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - statement.level + 1]
                base = ".".join(anchor + ([statement.module] if statement.module else []))
            else:
                base = statement.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in statement.names)
    return {name for name in names if module_path(name) is not None}


#: An import statement at the start of a line, parenthesised names included. Reading these
#: lines alone is ten times faster than parsing whole modules; an import-like line of a
#: docstring can only add a module, never hide one.
IMPORT_LINE = re.compile(
    r"^[ \t]*(from[ \t]+[.\w]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)",
    re.MULTILINE,
)


def _import_statements(text: str) -> ast.Module:
    statements = []
    for match in IMPORT_LINE.finditer(text):
        try:
            statements.extend(ast.parse(match.group(1).strip()).body)
        except SyntaxError:
            continue  # prose in a docstring that starts with "import"
    return ast.Module(body=statements, type_ignores=[])


@cache
def direct_imports(path: Path) -> frozenset[str]:
    """The mixlib modules a file imports itself; for the builders, none inside their functions
    or for type hints only (``if TYPE_CHECKING:``)."""
    module = _module_name(path) if path.resolve().is_relative_to(PACKAGE_DIR) else "__main__"
    is_package = path.name == "__init__.py"
    if module in BUILDERS:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names: set[str] = set()
        for node in tree.body:
            type_only = isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not type_only:
                names |= _imported_modules(node, module, is_package)
        return frozenset(names)
    return frozenset(_imported_modules(_import_statements(path.read_text(encoding="utf-8")),
                                       module, is_package))


def _with_parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def module_closure(roots: Iterable[str]) -> frozenset[str]:
    """Every mixlib module that importing ``roots`` runs (the builders' own imports excepted)."""
    return _closure(frozenset(roots))


@cache
def _closure(roots: frozenset[str]) -> frozenset[str]:
    seen: set[str] = set()
    pending = [parent for root in roots for parent in _with_parents(root)]
    while pending:
        module = pending.pop()
        if module in seen or module_path(module) is None:
            continue
        seen.add(module)
        for imported in direct_imports(module_path(module)):
            pending.extend(_with_parents(imported))
    return frozenset(seen)


@cache
def script_closure(script: Path, named: tuple[str, ...] = ()) -> frozenset[str]:
    """The mixlib modules a Snakemake script's imports run (the builders' own imports
    excepted), with those of the modules ``named`` that it imports by name at run time."""
    return module_closure(direct_imports(script.resolve()) | frozenset(named))


#: A call that builds a model named in the code, and one that builds the model a job names
#: at run time (its ``model`` wildcard): ``.build(``, or ``make_model(`` whose first argument
#: is not a string literal. And a call that builds the study's mixture classifier, or an imputer.
BUILDS_LITERAL_MODEL = re.compile(r"""\bmake_model\(\s*["'](\w+)["']""")
BUILDS_NAMED_MODEL = re.compile(r"""\.build\(|\bmake_model\((?!\s*["'])""")
BUILDS_MIXTURE = re.compile(r"\bmake_mixture\(")
BUILDS_IMPUTER = re.compile(r"\bmake_imputer\(")


@cache
def _models_built(module: str) -> tuple[frozenset[str], bool, bool, bool]:
    """What a module (not a builder itself) builds: the models it names as literals,
    whether it builds a model named at run time, a mixture, an imputer."""
    path = module_path(module)
    if module in BUILDERS or path is None:
        return frozenset(), False, False, False
    text = path.read_text(encoding="utf-8")
    return (frozenset(BUILDS_LITERAL_MODEL.findall(text)), bool(BUILDS_NAMED_MODEL.search(text)),
            bool(BUILDS_MIXTURE.search(text)), bool(BUILDS_IMPUTER.search(text)))


def _estimator_modules(spec: Any) -> set[str]:
    """The family packages of the estimator classes a catalogue entry builds."""
    return {path.rpartition(".")[0] for path in spec.estimator_paths if isinstance(path, str)}


def _builds_run(modules: Iterable[str], model: str | None) -> set[str]:
    """The estimator packages a job's builds import: those of the models its modules name;
    of its ``model`` (every model's for a job without one) if a module builds a model named
    at run time; the mixture's if one builds mixtures; the imputers' if one builds an
    imputer."""
    from mixlib.catalogue.registry import MODELS

    packages: set[str] = set()
    for module in modules:
        literals, named, mixture, imputer = _models_built(module)
        for literal in literals:
            packages |= _estimator_modules(MODELS[literal])
        if named:
            specs = [MODELS[model]] if model in MODELS else list(MODELS.values())
            for spec in specs:
                packages |= _estimator_modules(spec)
        if mixture:
            packages |= _estimator_modules(MODELS["mixture"])
        if imputer:
            packages.add("mixlib.impute")
    return packages


@cache
def _data_files(module: str) -> tuple[Path, ...]:
    """Files that are not Python in a package's folder and its non-package subfolders."""
    path = module_path(module)
    if path is None or path.name != "__init__.py":
        return ()
    files = []
    for candidate in sorted(path.parent.rglob("*")):
        if not candidate.is_file() or candidate.suffix in (".py", ".pyc"):
            continue
        relative = candidate.relative_to(path.parent)
        if "__pycache__" in relative.parts:
            continue
        folders = [path.parent.joinpath(*relative.parts[:i]) for i in range(1, len(relative.parts))]
        if not any((folder / "__init__.py").is_file() for folder in folders):
            files.append(candidate)
    return tuple(files)


def job_files(script: Path, model: str | None = None, named: tuple[str, ...] = ()) -> list[Path]:
    """The mixlib files whose content a job running ``script`` (for ``model``, importing the
    modules ``named`` by name) depends on."""
    modules = set(script_closure(script, named))
    if modules & BUILDERS:
        modules |= module_closure(_builds_run(modules, model))
    files = {module_path(module) for module in modules}
    for module in modules:
        files.update(_data_files(module))
    return sorted(files)


@cache
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def code_fingerprint(script: Path, model: str | None = None, named: tuple[str, ...] = ()) -> str:
    """SHA-256 over (path in mixlib, content hash) of every file of :func:`job_files`."""
    digest = hashlib.sha256()
    for path in job_files(script, model, named):
        relative = path.relative_to(PACKAGE_DIR).as_posix()
        digest.update(f"{relative}\0{_file_digest(path)}\n".encode())
    return digest.hexdigest()[:16]


def script_fingerprint(script: Path, *named: str) -> Callable[[Any], str]:
    """The ``code`` parameter of a rule whose jobs run ``script``: a function of a job's
    wildcards giving its :func:`code_fingerprint` (which depends on the ``model`` wildcard
    where the job has one). Each ``script:`` rule declares it in its ``params``
    (``code=fingerprint_of("<script>.py")``, ``workflow/rules/common.smk``); a figure rule
    also names the module of the drawing function its script imports by name
    (``code=fingerprint_of("figure.py", "mixlib.figures.kernel_sweep")``)."""
    script = Path(script)

    def fingerprint(wildcards: Any) -> str:
        return code_fingerprint(script, wildcards.get("model"), named)

    return fingerprint
