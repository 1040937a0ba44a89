"""Code provenance: editing a mixlib module reruns exactly the jobs whose scripts import it, and
the jobs that read their outputs."""

import os
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from .conftest import ROOT
from .test_em_rerun import planned_jobs

pytestmark = pytest.mark.pipeline


def dry_run(workdir) -> subprocess.CompletedProcess:
    """``snakemake -n`` in ``workdir``, every job listed (``--quiet host``), importing the mixlib
    copied there, not the installed one."""
    env = {**os.environ, "PYTHONPATH": str(workdir)}
    return subprocess.run([sys.executable, "-m", "snakemake", "-n", "--quiet", "host", "--cores", "1",
                           "--configfile", "config/test.yaml"],
                          cwd=workdir, env=env, capture_output=True, text=True, check=True)


def test_editing_a_neighbors_module_reruns_exactly_the_knn_jobs(test_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(test_run, workdir, symlinks=True)  # keeps modification times
    shutil.copytree(ROOT / "mixlib", workdir / "mixlib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The provenance record names where mixlib comes from: this copy is not the git checkout
    # the test run imported, so its record (and only that job) differs; no job reads it.
    unchanged = planned_jobs(dry_run(workdir).stdout)
    assert set(unchanged) <= {key for key in unchanged if key[0] in ("provenance", "all")}

    module = workdir / "mixlib" / "neighbors" / "knn.py"
    module.write_text(module.read_text() + "\nDEFAULT_NEIGHBOURS_EDITED = 1\n")
    planned = {key: job for key, job in planned_jobs(dry_run(workdir).stdout).items()
               if key[0] != "provenance"}

    rewritten = set().union(*(job["output"] for job in planned.values()))
    by_params = {key for key, job in planned.items()
                 if job["reason"].startswith("Params have changed")}
    knn_jobs = {key for key in planned if dict(key[1]).get("model") == "knn"}
    assert knn_jobs and by_params == knn_jobs, sorted(by_params ^ knn_jobs)
    assert {rule for rule, _ in knn_jobs} == {"comparison_point", "comparison_holdout_point"}
    for key, job in planned.items():  # every other job reads a rerun job's output
        assert key in knn_jobs or job["input"] & rewritten, (key, job)
    assert not any(rule in ("fetch", "prepare", "split", "impute", "em_trace", "mlp_sweep_point",
                            "svm_grid_level") for rule, _ in planned)
    print("planned rules:", dict(sorted(Counter(rule for rule, _ in planned).items())))
