"""A job's log: each kind of warning written once, then summed up with its count."""

import logging
import re
import time
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from mixlib.core.exceptions import ConvergenceWarning
from mixlib.mixture import IsotropicGaussianMixture
from mixlib.pipeline.workflow import logged_job


def job(tmp_path, rule="sweep_point"):
    """A stand-in for the ``snakemake`` object of a script rule."""
    return SimpleNamespace(log=[str(tmp_path / "job.log")], rule=rule, threads=1,
                           wildcards=SimpleNamespace(items=lambda: [("split", "wine")]))


def warning_lines(path):
    return [line for line in path.read_text().splitlines() if " WARNING " in line]


def test_repeated_warnings_are_written_once_and_counted(tmp_path):
    with logged_job(job(tmp_path)) as log:
        for value in range(500):
            warnings.warn(f"feature {value} has 1 distinct value", UserWarning)
        for _ in range(3):
            log.warning("class %s has few examples", "b")
        log.warning("something else entirely")
    lines = warning_lines(tmp_path / "job.log")
    # 3 kinds: the first of each where it happened, then one summary line each
    assert len(lines) == 6
    assert "feature 0 has 1 distinct value" in lines[0]
    summary = [line for line in lines if re.search(r" warnings: \d+ x ", line)]
    assert re.search(r"warnings: 500 x UserWarning at .*test_warning_summary\.py:\d+; "
                     r"first at \d\d:\d\d:\d\d: feature 0 has 1 distinct value", summary[0])
    assert re.search(r"warnings: 3 x mixstudy.sweep_point: class %s has few examples; first at "
                     r"\S+: class b has few examples", summary[1])
    assert "1 x mixstudy.sweep_point: something else entirely" in summary[2]
    text = (tmp_path / "job.log").read_text()
    assert text.index("rule sweep_point done in") < text.index("warnings: 500 x")  # at the end
    cpu = float(re.search(r"rule sweep_point used ([0-9.]+) CPU-s\n", text).group(1))
    assert 0 < cpu <= time.process_time() + 0.005  # logged to 0.01 s, rounded


def test_em_convergence_summary_says_how_many_fits_and_how_far_from_tol(tmp_path):
    X = np.random.default_rng(0).normal(size=(200, 3))
    with logged_job(job(tmp_path)):
        for seed in range(4):
            IsotropicGaussianMixture(n_components=3, max_iter=2, tol=1e-12,
                                     random_state=seed).fit(X)
    (summary,) = [line for line in warning_lines(tmp_path / "job.log")
                  if re.search(r" warnings: \d+ x ", line)]
    match = re.search(r"4 x ConvergenceWarning at \S+:\d+ \(4 fit\(s\) stopped at max_iter, "
                      r"last change / tol: median (\S+), max (\S+)\); first at \S+: "
                      r"EM did not converge in max_iter=2", summary)
    assert match, summary
    assert 1 < float(match.group(1)) <= float(match.group(2))


def test_underflow_is_not_a_warning_but_overflow_is(tmp_path):
    with logged_job(job(tmp_path)):
        np.exp(np.full(10, -1e4))
        np.exp(np.full(10, 1e4))
    lines = warning_lines(tmp_path / "job.log")
    assert not any("underflow" in line for line in lines)
    assert any("overflow encountered in exp" in line for line in lines)


def test_a_failing_job_still_ends_with_its_summary(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with logged_job(job(tmp_path)):
            for _ in range(5):
                warnings.warn("repeated", RuntimeWarning)
            1 / 0
    text = (tmp_path / "job.log").read_text()
    assert "rule sweep_point failed" in text and "warnings: 5 x RuntimeWarning" in text
    assert logging.getLogger().handlers == [] or all(
        getattr(h, "baseFilename", None) != str(tmp_path / "job.log")
        for h in logging.getLogger().handlers)


def test_a_job_inside_slurm_names_its_slurm_job(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_JOB_ID", "4242")
    with logged_job(job(tmp_path)):
        pass
    first = (tmp_path / "job.log").read_text().splitlines()[0]
    assert first.endswith("rule sweep_point {'split': 'wine'}, 1 thread(s), SLURM job 4242")
    monkeypatch.delenv("SLURM_JOB_ID")
    with logged_job(job(tmp_path)):
        pass
    assert "SLURM" not in (tmp_path / "job.log").read_text()
