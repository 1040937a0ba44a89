"""Summaries of Snakemake's per-job benchmark files (mixlib.pipeline.resources)."""

import pandas as pd
import pytest

from mixlib.pipeline.resources import COLUMNS, main, summarise_benchmarks

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
