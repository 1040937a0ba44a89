"""The provenance record: what it holds, what its hash covers, how tables carry it."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from mixlib.pipeline import provenance
from mixlib.pipeline.provenance import (
    code_state, collect_provenance, current_provenance, first_line, stamp, write_provenance,
)

CONFIG = {"seed": 7, "repeats": 2, "datasets": {"wine": {"source": "shipped"}}}


def git(directory, *args):
    subprocess.run(["git", "-C", str(directory), *args], check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path):
    """A git checkout with one committed file."""
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.org")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "Snakefile").write_text("rule all:\n")
    git(tmp_path, "add", "Snakefile")
    git(tmp_path, "commit", "-q", "-m", "first")
    return tmp_path


def test_clean_checkout_records_its_commit(checkout):
    state = code_state(checkout)
    assert len(state["commit"]) == 40 and state["dirty"] is False
    assert state["changed_files"] == [] and state["diff_sha256"] is None
    assert first_line(state).startswith(f"mixstudy: commit {state['commit'][:10]}, no uncommitted")


def test_uncommitted_changes_make_the_checkout_dirty_and_change_the_hash(checkout):
    clean = collect_provenance(CONFIG, [], checkout)
    (checkout / "Snakefile").write_text("rule all:\n    input: []\n")
    edited = collect_provenance(CONFIG, [], checkout)
    assert edited["code"]["dirty"] is True and edited["code"]["changed_files"] == [" M Snakefile"]
    assert "UNCOMMITTED CHANGES in 1 file(s)" in first_line(edited["code"])
    assert edited["hash"] != clean["hash"]
    (checkout / "Snakefile").write_text("rule all:\n    input: ['x']\n")  # another edit
    assert collect_provenance(CONFIG, [], checkout)["code"]["diff_sha256"] != \
        edited["code"]["diff_sha256"]
    (checkout / "notes.txt").write_text("new file")  # an untracked file also counts
    assert "?? notes.txt" in code_state(checkout)["changed_files"]


def test_outside_git_no_commit_is_recorded(tmp_path):
    state = code_state(tmp_path)
    assert state["commit"] is None and state["dirty"] is None
    assert "outside a git checkout" in first_line(state)


def test_hash_is_stable_and_follows_the_config(checkout):
    first = collect_provenance(CONFIG, ["my.yaml"], checkout)
    again = collect_provenance(CONFIG, ["my.yaml"], checkout)
    assert first == again and len(first["hash"]) == 12
    other = collect_provenance({**CONFIG, "seed": 8}, ["my.yaml"], checkout)
    assert other["hash"] != first["hash"] and other["config_sha256"] != first["config_sha256"]
    assert first["config"] == CONFIG


def test_record_names_python_packages_blas_and_platform(checkout):
    import numpy

    record = collect_provenance(CONFIG, [], checkout)
    assert record["packages"]["numpy"] == numpy.__version__
    assert record["python"]["version"].count(".") == 2
    assert record["blas"]["blas"]["name"]
    assert set(record["blas"]["thread_variables"]) == set(provenance.THREAD_VARIABLES)
    assert record["platform"]["machine"]
    json.dumps(record)  # serialisable as it is


def test_jobs_take_the_record_from_the_environment(checkout, monkeypatch):
    # setenv first: it records the variable's state so teardown restores it (delenv of an
    # absent variable records nothing, and the record would leak into later subprocesses)
    monkeypatch.setenv(provenance.ENVIRONMENT_KEY, "")
    monkeypatch.delenv(provenance.ENVIRONMENT_KEY)
    record = current_provenance(CONFIG, [], checkout)
    assert json.loads(provenance.os.environ[provenance.ENVIRONMENT_KEY]) == record
    # a job's process finds it there rather than collecting another
    assert current_provenance({"seed": 99}, [], checkout) == record
    stamped = stamp(pd.DataFrame({"model": ["a", "b"], "error": [0.1, 0.2]}))
    assert list(stamped.columns) == ["model", "error", "provenance"]
    assert (stamped["provenance"] == record["hash"]).all()


def test_written_record_is_kept_under_its_hash(tmp_path, checkout):
    record = collect_provenance(CONFIG, [], checkout)
    write_provenance(record, tmp_path / "results" / "provenance.json")
    written = json.loads((tmp_path / "results" / "provenance.json").read_text())
    assert written == record
    kept = tmp_path / "results" / "provenance" / f"{record['hash']}.json"
    assert json.loads(kept.read_text()) == record


def test_blas_state_does_not_depend_on_import_order():
    code = ("import json, sys; {first}; from mixlib.pipeline.provenance import blas_state; "
            "print(json.dumps(blas_state(), sort_keys=True))")
    outputs = {subprocess.run([sys.executable, "-c", code.format(first=first)], check=True,
                              capture_output=True, text=True).stdout
               for first in ("import numpy", "import scipy.linalg, numpy", "import pandas")}
    assert len(outputs) == 1, outputs
