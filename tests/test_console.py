"""What a run tells its user: which job finished, which repeat runs, and the warnings at the end."""

import logging
import os
import time
from types import SimpleNamespace

import numpy as np
import pandas as pd

from mixlib.experiments.contract import RepeatData, run_repeats
from mixlib.pipeline.console import NameFinishedJobs, finished_line
from mixlib.pipeline.warning_summary import logged_warnings, run_warning_summary
from mixlib.pipeline.workflow import logged_job


def _job(jobid, rule, **wildcards):
    return SimpleNamespace(jobid=jobid, rule=SimpleNamespace(name=rule), wildcards_dict=wildcards)


def _record(message):
    return logging.LogRecord("snakemake", logging.INFO, __file__, 1, message, None, None)


def test_finished_job_line_names_its_wildcards():
    jobs = [_job(24, "mlp_sweep_point", dataset="wine", hidden="8"), _job(3, "claims")]
    name = NameFinishedJobs(lambda: jobs)
    record = _record("Finished jobid: 24 (Rule: mlp_sweep_point)")
    assert name.filter(record)
    assert record.msg == "Finished jobid: 24 (Rule: mlp_sweep_point, dataset=wine, hidden=8)"
    # a job without wildcards, a job the DAG does not know, and any other line: unchanged
    for message in ("Finished jobid: 3 (Rule: claims)", "Finished jobid: 99 (Rule: x)",
                    "5 of 134 steps (4%) done"):
        record = _record(message)
        assert name.filter(record) and record.msg == message


def test_finished_job_filter_looks_jobs_up_again_when_the_dag_grows():
    jobs = [_job(1, "fetch", dataset="wine")]
    name = NameFinishedJobs(lambda: jobs)
    name.filter(_record("Finished jobid: 1 (Rule: fetch)"))
    jobs.append(_job(2, "split", dataset="heart"))
    record = _record("Finished jobid: 2 (Rule: split)")
    name.filter(record)
    assert record.msg == finished_line(2, "split", {"dataset": "heart"})


def _stage(data, *, threshold, rng=None):
    X, y = data["train"]
    return pd.DataFrame({"n": [len(y)], "threshold": [threshold]})


def test_run_repeats_logs_repeat_k_of_n_with_the_setting(caplog):
    repeats = [RepeatData.of(r, train=(np.zeros((3 + r, 1)), np.zeros(3 + r))) for r in (4, 7)]
    with caplog.at_level(logging.INFO, logger="mixlib.experiments.contract"):
        table = run_repeats(_stage, repeats, {"threshold": 0.75})
        run_repeats(_stage, repeats[:1], {"threshold": 0.5}, seed=1, keys=("wine", "iterative"), first=1,
                    counts=lambda table: True)
    assert list(table["n"]) == [7, 10]
    assert [record.getMessage() for record in caplog.records] == [
        "repeat 1 of 2 (split repeat 4): _stage threshold=0.75",
        "repeat 2 of 2 (split repeat 7): _stage threshold=0.75",
        "repeat 1 (split repeat 4, 0 of 0 counted so far): _stage threshold=0.5 (stream wine, iterative)",
        "1 repeats run, 1 counted (needed 0, at most 1)",
    ]


def _write_log(tmp_path, name, warn_counts):
    """A job's log as logged_job writes it, with ``count`` repeats of each warning message."""
    path = tmp_path / "logs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    smk = SimpleNamespace(log=[str(path)], rule=path.parent.name, threads=1,
                          wildcards=SimpleNamespace(items=lambda: []))
    with logged_job(smk) as log:
        for message, count in warn_counts.items():
            for _ in range(count):
                log.warning(message)
    return path


def test_a_logs_warnings_are_read_back_by_kind(tmp_path):
    path = _write_log(tmp_path, "sweep/wine.log", {"few examples": 7, "no change": 2})
    assert logged_warnings(path) == {"mixstudy.sweep: few examples": 7,
                                     "mixstudy.sweep: no change": 2}
    assert logged_warnings(_write_log(tmp_path, "split/wine.log", {})) == {}


def test_run_summary_counts_kinds_logs_and_names_where_to_read(tmp_path):
    old = _write_log(tmp_path, "fetch/old.log", {"stale": 100})
    os.utime(old, (time.time() - 3600, time.time() - 3600))  # written by an earlier run
    started = time.time() - 60
    _write_log(tmp_path, "sweep/wine.log", {"few examples": 7, "no change": 2})
    _write_log(tmp_path, "sweep/heart.log", {"few examples": 3})
    _write_log(tmp_path, "split/wine.log", {})
    summary = run_warning_summary(tmp_path / "logs", since=started, n_kinds=1)
    assert summary.startswith("Warnings: 12 in 2 of the 3 log(s) this run wrote, of 2 kind(s): "
                              "10 x mixstudy.sweep: few examples (in 2 log(s)); and 1 more kind(s).")
    assert f"most are in {tmp_path / 'logs/sweep/wine.log'} (9), " in summary
    assert "stale" not in summary
    assert "100" in run_warning_summary(tmp_path / "logs")  # every log when no start is given
    assert run_warning_summary(tmp_path / "logs", since=time.time() + 60) is None
    assert run_warning_summary(tmp_path / "absent") is None


def test_run_summary_without_warnings_says_so(tmp_path):
    _write_log(tmp_path, "split/wine.log", {})
    assert run_warning_summary(tmp_path / "logs") == \
        f"Warnings: none in the 1 log(s) under {tmp_path / 'logs'}."


def test_the_run_summary_is_logged_once_by_the_main_process_only(tmp_path, caplog):
    from mixlib.pipeline.warning_summary import log_run_warnings

    _write_log(tmp_path, "sweep/wine.log", {"few examples": 2})
    log = logging.getLogger("snakemake.test")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="snakemake.test"):
        log_run_warnings(log, tmp_path / "logs", since=0.0, main_process=False)
        log_run_warnings(log, tmp_path / "logs", since=time.time() + 60)  # nothing written since
        log_run_warnings(log, tmp_path / "logs", since=0.0)
    (record,) = [record for record in caplog.records if record.name == "snakemake.test"]
    assert record.getMessage().startswith("Warnings: 2 in 1 of the 1 log(s) this run wrote")
