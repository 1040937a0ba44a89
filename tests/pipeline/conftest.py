"""Run the Snakemake DAG in a scratch copy of the workflow."""

import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from mixlib.pipeline.io import read_table

ROOT = Path(__file__).resolve().parents[2]


def copy_workflow(destination: Path) -> Path:
    """Copy what a run needs (the Snakefile, workflow/ with its rules, profiles/, config/, and
    the environment.yml its rules name) into ``destination``."""
    destination.mkdir(parents=True, exist_ok=True)
    for folder in ("workflow", "profiles", "config"):
        shutil.copytree(ROOT / folder, destination / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for file in ("Snakefile", "environment.yml"):
        shutil.copy2(ROOT / file, destination / file)
    return destination


def without_timings(path: Path) -> pd.DataFrame:
    """A table minus its wall-clock measurements (``*_seconds`` columns, metric or claim rows)
    and its provenance hash (which names the run: commit, environment, config)."""
    frame = read_table(path)
    frame = frame.drop(columns=[c for c in frame.columns
                                if c.endswith("_seconds") or c == "provenance"])
    for column in ("metric", "id"):   # timed metrics, and claims measured from them
        if column in frame.columns:
            frame = frame[~frame[column].astype(str).str.endswith("_seconds")]
    return frame.reset_index(drop=True)


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``python -m snakemake ARGS`` in ``workdir``; on failure show its output and logs."""
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=workdir, capture_output=True, text=True,
    )
    if check and result.returncode != 0:
        logs = "\n".join(
            f"--- {path.relative_to(workdir)}\n{path.read_text()[-3000:]}"
            for path in sorted((workdir / "results" / "logs").rglob("*.log"))
        ) if (workdir / "results" / "logs").exists() else ""
        pytest.fail(f"snakemake {' '.join(args)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-6000:]}\n{logs}")
    return result


def assert_dry_run_stops_before_any_job(case, workdir: Path) -> None:
    """The project of a bad-input ``case`` (:func:`tests.test_bad_inputs.build_project`) in
    ``workdir``: ``snakemake -n`` fails with the case's message and writes nothing."""
    from tests.test_bad_inputs import build_project

    config = build_project(case, workdir)
    (workdir / "config/people.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(workdir, "-n", "--configfile", "config/people.yaml", check=False)
    assert result.returncode != 0
    assert re.search(case.message, result.stdout + result.stderr), result.stderr[-2000:]
    assert not (workdir / "results").exists() and not (workdir / "resources").exists()


@pytest.fixture(scope="session", autouse=True)
def shared_numba_cache(tmp_path_factory) -> None:
    """One numba cache for every DAG of the session (its workers' included): the first DAG's
    compile jobs write the machine code, the later DAGs' compile jobs and fits load it instead
    of compiling the same loops again in each scratch copy. The workflow keeps a
    ``NUMBA_CACHE_DIR`` it finds set (``workflow/rules/common.smk``); Snakemake's jobs inherit
    it from this process's environment."""
    shared = tmp_path_factory.getbasetemp().parent  # the session's, common to its workers
    os.environ.setdefault("NUMBA_CACHE_DIR", str(shared / "numba_cache"))


def _run_test_config(workdir: Path) -> Path:
    copy_workflow(workdir)
    snakemake(workdir, "--cores", "2", "--configfile", "config/test.yaml")
    return workdir


@pytest.fixture(scope="session")
def test_run(tmp_path_factory) -> Path:
    """The whole DAG of config/test.yaml, run once per test session.

    Under pytest-xdist the workers share one run: the first worker to ask for it runs the DAG
    in the session's common temporary folder while the others wait on a lock; each worker then
    takes its own copy (modification times kept, so Snakemake has nothing to do in it), since
    some tests run Snakemake there (``--report``, dry runs) and two Snakemake processes cannot
    share one working directory.
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return _run_test_config(tmp_path_factory.mktemp("run_a"))
    shared = tmp_path_factory.getbasetemp().parent  # the session's, common to its workers
    with open(shared / "test_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if (shared / "test_run.failed").exists():
            pytest.fail("the DAG run of config/test.yaml failed in another worker: see its error")
        if not (shared / "test_run.done").exists():
            try:
                _run_test_config(shared / "test_run")
            except BaseException:
                (shared / "test_run.failed").touch()
                raise
            (shared / "test_run.done").touch()
    own = tmp_path_factory.mktemp("run_a") / "run"
    shutil.copytree(shared / "test_run", own, symlinks=True)  # copy2: modification times kept
    return own
