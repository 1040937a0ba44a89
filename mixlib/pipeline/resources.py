"""What the study's jobs cost: wall time and peak memory per rule, from Snakemake's benchmark files.

Heavy rules write ``results/benchmarks/<rule>/<wildcards>.tsv`` (the ``benchmark:`` directive):
one row with the job's wall-clock seconds ``s``, its peak resident memory ``max_rss`` (MB) and
its CPU time. :func:`summarise_benchmarks` turns a folder of them into one row per rule, for
sizing ``mem_mb`` and ``runtime`` (``docs/scaling.md``)::

    python -m mixlib.pipeline.resources results/benchmarks
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mixlib.pipeline.resources [FOLDER]``: print the summary (default folder
    ``results/benchmarks``) and the total job-seconds."""
    args = list(sys.argv[1:] if argv is None else argv)
    summary = summarise_benchmarks(args[0] if args else "results/benchmarks")
    print(summary.to_string(index=False, float_format=lambda value: f"{value:.1f}"))
    print(f"total: {summary['jobs'].sum()} jobs, {summary['job_seconds'].sum():.0f} job-seconds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
