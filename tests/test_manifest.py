"""Integrity between stages: a table changed after its job ended stops its consumer, naming the
file and the producing rule (mixlib.pipeline.manifest)."""

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.manifest import CorruptTableError, manifest_path, producing_job
from mixlib.pipeline.workflow import logged_job


@pytest.fixture
def prepared(tmp_path):
    """A prepared-like table of 120 rows written by a `prepare` job."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"class": rng.choice(["a", "b"], 120),
                          "x1": rng.normal(size=120).round(6), "x2": rng.normal(size=120)})
    path = tmp_path / "results" / "data" / "wine.prepared.tsv"
    with producing_job("prepare"):
        write_table(frame, path)
    return path, frame


def consume(path):
    with producing_job("data_summary"):
        return read_table(path)


def test_the_producer_records_rule_rows_columns_and_hash(prepared):
    path, frame = prepared
    record = json.loads(manifest_path(path).read_text())
    assert record["producer"] == "prepare" and record["rows"] == 120
    assert record["columns"] == ["class", "x1", "x2"] and len(record["sha256"]) == 64
    pd.testing.assert_frame_equal(consume(path), read_table(path))


def test_truncation_to_whole_rows_is_caught(prepared):
    path, _ = prepared
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:100]))  # header + 99 rows
    with pytest.raises(CorruptTableError, match=r"wine\.prepared\.tsv is not the table rule "
                       r"`prepare` wrote \(it has 99 rows where rule `prepare` wrote 120\)"):
        consume(path)


def test_a_cell_cut_mid_line_is_caught(prepared):
    path, _ = prepared
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(CorruptTableError, match=r"rows where rule `prepare` wrote 120; its last "
                       r"line is cut.*Delete .*wine\.prepared\.tsv and rerun"):
        consume(path)


def test_a_changed_row_count_and_a_changed_cell_are_caught(prepared):
    path, frame = prepared
    frame.iloc[3:].to_csv(path, sep="\t", index=False, lineterminator="\n")
    with pytest.raises(CorruptTableError, match="117 rows where rule `prepare` wrote 120"):
        consume(path)
    edited = frame.copy()
    edited.loc[5, "x1"] = 99.0
    edited.to_csv(path, sep="\t", index=False, lineterminator="\n")
    with pytest.raises(CorruptTableError, match="same rows and columns .* other content"):
        consume(path)


def test_a_table_without_manifest_is_refused_inside_a_job(tmp_path):
    path = tmp_path / "t.tsv"
    write_table(pd.DataFrame({"a": [1]}), path)  # outside a job: no manifest
    assert not manifest_path(path).exists()
    assert read_table(path)["a"].tolist() == [1]
    with pytest.raises(CorruptTableError, match=r"t\.tsv has no manifest"):
        consume(path)


def test_logged_job_writes_and_checks_manifests(prepared, tmp_path):
    path, _ = prepared
    smk = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="data_summary",
                          wildcards={}, threads=1)
    path.write_text(path.read_text()[:-40])
    with np.errstate():  # logged_job sets numpy's error handling for the job's process
        with pytest.raises(CorruptTableError, match="rule `prepare`"), logged_job(smk):
            read_table(path)
        assert "wine.prepared.tsv is not the table rule `prepare` wrote" in \
            (tmp_path / "job.log").read_text()
        with logged_job(smk):
            write_table(pd.DataFrame({"n": [1]}), tmp_path / "summary.tsv")
    assert json.loads(manifest_path(tmp_path / "summary.tsv").read_text())["producer"] == \
        "data_summary"
