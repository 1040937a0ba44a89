"""The locked environments: read ``requirements/*.txt`` and compare them with an installation.

The locks are written by ``requirements/update`` (``uv pip compile --generate-hashes``): one
``name==version [; marker]`` entry per package, its ``--hash`` lines, and ``# via`` comments
naming what needs it (``mixstudy (pyproject.toml)`` for the project's own requirements).

``python -m tests.lockfile requirements/test.txt`` exits non-zero, listing the differences,
unless the running environment holds exactly the packages the lock pins for this platform
(the project itself, pip, setuptools and wheel aside): CI runs it after installing.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
#: Lock file of each install: runtime only, and runtime with the [test] extra.
LOCKS = {"run": ROOT / "requirements" / "run.txt", "test": ROOT / "requirements" / "test.txt"}
#: The ``# via`` origin of a requirement of pyproject.toml.
PROJECT = "mixstudy (pyproject.toml)"
#: Installed distributions that are not the lock's business.
NOT_LOCKED = {"mixstudy", "pip", "setuptools", "wheel"}

_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


@dataclass
class Pin:
    """One entry of a lock."""

    name: str
    version: str
    marker: Marker | None
    hashes: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)

    def applies_here(self) -> bool:
        """Whether the entry is for this interpreter and platform."""
        return self.marker is None or self.marker.evaluate()


def header_command(path: Path) -> str:
    """The command the lock's header says wrote it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[1].lstrip("#").strip()


def read_lock(path: Path) -> list[Pin]:
    """Every entry of a lock written by ``uv pip compile``, in file order."""
    pins: list[Pin] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        entry = _ENTRY.match(line)
        if entry:
            name, version, marker = entry.groups()
            pins.append(Pin(canonicalize_name(name), version, Marker(marker) if marker else None))
        elif not pins or not stripped:
            continue
        elif stripped.startswith("--hash="):
            pins[-1].hashes.append(stripped.removeprefix("--hash=").rstrip(" \\"))
        elif stripped.startswith("# via ") or (stripped.startswith("#   ") and pins[-1].via):
            pins[-1].via.append(stripped.removeprefix("# via ").removeprefix("#").strip())
        elif stripped == "# via":
            pins[-1].via.append("")  # the origins follow, one per line
    for pin in pins:
        pin.via = [origin for origin in pin.via if origin]
    return pins


def pinned_here(path: Path) -> dict[str, str]:
    """``{name: version}`` of the lock's entries for this interpreter and platform."""
    return {pin.name: pin.version for pin in read_lock(path) if pin.applies_here()}


def installed() -> dict[str, str]:
    """``{name: version}`` of the distributions of the running environment."""
    found = {canonicalize_name(dist.metadata["Name"]): dist.version
             for dist in metadata.distributions()}
    return {name: version for name, version in found.items() if name not in NOT_LOCKED}


def differences(path: Path) -> list[str]:
    """How the running environment differs from the lock, one line per package."""
    wanted, have = pinned_here(path), installed()
    lines = [f"{name}: locked {wanted.get(name, '-')}, installed {have.get(name, '-')}"
             for name in sorted(set(wanted) | set(have)) if wanted.get(name) != have.get(name)]
    return lines


if __name__ == "__main__":
    lock = Path(sys.argv[1])
    found = differences(lock)
    if found:
        sys.exit(f"the environment differs from {lock}:\n" + "\n".join(found))
    print(f"the environment holds exactly the {len(pinned_here(lock))} packages of {lock}")
