"""What the study's jobs cost: wall time and peak memory per rule, from Snakemake's benchmark files.

Heavy rules write ``results/benchmarks/<rule>/<wildcards>.tsv`` (the ``benchmark:`` directive):
one row with the job's wall-clock seconds ``s``, its peak resident memory ``max_rss`` (MB) and
its CPU time. :func:`summarise_benchmarks` turns a folder of them into one row per rule, for
sizing ``mem_mb`` and ``runtime`` (``docs/scaling.md``)::

    python -m mixlib.pipeline.resources results/benchmarks

Snakemake samples a job's CPU time (every second for the first 30 samples, then every 30
seconds) and keeps the last sample, so ``cpu_seconds`` here misses each job's last moments:
up to a second, and up to 30 seconds of a job that runs longer than half a minute.

Rules without a ``benchmark:`` directive (figures, tables, claims) are covered by the jobs'
own logs: :func:`job_seconds_from_job_logs` reads the time each job's script reports at its
end (``rule NAME done in S s``) and its process's CPU time (``rule NAME used C CPU-s``, start-up
included, exact), both written by :func:`mixlib.pipeline.workflow.logged_job`::

    python -m mixlib.pipeline.resources --job-logs results/logs

A run with Snakemake's full console (``--quiet host``, not the default profile's quiet one)
also records every job's start in Snakemake's own log, which :func:`job_seconds_from_log`
reads (start-up included)::

    python -m mixlib.pipeline.resources --log .snakemake/log/<run>.snakemake.log
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import pandas as pd

#: The columns of a summary, in order.
COLUMNS = ["rule", "jobs", "job_seconds", "max_job_seconds", "max_rss_mb", "median_rss_mb",
           "cpu_seconds"]


def summarise_benchmarks(folder: str | Path) -> pd.DataFrame:
    """One row per rule of the benchmark files under ``folder`` (``<rule>/<job>.tsv``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``jobs`` (files read), ``job_seconds`` (sum of the jobs'
        wall-clock seconds ``s``), ``max_job_seconds``, ``max_rss_mb`` and ``median_rss_mb``
        (peak resident memory of a job, MB: the largest and the median over the rule's jobs),
        ``cpu_seconds`` (sum of ``cpu_time``); sorted by ``job_seconds``, largest first.

    Raises
    ------
    ValueError
        If ``folder`` holds no benchmark file, or a file lacks the ``s`` or ``max_rss`` column.
    """
    rows = []
    for path in sorted(Path(folder).glob("*/*.tsv")):
        table = pd.read_csv(path, sep="\t")
        missing = {"s", "max_rss"} - set(table.columns)
        if missing:
            raise ValueError(f"{path}: not a Snakemake benchmark file (no column "
                             f"{sorted(missing)}).")
        rows.append(table.assign(rule=path.parent.name))
    if not rows:
        raise ValueError(f"no benchmark file (<rule>/<job>.tsv) under {folder}.")
    jobs = pd.concat(rows, ignore_index=True)
    jobs["max_rss"] = pd.to_numeric(jobs["max_rss"], errors="coerce")  # "-" when not measured
    cpu = jobs["cpu_time"] if "cpu_time" in jobs else pd.Series(0.0, index=jobs.index)
    summary = jobs.assign(cpu=pd.to_numeric(cpu, errors="coerce")).groupby("rule").agg(
        jobs=("s", "size"), job_seconds=("s", "sum"), max_job_seconds=("s", "max"),
        max_rss_mb=("max_rss", "max"), median_rss_mb=("max_rss", "median"),
        cpu_seconds=("cpu", "sum"),
    ).reset_index()
    return summary.sort_values("job_seconds", ascending=False, ignore_index=True)[COLUMNS]


#: The columns of :func:`job_seconds_from_log`, in order.
LOG_COLUMNS = ["rule", "jobs", "job_seconds", "max_job_seconds", "unfinished"]
#: The columns of :func:`job_seconds_from_job_logs`, in order.
JOB_LOG_COLUMNS = [*LOG_COLUMNS, "cpu_seconds"]

_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
_START = re.compile(r"^(?:local)?rule (\w+):$")
_JOBID = re.compile(r"^\s+jobid: (\d+)$")
_END = re.compile(r"^Finished jobid: (\d+)")
_QUIET_END = re.compile(r"^Finished jobid: \d+ \(Rule: \w+[,)]")  # wildcards may follow


def job_seconds_from_log(path: str | Path) -> pd.DataFrame:
    """Wall-clock seconds of every job of one Snakemake run, per rule, from the run's log.

    Snakemake logs a job's start as a time stamp line ``[Mon Nov 23 22:17:01 2026]``, then
    ``rule NAME:`` (or ``localrule NAME:``) and an indented ``jobid: N``; its end as a stamp,
    then ``Finished jobid: N``. A job's seconds are ``end - start`` (whole seconds, the
    log's resolution), so under ``--cores`` larger than the machine's CPUs they include the
    time a job waited for a CPU, as the benchmark files' ``s`` does.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`LOG_COLUMNS`: ``jobs`` (finished jobs), ``job_seconds`` (their sum),
        ``max_job_seconds``, ``unfinished`` (jobs started but never finished: an interrupted
        or failed run); sorted by ``job_seconds``, largest first.

    Raises
    ------
    ValueError
        If the log records no job start.
    """
    stamp = None
    rule = None
    started: dict[str, tuple[str, datetime]] = {}
    finished: list[tuple[str, float]] = []
    for line in Path(path).read_text().splitlines():
        if match := _STAMP.match(line):
            stamp = datetime.strptime(match.group(1), "%a %b %d %H:%M:%S %Y")
        elif match := _START.match(line):
            rule = match.group(1)
        elif (match := _JOBID.match(line)) and rule is not None and stamp is not None:
            started[match.group(1)] = (rule, stamp)
            rule = None
        elif (match := _END.match(line)) and match.group(1) in started and stamp is not None:
            name, start = started.pop(match.group(1))
            finished.append((name, (stamp - start).total_seconds()))
    if not finished and not started:
        if any(_QUIET_END.match(line) for line in Path(path).read_text().splitlines()):
            raise ValueError(
                f"{path}: this run's console was quiet (the default profile's `quiet: [rules, "
                "host]`), so its log records when jobs ended but not when they started. Read "
                "the jobs' own logs instead: python -m mixlib.pipeline.resources --job-logs "
                "results/logs (or run with --quiet host to log every job's start).")
        raise ValueError(f"{path}: no job start ('rule NAME:' then 'jobid: N') in this log; "
                         "is it a Snakemake log (.snakemake/log/*.snakemake.log)?")
    # an unfinished job counts as a row without seconds
    jobs = pd.DataFrame(finished + [(name, float("nan")) for name, _ in started.values()],
                        columns=["rule", "seconds"])
    return _per_rule(jobs)


_JOB_START = re.compile(r" rule (\w+) \{.*\}, \d+ thread")
_JOB_DONE = re.compile(r" rule (\w+) done in ([0-9.]+) s$")
_JOB_CPU = re.compile(r" rule (\w+) used ([0-9.]+) CPU-s$")


def job_seconds_from_job_logs(folder: str | Path) -> pd.DataFrame:
    """Seconds of every job of a run, per rule, from the jobs' own logs under ``folder``.

    Every script rule logs ``rule NAME {wildcards}, T thread(s)`` when its script starts and
    ``rule NAME done in S s`` then ``rule NAME used C CPU-s`` when it ends
    (:func:`mixlib.pipeline.workflow.logged_job`). A job's seconds are the ``S`` of its log's
    last such line: its script's run time, without the process start-up before it (Python
    and imports, about a second per job); its CPU seconds are the ``C``, the process's from
    its start. A log whose last start has no end is a job that failed or was interrupted.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`JOB_LOG_COLUMNS`: those of :func:`job_seconds_from_log`, then
        ``cpu_seconds`` (the sum over the rule's finished jobs; NaN when a log has no CPU
        line: a log written before the line existed); sorted by ``job_seconds``, largest first.

    Raises
    ------
    ValueError
        If no log under ``folder`` records a job's start.
    """
    jobs = []
    for path in sorted(Path(folder).rglob("*.log")):
        rule, seconds, cpu = None, float("nan"), float("nan")
        for line in path.read_text(errors="replace").splitlines():
            if match := _JOB_START.search(line):
                rule, seconds, cpu = match.group(1), float("nan"), float("nan")
            elif (match := _JOB_DONE.search(line)) and match.group(1) == rule:
                seconds = float(match.group(2))
            elif (match := _JOB_CPU.search(line)) and match.group(1) == rule:
                cpu = float(match.group(2))
        if rule is not None:
            jobs.append((rule, seconds, cpu))
    if not jobs:
        raise ValueError(f"{folder}: no job log ('rule NAME {{...}}, 1 thread(s)') under this "
                         "folder; is it a run's results/logs?")
    jobs = pd.DataFrame(jobs, columns=["rule", "seconds", "cpu"])
    finished = jobs[jobs["seconds"].notna()]
    cpu = finished.groupby("rule")["cpu"].agg(lambda c: c.sum(min_count=len(c)))
    summary = _per_rule(jobs[["rule", "seconds"]])
    return summary.assign(cpu_seconds=summary["rule"].map(cpu).astype(float))[JOB_LOG_COLUMNS]


def _per_rule(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per rule of a (rule, seconds) table, NaN seconds counted as unfinished."""
    summary = jobs.groupby("rule").agg(
        jobs=("seconds", "count"), job_seconds=("seconds", "sum"),
        max_job_seconds=("seconds", "max"), unfinished=("seconds", lambda s: int(s.isna().sum())),
    ).fillna({"max_job_seconds": 0.0}).reset_index()
    return summary.sort_values("job_seconds", ascending=False, ignore_index=True)[LOG_COLUMNS]


USAGE = """usage: python -m mixlib.pipeline.resources [BENCHMARK_FOLDER]
       python -m mixlib.pipeline.resources --job-logs LOG_FOLDER
       python -m mixlib.pipeline.resources --log SNAKEMAKE_LOG

Job-seconds per rule of a run: from the rules' benchmark files (default results/benchmarks),
from the jobs' own logs (e.g. results/logs), or from a Snakemake log that has job starts."""


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mixlib.pipeline.resources [FOLDER]`` prints the benchmark summary (default
    folder ``results/benchmarks``); ``--job-logs FOLDER`` prints
    :func:`job_seconds_from_job_logs` of a run's job logs, ``--log FILE``
    :func:`job_seconds_from_log` of a Snakemake log. All end with the total job-seconds."""
    args = list(sys.argv[1:] if argv is None else argv)
    readers = {"--log": (job_seconds_from_log, "SNAKEMAKE_LOG"),
               "--job-logs": (job_seconds_from_job_logs, "LOG_FOLDER")}
    if args[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if args[:1] and args[0] in readers:
        reader, argument = readers[args[0]]
        if len(args) != 2:
            raise SystemExit(f"usage: python -m mixlib.pipeline.resources {args[0]} {argument}")
        read, source = reader, args[1]
    elif len(args) > 1 or (args and args[0].startswith("-")):
        raise SystemExit(USAGE)
    else:
        read, source = summarise_benchmarks, args[0] if args else "results/benchmarks"
    try:
        summary = read(source)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    print(summary.to_string(index=False, float_format=lambda value: f"{value:.1f}"))
    total = f"total: {summary['jobs'].sum()} jobs, {summary['job_seconds'].sum():.0f} job-seconds"
    if "cpu_seconds" in summary and summary["cpu_seconds"].notna().all():
        total += f", {summary['cpu_seconds'].sum():.0f} CPU-seconds"
    print(total)
    if "unfinished" in summary and summary["unfinished"].sum():
        print(f"{summary['unfinished'].sum()} job(s) started but never finished")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
