"""Summaries of Snakemake's per-job benchmark files (mixlib.pipeline.resources)."""

import numpy as np
import pandas as pd
import pytest

from mixlib.pipeline.resources import (
    COLUMNS,
    LOG_COLUMNS,
    job_seconds_from_job_logs,
    job_seconds_from_log,
    main,
    summarise_benchmarks,
)

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def write(folder, rule, job, seconds, rss, cpu):
    path = folder / rule / f"{job}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n")


def test_one_row_per_rule_with_sums_and_peaks(tmp_path):
    write(tmp_path, "em_trace", "a", 2.0, 100.0, 1.5)
    write(tmp_path, "em_trace", "b", 3.0, 300.0, 2.5)
    write(tmp_path, "em_trace", "c", 1.0, 200.0, 0.5)
    write(tmp_path, "impute", "a", 10.0, "-", 9.0)  # memory not measured: left out of the peak
    summary = summarise_benchmarks(tmp_path)
    assert list(summary.columns) == COLUMNS
    assert summary["rule"].tolist() == ["impute", "em_trace"]  # most job-seconds first
    em = summary.set_index("rule").loc["em_trace"]
    assert (em["jobs"], em["job_seconds"], em["max_job_seconds"]) == (3, 6.0, 3.0)
    assert (em["max_rss_mb"], em["median_rss_mb"], em["cpu_seconds"]) == (300.0, 200.0, 4.5)
    assert pd.isna(summary.set_index("rule").loc["impute", "max_rss_mb"])


def test_errors_name_the_folder_or_file(tmp_path):
    with pytest.raises(ValueError, match="no benchmark file"):
        summarise_benchmarks(tmp_path)
    (tmp_path / "rule").mkdir()
    (tmp_path / "rule" / "job.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match=r"job.tsv: not a Snakemake benchmark file .*'max_rss'"):
        summarise_benchmarks(tmp_path)


def test_command_line_prints_the_total(tmp_path, capsys):
    write(tmp_path, "svm_best", "x", 4.0, 150.0, 3.0)
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "svm_best" in out and "total: 1 jobs, 4 job-seconds" in out


LOG = """Building DAG of jobs...
[Tue Nov  3 23:59:58 2026]
rule fetch:
    output: results/data/wine.csv
    jobid: 4
    reason: Missing output files: results/data/wine.csv
    resources: tmpdir=/tmp

[Tue Nov  3 23:59:59 2026]
localrule kernel_sweep_point:
    input: results/data/wine.csv
    jobid: 7
    wildcards: split=wine, kernels=2

[Wed Nov  4 00:00:01 2026]
Finished jobid: 4 (Rule: fetch)
1 of 4 steps (25%) done
[Wed Nov  4 00:00:02 2026]
rule kernel_sweep_point:
    jobid: 9
    wildcards: split=wine, kernels=4

[Wed Nov  4 00:00:09 2026]
Finished jobid: 7 (Rule: kernel_sweep_point)
2 of 4 steps (50%) done
[Wed Nov  4 00:00:10 2026]
Finished jobid: 9 (Rule: kernel_sweep_point)
3 of 4 steps (75%) done
[Wed Nov  4 00:00:11 2026]
rule claims:
    jobid: 12

Will exit after finishing currently running jobs (scheduler).
"""


def test_log_gives_every_jobs_seconds_per_rule_and_counts_unfinished_jobs(tmp_path):
    """Start and end stamps across midnight, padded day numbers, rule and localrule, and a job
    that never finished (an interrupted run) reported, not dropped."""
    path = tmp_path / "run.snakemake.log"
    path.write_text(LOG)
    summary = job_seconds_from_log(path)
    assert list(summary.columns) == LOG_COLUMNS
    rows = summary.set_index("rule")
    assert rows.loc["kernel_sweep_point", "jobs"] == 2
    assert rows.loc["kernel_sweep_point", "job_seconds"] == 10 + 8
    assert rows.loc["kernel_sweep_point", "max_job_seconds"] == 10
    assert rows.loc["fetch", ["jobs", "job_seconds", "unfinished"]].tolist() == [1, 3, 0]
    assert rows.loc["claims", ["jobs", "job_seconds", "unfinished"]].tolist() == [0, 0, 1]
    assert summary["rule"].tolist()[0] == "kernel_sweep_point"   # largest first


def test_log_command_line_and_errors(tmp_path, capsys):
    path = tmp_path / "run.snakemake.log"
    path.write_text(LOG)
    assert main(["--log", str(path)]) == 0
    out = capsys.readouterr().out
    assert "total: 3 jobs, 21 job-seconds" in out
    assert "1 job(s) started but never finished" in out
    (tmp_path / "other.txt").write_text("not a log\n")
    with pytest.raises(ValueError, match="other.txt: no job start"):
        job_seconds_from_log(tmp_path / "other.txt")
    with pytest.raises(SystemExit, match="usage"):
        main(["--log"])


QUIET_LOG = """Select jobs to execute...
Execute 2 jobs...
[Tue Nov 24 20:14:21 2026]
Finished jobid: 19 (Rule: fetch)
1 of 415 steps (0.2%) done
"""


def test_a_quiet_log_points_to_the_job_logs(tmp_path, capsys):
    """The default profile's quiet console logs no job start: the error says what to read."""
    path = tmp_path / "run.snakemake.log"
    path.write_text(QUIET_LOG)
    with pytest.raises(ValueError, match="console was quiet.*--job-logs results/logs"):
        job_seconds_from_log(path)
    with pytest.raises(SystemExit, match="^error: .*--job-logs"):
        main(["--log", str(path)])


def _job_log(path, rule, wildcards, seconds=None, failed=False, cpu=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"2026-11-24 20:14:24,024 INFO mixstudy.{rule}: rule {rule} {wildcards}, 1 thread(s)",
             f"2026-11-24 20:14:24,035 INFO mixstudy.{rule}: 569 rows, 31 columns"]
    if seconds is not None:
        lines.append(f"2026-11-24 20:14:25,053 INFO mixstudy.{rule}: rule {rule} done in {seconds:.2f} s")
    if cpu is not None:
        lines.append(f"2026-11-24 20:14:25,053 INFO mixstudy.{rule}: rule {rule} used {cpu:.2f} CPU-s")
    if failed:
        lines.append(f"2026-11-24 20:14:25,053 ERROR mixstudy.{rule}: rule {rule} failed")
    path.write_text("\n".join(lines) + "\n")


def test_job_logs_give_every_jobs_script_seconds_per_rule(tmp_path, capsys):
    """One job a log file, nested folders or not; a failed job (no end line) is counted as
    unfinished, and a log rewritten by a rerun counts its last run only."""
    logs = tmp_path / "logs"
    _job_log(logs / "fetch" / "wine.log", "fetch", "{'dataset': 'wine'}", 0.5, cpu=1.25)
    _job_log(logs / "fetch" / "heart.log", "fetch", "{'dataset': 'heart'}", 1.5, cpu=2.0)
    _job_log(logs / "comparison_point" / "wine.knn.log", "comparison_point",
             "{'dataset': 'wine', 'model': 'knn'}", 12.25)
    _job_log(logs / "claims.log", "claims", "{}", failed=True)
    rerun = logs / "provenance.log"
    _job_log(rerun, "provenance", "{}", 9.0)
    rerun.write_text(rerun.read_text()
                     + "2026-11-24 21:00:00,000 INFO mixstudy.provenance: rule provenance {}, 1 thread(s)\n"
                     + "2026-11-24 21:00:01,000 INFO mixstudy.provenance: rule provenance done in 0.25 s\n")
    (logs / "notes.txt").write_text("not a job log\n")
    summary = job_seconds_from_job_logs(logs)
    assert list(summary.columns) == LOG_COLUMNS + ["cpu_seconds"]
    rows = summary.set_index("rule")
    assert rows.loc["fetch", ["jobs", "job_seconds", "max_job_seconds", "unfinished"]].tolist() == [2, 2.0, 1.5, 0]
    # CPU seconds: the processes' own (start-up included); NaN where a log has no CPU line
    assert rows.loc["fetch", "cpu_seconds"] == 3.25
    assert np.isnan(rows.loc["comparison_point", "cpu_seconds"])
    assert rows.loc["comparison_point", "job_seconds"] == 12.25
    assert rows.loc["claims", ["jobs", "unfinished"]].tolist() == [0, 1]
    assert rows.loc["provenance", "job_seconds"] == 0.25
    assert summary["rule"].tolist()[0] == "comparison_point"
    assert main(["--job-logs", str(logs)]) == 0
    out = capsys.readouterr().out
    assert "total: 4 jobs, 14 job-seconds" in out   # 2.0 + 12.25 + 0.25
    assert "1 job(s) started but never finished" in out
    with pytest.raises(SystemExit, match="^error: .*no job log"):
        main(["--job-logs", str(tmp_path / "logs" / "fetch" / "nothing")])


def test_help_and_unknown_options_print_the_usage(capsys):
    assert main(["--help"]) == 0
    assert "--job-logs LOG_FOLDER" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="^usage: .*BENCHMARK_FOLDER"):
        main(["--jobs-logs", "results/logs"])


def test_a_folder_without_benchmark_files_is_an_error_not_a_traceback(tmp_path):
    with pytest.raises(SystemExit, match="^error: no benchmark file"):
        main([str(tmp_path)])
