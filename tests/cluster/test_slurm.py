"""The study through the SLURM profile on a real single-node SLURM, with and without accounting.

Run as root on a Debian-like machine: ``MIXSTUDY_CLUSTER_TESTS=1 pytest -m cluster``.
``slurm_single_node.sh`` installs and starts munge, MariaDB, slurmdbd, slurmctld and slurmd
on 127.0.0.1 (without accounting: munge, slurmctld and slurmd only); the test config then runs
through ``profiles/slurm``. Asserted: every submission completed (``sacct``, or the
controller's log without accounting); every job of the run ran inside one of those SLURM jobs
(its log names the job); every table equals a local run's (timings aside); and the wall time
SLURM adds per submission stays under the floor measured on the same node just before the
run: what one job alone adds when it goes through the profile instead of running locally.
Every daemon the script started is stopped again, by PID, however the test ends (an error, a
time-out, SIGINT, SIGTERM or SIGHUP from outside, or its process killed: ``teardown.py``). The wall times,
the floor and the ``sacct`` records or controller's job records of each mode are written to
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

from tests.cluster.teardown import stopped_however_it_ends
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
               timeout: float = 3600) -> tuple[subprocess.CompletedProcess, float]:
    """Run Snakemake in ``workdir``; return the finished process and its wall time (s).

    ``timeout`` only guards against a hung run: on a shared node the test config has taken
    over 15 minutes through SLURM (load 12 on 2 CPUs)."""
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


@contextmanager
def slurm_cluster(state: Path, mode: str) -> Iterator[dict[str, str]]:
    """A running single-node SLURM; yields the environment its clients need, then stops it,
    however the test ends (:func:`tests.cluster.teardown.stopped_however_it_ends`: an error,
    a time-out, SIGINT, SIGTERM, SIGHUP, or the test's process killed)."""
    env = dict(os.environ, SLURM_CONF=str(state / "etc" / "slurm.conf"))
    with stopped_however_it_ends(["bash", str(SCRIPT), "stop", str(state)]):
        subprocess.run(["bash", str(SCRIPT), "start", str(state), mode], check=True, timeout=900)
        yield env


def _submitted_job_ids(output: str) -> list[str]:
    return re.findall(r"has been submitted with SLURM jobid (\d+)", output)


def _slurm_args(mode: str) -> list[str]:
    """The profile with this cluster's partition, and the account keys of ``mode``."""
    args = ["--workflow-profile", "profiles/slurm", "--configfile", "config/test.yaml",
            "--default-resources", f"slurm_partition={PARTITION}", "mem_mb=2000", "runtime=30"]
    if mode == "accounting":
        return args + [f"slurm_account={ACCOUNT}"]
    # docs/cluster.md's keys for a cluster without accounting, and without accounts
    return args + ["--slurm-status-command", "squeue", "--slurm-no-account"]


def _slurm_job_of_every_log(workdir: Path) -> dict[str, str | None]:
    """Each job's log -> the SLURM job its first line says it ran in (None: outside SLURM;
    :func:`mixlib.pipeline.workflow.logged_job` writes ``SLURM_JOB_ID`` there)."""
    found = {}
    for log in sorted((workdir / "results" / "logs").rglob("*.log")):
        match = re.search(r"^\S+ \S+ INFO mixstudy\.\w+: rule \w+ .*, SLURM job (\d+)$",
                          log.read_text(), flags=re.MULTILINE)
        found[str(log.relative_to(workdir))] = match.group(1) if match else None
    return found


FLOOR_TARGET = "results/provenance.json"   # one job of about a second, which reads nothing


def _one_job_floor(tmp_path: Path, mode: str, env: dict[str, str]) -> tuple[float, float]:
    """The wall time of one job run locally, and of the same job through the profile.

    Their difference is what SLURM adds to one job that has the node to itself: ``sbatch``,
    scheduling, the job's Snakemake, its ``srun`` step and second Snakemake, and the
    executor's wait until a status check sees it finished."""
    local = copy_workflow(tmp_path / "floor-local")
    _, local_seconds = _snakemake(local, FLOOR_TARGET, "--cores", "1",
                                  "--configfile", "config/test.yaml")
    remote = copy_workflow(tmp_path / "floor-slurm")
    result, slurm_seconds = _snakemake(remote, FLOOR_TARGET, *_slurm_args(mode), env=env)
    job_ids = _submitted_job_ids(result.stdout + result.stderr)
    assert len(job_ids) == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert set(_slurm_job_of_every_log(remote).values()) == set(job_ids)
    return local_seconds, slurm_seconds


@pytest.mark.parametrize("mode", ["accounting", "no-accounting"])
def test_study_runs_as_slurm_jobs_and_matches_a_local_run(mode, tmp_path, report_dir):
    local_dir = copy_workflow(tmp_path / "local")
    workdir = copy_workflow(tmp_path / "slurm")
    state = Path(os.environ.get("MIXSTUDY_CLUSTER_STATE_DIR") or tmp_path) / f"slurm-{mode}"

    with slurm_cluster(state, mode) as env:
        # The local run, the floor and the SLURM run one right after the other, so that all
        # three see the same load on the node (its CPUs may be shared).
        _, local_seconds = _snakemake(local_dir, "--cores", str(CORES),
                                      "--configfile", "config/test.yaml")
        floor_local, floor_slurm = _one_job_floor(tmp_path, mode, env)
        result, slurm_seconds = _snakemake(workdir, *_slurm_args(mode), env=env)
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

    slurm_jobs = _slurm_job_of_every_log(workdir)
    floor = floor_slurm - floor_local
    added = (slurm_seconds - local_seconds) / len(job_ids)
    (report_dir / f"slurm-{mode}.txt").write_text(
        f"SLURM ({mode}, grouped): {slurm_seconds:.1f} s for {len(slurm_jobs)} jobs in "
        f"{len(job_ids)} submissions; local --cores {CORES}: {local_seconds:.1f} s; "
        f"added per submission: {added:.1f} s; floor: one job {floor_slurm:.1f} s through "
        f"SLURM, {floor_local:.1f} s locally, {floor:.1f} s added\n{records}\n")

    # Every job of the run (one log each, the same logs as locally) ran inside one of the
    # SLURM jobs Snakemake submitted, not in the Snakemake that submitted them.
    assert sorted(slurm_jobs) == sorted(_slurm_job_of_every_log(local_dir))
    outside = {log: job for log, job in slurm_jobs.items() if job not in job_ids}
    assert outside == {}, f"jobs that did not run in a submitted SLURM job: {outside}"

    local_tables, slurm_tables = _tables(local_dir), _tables(workdir)
    assert sorted(slurm_tables) == sorted(local_tables)
    for name, frame in local_tables.items():
        pd.testing.assert_frame_equal(slurm_tables[name], frame, obj=name)

    # The bound is the floor itself, with no factor. Submitted one after another, each
    # submission would add at least the floor (a group job more: each of its jobs starts its
    # own Snakemake) and the work would lose the local run's parallelism too. The profile
    # keeps up to 50 submissions in flight on the node's CPUs, so that on average each adds
    # less. A run at or above the floor has lost that overlap (submissions serialised by a
    # resource request, a job limit or the scheduler), or SLURM's cost per job grew with the
    # number of jobs (queue, status queries); either is a regression.
    assert added < floor, (
        f"SLURM added {added:.1f} s per submission ({slurm_seconds:.0f} s against "
        f"{local_seconds:.0f} s locally, {len(job_ids)} submissions); one job alone adds "
        f"{floor:.1f} s")
