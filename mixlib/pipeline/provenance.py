"""What produced a run's results: code version, resolved config, packages, Python, BLAS.

The record is written to ``results/provenance.json`` by the ``provenance`` rule, shown in the
report, and its hash is the ``provenance`` column of the claims and comparison tables, so a
table found on its own can be traced to the record of the run that wrote it.

The hash covers only what can change a number: the commit and any uncommitted change, the
resolved config, the installed packages, Python, the BLAS and its thread settings, and the
platform. Nothing that varies between two identical runs (dates, paths, host names) enters it,
so a rerun of a clean checkout gives the same record and reruns nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd

from mixlib.datasets.download import redact
from mixlib.pipeline.io import PROVENANCE_COLUMN, write_text

#: Environment variable that hands the record from the Snakemake process to its jobs, so every
#: job stamps the same hash without recomputing it.
ENVIRONMENT_KEY = "MIXSTUDY_PROVENANCE"
#: Thread settings that decide how many threads BLAS and OpenMP use.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _git(directory: Path, *args: str) -> str | None:
    """Output of ``git -C directory ARGS``, or None when git or the repository is missing."""
    try:
        result = subprocess.run(["git", "-C", str(directory), *args], capture_output=True,
                                check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return result.stdout.decode("utf-8", errors="replace")


def code_state(directory: str | Path) -> dict[str, Any]:
    """The git state of the checkout holding ``directory``.

    Returns ``commit`` (None outside a git checkout), ``dirty`` (any tracked file modified or
    any untracked file not ignored), ``changed_files`` (``git status --porcelain`` lines) and
    ``diff_sha256``, the SHA-256 of ``git diff HEAD`` and of the untracked files' names, which
    tells two different uncommitted states apart.
    """
    directory = Path(directory)
    commit = _git(directory, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None, "changed_files": [], "diff_sha256": None}
    status = _git(directory, "status", "--porcelain") or ""
    changed = sorted(line for line in status.splitlines() if line.strip())
    diff = (_git(directory, "diff", "HEAD", "--no-ext-diff", "--binary") or "") + "\n".join(
        line for line in changed if line.startswith("??"))
    return {
        "commit": commit.strip(),
        "dirty": bool(changed),
        "changed_files": changed,
        "diff_sha256": hashlib.sha256(diff.encode()).hexdigest() if changed else None,
    }


def checkout_directory(workflow_directory: str | Path) -> Path:
    """The directory whose git state describes the code: the workflow's if it is a git
    checkout, else that of the installed ``mixlib`` (a copy of the workflow running an
    editable install, as the pipeline tests do)."""
    if _git(Path(workflow_directory), "rev-parse", "HEAD") is not None:
        return Path(workflow_directory)
    return Path(__file__).resolve().parents[2]


def blas_state() -> dict[str, Any]:
    """numpy's BLAS and LAPACK as built, the thread variables every job runs with (the
    pipeline sets them to 1 unless the user has), and, when threadpoolctl is installed (the
    ``[test]`` extra), the BLAS and OpenMP libraries loaded (numpy's and scipy's may differ).

    Thread counts as the calling process sees them are left out: the Snakemake process loads
    numpy before it sets the thread variables its jobs inherit.
    """
    import numpy as np

    build = np.show_config(mode="dicts")["Build Dependencies"]
    state: dict[str, Any] = {
        name: {key: build[name].get(key) for key in ("name", "version", "openblas configuration")}
        for name in ("blas", "lapack") if name in build
    }
    state["thread_variables"] = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        state["threadpools"] = "threadpoolctl not installed"
    else:
        import scipy.linalg  # noqa: F401  scipy's own BLAS, loaded whatever was imported before

        pools = [{key: pool.get(key) for key in ("user_api", "internal_api", "version",
                                                 "threading_layer", "architecture")}
                 for pool in threadpool_info()]
        # sorted: the order of loading depends on the order of imports
        state["threadpools"] = sorted(pools, key=lambda pool: json.dumps(pool, sort_keys=True))
    return state


def package_versions() -> dict[str, str]:
    """Every installed distribution, normalised name -> version."""
    versions = {}
    for distribution in metadata.distributions():
        name = distribution.metadata["Name"]
        if name:
            versions[name.lower().replace("_", "-")] = distribution.version
    return dict(sorted(versions.items()))


def _relative(path: str | Path) -> str:
    """``path`` relative to the working directory when inside it (the same in every clone)."""
    path = Path(path).absolute()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def collect_provenance(config: Mapping[str, Any], config_files: list[str],
                       workflow_directory: str | Path) -> dict[str, Any]:
    """The provenance record of a run of ``config`` (as resolved: the schema's defaults
    filled in) from the workflow in ``workflow_directory``.

    ``hash`` is the first 12 hex digits of SHA-256 over the canonical JSON of every other
    field; ``config_sha256`` the SHA-256 of the config alone. The password of a URL in the
    config is recorded as ``***`` (:func:`mixlib.datasets.download.redact`).
    """
    # credentials in a data set's url are hidden (http://alice:***@host/...)
    resolved = json.loads(redact(json.dumps(dict(config), default=str)))
    record = {
        "code": code_state(checkout_directory(workflow_directory)),
        "config_files": [_relative(path) for path in config_files],
        "config_sha256": _digest(resolved),
        "config": resolved,
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation()},
        "platform": {"system": platform.system(), "release": platform.release(),
                     "machine": platform.machine(), "libc": "-".join(platform.libc_ver())},
        "blas": blas_state(),
        "packages": package_versions(),
    }
    return {"hash": _digest(record)[:12], **record}


def current_provenance(config: Mapping[str, Any], config_files: list[str],
                       workflow_directory: str | Path) -> dict[str, Any]:
    """The run's record: collected once by the Snakemake process and handed to its jobs
    through the environment (:data:`ENVIRONMENT_KEY`), collected afresh where it is absent."""
    if ENVIRONMENT_KEY in os.environ:
        return json.loads(os.environ[ENVIRONMENT_KEY])
    record = collect_provenance(config, config_files, workflow_directory)
    os.environ[ENVIRONMENT_KEY] = json.dumps(record)
    return record


def first_line(code: Mapping[str, Any]) -> str:
    """The run's first console line, from :func:`code_state`: the commit, and whether the
    checkout has uncommitted changes (then the results cannot be traced to a commit alone)."""
    if code["commit"] is None:
        where = "code outside a git checkout (no commit recorded)"
    elif code["dirty"]:
        where = (f"UNCOMMITTED CHANGES in {len(code['changed_files'])} file(s) on top of commit "
                 f"{code['commit'][:10]}: results will not match that commit")
    else:
        where = f"commit {code['commit'][:10]}, no uncommitted change"
    return f"mixstudy: {where}."


def write_provenance(record: Mapping[str, Any], path: str | Path) -> None:
    """Write ``record`` as indented JSON at ``path``, and a copy named by its hash in the
    ``provenance/`` folder next to it, so the hash in an older table still finds its record
    after a later run has rewritten ``path``."""
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    path = Path(path)
    write_text(text, path.parent / "provenance" / f"{record['hash']}.json")
    write_text(text, path)


def stamp(table: pd.DataFrame, record_hash: str | None = None) -> pd.DataFrame:
    """``table`` with a last column ``provenance`` holding the run's hash (from the
    environment the Snakemake process set; ``record_hash`` overrides it)."""
    if record_hash is None:
        record_hash = json.loads(os.environ[ENVIRONMENT_KEY])["hash"]
    return table.assign(**{PROVENANCE_COLUMN: record_hash})
