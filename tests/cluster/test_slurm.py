"""The study through the SLURM profile on a real single-node SLURM, with and without accounting.

Run as root on a Debian-like machine: ``MIXSTUDY_CLUSTER_TESTS=1 pytest -m cluster``.
``slurm_single_node.sh`` installs and starts munge, MariaDB, slurmdbd, slurmctld and slurmd
on 127.0.0.1 (without accounting: munge, slurmctld and slurmd only); the test config then runs
through ``workflow/profiles/slurm``; every job must have been a SLURM job, every table must
equal a local run's (timings aside), and the grouped SLURM run must take at most
``MIXSTUDY_CLUSTER_MAX_SLOWDOWN`` (default 2) times the local wall time. Every daemon the
script started is stopped again, by PID, whatever happens. The wall times, the ``sacct``
records and the controller's job records of each mode are written to
``$MIXSTUDY_CLUSTER_REPORT_DIR`` (default: the test's temporary directory).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

from tests.pipeline.conftest import copy_workflow, without_timings

SCRIPT = Path(__file__).with_name("slurm_single_node.sh")
ACCOUNT, PARTITION = "mixstudy", "debug"
CORES = int(os.environ.get("MIXSTUDY_CLUSTER_CORES", "2"))

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.skipif(os.environ.get("MIXSTUDY_CLUSTER_TESTS") != "1",
                       reason="cluster tests run only with MIXSTUDY_CLUSTER_TESTS=1"),
    pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                       reason="the single-node SLURM needs root"),
]


def _snakemake(workdir: Path, *args: str, env: dict[str, str] | None = None,
               timeout: float = 900) -> tuple[subprocess.CompletedProcess, float]:
    """Run Snakemake in ``workdir``; return the finished process and its wall time (s)."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                            capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    (workdir / "snakemake-output.txt").write_text(result.stdout + result.stderr)
    assert result.returncode == 0, (
        f"snakemake {' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
    return result, seconds


def _tables(workdir: Path) -> dict[str, pd.DataFrame]:
    """Every table of a run (path -> frame) minus wall-clock measurements: the ``*_seconds``
    columns, metrics and claims (:func:`tests.pipeline.conftest.without_timings`), and
    Snakemake's per-job ``benchmark:`` files (``results/benchmarks/``, time and memory of the
    job itself)."""
    return {str(path.relative_to(workdir)): without_timings(path)
            for path in sorted((workdir / "results").rglob("*.tsv"))
            if path.relative_to(workdir / "results").parts[0] != "benchmarks"}


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    path = Path(os.environ.get("MIXSTUDY_CLUSTER_REPORT_DIR") or tmp_path_factory.mktemp("report"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def local_run(tmp_path_factory, report_dir) -> tuple[Path, float]:
    """The test config run locally on as many cores as the SLURM node has."""
    workdir = copy_workflow(tmp_path_factory.mktemp("local"))
    _, seconds = _snakemake(workdir, "--cores", str(CORES), "--configfile", "config/test.yaml")
    (report_dir / "local.txt").write_text(f"local --cores {CORES}: {seconds:.1f} s\n")
    return workdir, seconds


@contextmanager
def slurm_cluster(state: Path, mode: str) -> Iterator[dict[str, str]]:
    """A running single-node SLURM; yields the environment its clients need, then stops it."""
    env = dict(os.environ, SLURM_CONF=str(state / "etc" / "slurm.conf"))
    try:
        subprocess.run(["bash", str(SCRIPT), "start", str(state), mode], check=True, timeout=900)
        yield env
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", str(state)], timeout=120)


def _submitted_job_ids(output: str) -> list[str]:
    return re.findall(r"has been submitted with SLURM jobid (\d+)", output)


@pytest.mark.parametrize("mode", ["accounting", "no-accounting"])
def test_study_runs_as_slurm_jobs_and_matches_a_local_run(mode, local_run, tmp_path, report_dir):
    local_dir, local_seconds = local_run
    workdir = copy_workflow(tmp_path / "slurm")
    args = ["--workflow-profile", "workflow/profiles/slurm", "--configfile", "config/test.yaml",
            "--default-resources", f"slurm_partition={PARTITION}", "mem_mb=2000", "runtime=30"]
    if mode == "accounting":
        args += [f"slurm_account={ACCOUNT}"]
    else:
        # the README's keys for a cluster without accounting, and without accounts
        args += ["--slurm-status-command", "squeue", "--slurm-no-account"]
    state = Path(os.environ.get("MIXSTUDY_CLUSTER_STATE_DIR") or tmp_path) / f"slurm-{mode}"

    with slurm_cluster(state, mode) as env:
        result, slurm_seconds = _snakemake(workdir, *args, env=env)
        output = result.stdout + result.stderr
        job_ids = _submitted_job_ids(output)
        assert job_ids, output[-3000:]
        if mode == "accounting":
            records = subprocess.run(
                ["sacct", "-X", "-n", "-P", "-j", ",".join(job_ids),
                 "-o", "JobID,JobName,State,Account,Partition,AllocCPUS,ReqMem,Timelimit,Elapsed"],
                env=env, capture_output=True, text=True, check=True).stdout
            rows = [line.split("|") for line in records.strip().splitlines()]
            assert sorted(row[0] for row in rows) == sorted(job_ids), records
            assert all(row[2] == "COMPLETED" for row in rows), records
            assert all(row[3] == ACCOUNT and row[4] == PARTITION for row in rows), records
        else:
            # No accounting: sacct cannot answer, so the controller's log is the record.
            sacct = subprocess.run(["sacct", "-X", "-n"], env=env, capture_output=True, text=True)
            assert sacct.returncode != 0 or not sacct.stdout.strip(), sacct.stdout
            log = (state / "log" / "slurmctld.log").read_text()
            done = set(re.findall(r"_job_complete: JobId=(\d+) done", log))
            assert set(job_ids) <= done, (job_ids, sorted(done))
            assert not re.search(r"_job_complete: JobId=\d+ WEXITSTATUS [1-9]", log)
            records = "\n".join(line for line in log.splitlines()
                                if re.search(r"JobId=(\d+)", line) and "_job_complete" in line)

    (report_dir / f"slurm-{mode}.txt").write_text(
        f"SLURM ({mode}, grouped): {slurm_seconds:.1f} s for {len(job_ids)} submissions; "
        f"local: {local_seconds:.1f} s\n{records}\n")

    local_tables, slurm_tables = _tables(local_dir), _tables(workdir)
    assert sorted(slurm_tables) == sorted(local_tables)
    for name, frame in local_tables.items():
        pd.testing.assert_frame_equal(slurm_tables[name], frame, obj=name)

    max_slowdown = float(os.environ.get("MIXSTUDY_CLUSTER_MAX_SLOWDOWN", "2"))
    assert slurm_seconds <= max_slowdown * local_seconds, (
        f"SLURM run took {slurm_seconds:.0f} s, local {local_seconds:.0f} s")
