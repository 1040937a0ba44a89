"""A user's CSV is judged by its content: edited, then given back its old modification time
(as ``cp -p``, ``rsync -t`` or a checkout do), it is read again. The fetch job's log warns of
rows that share their features but not their class."""

import os

import pytest
import yaml

from tests.test_bad_inputs import people_config, people_rows

from .conftest import copy_workflow, snakemake

pytestmark = pytest.mark.pipeline

FETCHED = "resources/data/people.csv"


def test_an_edited_csv_with_its_old_time_stamp_is_fetched_again(tmp_path):
    workdir = copy_workflow(tmp_path / "project")
    csv = workdir / "data" / "people.csv"
    csv.parent.mkdir()
    rows = people_rows()
    conflicting = rows[2].rsplit(",", 1)[0] + ",short"  # line 3 again (s1, tall), as short
    csv.write_text("\n".join([*rows, conflicting]) + "\n")
    (workdir / "config" / "people.yaml").write_text(yaml.safe_dump(people_config()))
    run = ("--cores", "1", "--configfile", "config/people.yaml")
    snakemake(workdir, FETCHED, *run)  # the fetch job alone
    log = (workdir / "results" / "logs" / "fetch" / "people.log").read_text()
    assert ("WARNING" in log and "datasets.people: 1 feature row appears with different classes "
            "(lines 3 and 42)" in log), log
    unchanged = snakemake(workdir, FETCHED, "-n", *run)
    assert "Nothing to be done" in unchanged.stdout + unchanged.stderr

    stamp = csv.stat()
    csv.write_text(csv.read_text().replace("150.7", "151.7"))  # one cell, same size
    os.utime(csv, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert csv.stat().st_mtime_ns == stamp.st_mtime_ns
    dry = snakemake(workdir, FETCHED, "-n", *run)
    output = dry.stdout + dry.stderr
    assert "Nothing to be done" not in output
    assert "Rules with provenance triggered jobs: fetch" in output, output[-3000:]
