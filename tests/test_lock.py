"""The locked environments agree with pyproject.toml, and conda installs the same lock.

``requirements/run.txt`` and ``requirements/test.txt`` pin every package with its hashes
(``requirements/update`` writes them). These tests fail when pyproject.toml and a lock
disagree: a requirement missing from the lock or pinned outside its range, a pin nothing
needs any more, a pin without hashes, or a lock written by another command.
"""

from __future__ import annotations

import tomllib

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.lockfile import LOCKS, PROJECT, ROOT, header_command, read_lock

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: The extras each lock installs besides the estimators' own requirements.
EXTRAS = {"run": ["workflow"], "test": ["test"]}
#: The options every lock is compiled with (requirements/update).
OPTIONS = "--generate-hashes --universal --python-version 3.11 --fork-strategy fewest"


def requirements(lock: str) -> list[Requirement]:
    """The requirements a lock installs: the core ones, then its extras', with an extra that
    names the project itself (``mixstudy[workflow]``) replaced by that extra's requirements."""
    project = PYPROJECT["project"]
    found, extras, seen = list(project["dependencies"]), list(EXTRAS[lock]), set()
    while extras:
        extra = extras.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for spec in project["optional-dependencies"][extra]:
            requirement = Requirement(spec)
            if canonicalize_name(requirement.name) == canonicalize_name(project["name"]):
                extras += sorted(requirement.extras)
            else:
                found.append(spec)
    return [Requirement(spec) for spec in found]


def test_the_estimators_need_neither_the_workflow_nor_its_tables():
    """``pip install mixstudy`` is the library: Snakemake, pandas and matplotlib come with the
    [workflow] extra, which the run lock and (through [test]) the test lock install."""
    core = {canonicalize_name(Requirement(spec).name)
            for spec in PYPROJECT["project"]["dependencies"]}
    assert core == {"numpy", "scipy", "numba"}
    for lock in LOCKS:
        names = {canonicalize_name(requirement.name) for requirement in requirements(lock)}
        assert {"snakemake", "pandas", "matplotlib"} <= names, lock


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_lock_pins_every_requirement_within_its_range(lock):
    pins = read_lock(LOCKS[lock])
    for requirement in requirements(lock):
        versions = [pin.version for pin in pins if pin.name == canonicalize_name(requirement.name)]
        assert versions, f"{requirement} is not in {LOCKS[lock].name}: run requirements/update"
        outside = [v for v in versions if not requirement.specifier.contains(v, prereleases=True)]
        assert not outside, f"{LOCKS[lock].name} pins {requirement.name} {outside}, " \
                            f"outside {requirement}: run requirements/update"


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_lock_holds_only_what_the_requirements_need(lock):
    pins = read_lock(LOCKS[lock])
    names = {pin.name for pin in pins}
    direct = {canonicalize_name(requirement.name) for requirement in requirements(lock)}
    from_project = {pin.name for pin in pins if PROJECT in pin.via}
    assert from_project == direct, "the lock's direct requirements are not pyproject's: " \
                                   "run requirements/update"
    needed_by = {pin.name: {o for o in pin.via if not o.startswith("-c ")} for pin in pins}
    reached, frontier = set(direct), set(direct)
    while frontier:
        frontier = {name for name, origins in needed_by.items() if origins & frontier} - reached
        reached |= frontier
    assert names == reached, f"pinned but needed by nothing: {sorted(names - reached)}"


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_pin_has_hashes_and_the_lock_its_command(lock):
    pins = read_lock(LOCKS[lock])
    assert pins and all(pin.hashes for pin in pins)
    assert all(h.startswith("sha256:") for pin in pins for h in pin.hashes)
    command = header_command(LOCKS[lock])
    assert command.startswith("uv pip compile pyproject.toml") and OPTIONS in command
    assert command.endswith(f"-o requirements/{LOCKS[lock].name}")


def test_lock_targets_the_lowest_python_the_project_supports():
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert "--python-version 3.11" in OPTIONS


def test_run_lock_pins_the_versions_of_the_test_lock():
    """The tests run on the versions the study runs on."""
    test = {(pin.name, str(pin.marker)): pin.version for pin in read_lock(LOCKS["test"])}
    for pin in read_lock(LOCKS["run"]):
        assert test.get((pin.name, str(pin.marker))) == pin.version, pin.name


def test_run_lock_can_build_the_report():
    """README command 1 installs the run lock, and the README then builds the report with
    ``snakemake --report``, which stops without pygments (Snakemake's "reports" extra)."""
    assert "pygments" in {pin.name for pin in read_lock(LOCKS["run"])}


#: conda's name of a pip package of the run lock, where the two differ.
CONDA_NAMES = {"matplotlib-base": "matplotlib", "snakemake-minimal": "snakemake"}


def test_environment_yml_is_the_run_lock_at_its_versions_without_test_tools():
    """environment.yml pins each direct requirement of the run lock (the estimators, the
    workflow and the report's pygments) at the lock's version, and nothing of the tests."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert all(isinstance(item, str) for item in env["dependencies"]), "no pip section"
    pins = dict(item.split("=", 1) for item in env["dependencies"] if "=" in item)
    assert pins.pop("python") == "3.11"
    conda = {CONDA_NAMES.get(name, name): version for name, version in pins.items()}
    run = {pin.name: pin.version for pin in read_lock(LOCKS["run"])}
    wanted = {canonicalize_name(requirement.name) for requirement in requirements("run")}
    assert set(conda) == wanted | {"pygments"}
    assert {name: run[name] for name in conda} == conda
    test_only = {canonicalize_name(requirement.name) for requirement in requirements("test")}
    assert not (set(conda) & (test_only - wanted))
