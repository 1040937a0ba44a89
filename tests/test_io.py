"""Atomic writes: outputs appear whole or not at all, with the mode the umask gives."""

import os
import stat

import matplotlib
import pandas as pd
import pytest

from mixlib.pipeline.io import read_table, save_figure, write_csv, write_table

matplotlib.use("Agg")


@pytest.fixture
def umask():
    """Set the process umask for one test, then restore it."""
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


def _mode(path):
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_outputs_follow_the_umask_like_ordinary_files(tmp_path, umask, mask, expected):
    import matplotlib.pyplot as plt

    umask(mask)
    frame = pd.DataFrame({"dataset": ["wine"], "value": [0.5]})
    write_table(frame, tmp_path / "t.tsv")
    write_csv(frame, tmp_path / "t.csv")
    figure, _ = plt.subplots()
    save_figure(figure, tmp_path / "f.png", tmp_path / "f.svg")
    plt.close(figure)
    (tmp_path / "plain.txt").write_text("x")  # what open() gives under this umask
    assert _mode(tmp_path / "plain.txt") == expected
    assert {p.name: _mode(p) for p in tmp_path.iterdir()} == dict.fromkeys(
        ["t.tsv", "t.csv", "f.png", "f.svg", "plain.txt"], expected)


def test_failed_write_leaves_neither_output_nor_temporary_file(tmp_path):
    class Unwritable(pd.DataFrame):
        def to_csv(self, *args, **kwargs):
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_table(Unwritable({"a": [1]}), tmp_path / "t.tsv")
    assert list(tmp_path.iterdir()) == []


def test_table_round_trip_keeps_labels_as_text(tmp_path):
    frame = pd.DataFrame({"class": ["01", "1"], "value": [0.25, None]})
    write_table(frame, tmp_path / "t.tsv")
    back = read_table(tmp_path / "t.tsv")
    assert back["class"].tolist() == ["01", "1"] and back["value"].isna().tolist() == [False, True]


@pytest.mark.parametrize("run_hash", ["748623549161", "000000000012", "12e456789012", "0e0000000000"])
def test_run_hash_that_reads_as_a_number_stays_text(tmp_path, run_hash):
    # The provenance hash is 12 hex digits: about one run in 280 gets one made of digits only.
    frame = pd.DataFrame({"accuracy": [0.5, 0.75], "provenance": [run_hash, run_hash]})
    write_table(frame, tmp_path / "t.tsv")
    assert read_table(tmp_path / "t.tsv")["provenance"].tolist() == [run_hash, run_hash]
