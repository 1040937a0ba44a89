"""A user's CSV: read in time linear in its size, recognised by its first bytes, quoted in
messages only once it is recognised as the user's CSV."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from pandas.errors import PerformanceWarning

from mixlib.datasets import prepare_table
from mixlib.datasets.sources import load_source
from mixlib.datasets.user_csv import parse_user_csv


def wide_csv(n_columns: int, n_rows: int = 60) -> str:
    """A numeric CSV of ``n_columns`` features and a class column ``label`` (two classes)."""
    values = np.random.default_rng(0).normal(size=(n_rows, n_columns))
    lines = [",".join(f"f{j}" for j in range(n_columns)) + ",label"]
    lines += [",".join(f"{v:.6g}" for v in row) + f",{'ab'[i % 2]}" for i, row in enumerate(values)]
    return "\n".join(lines) + "\n"


def test_a_wide_csv_is_read_whole_without_a_fragmentation_warning():
    text = wide_csv(2000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        frame = parse_user_csv(text, "label")
    assert frame.shape == (60, 2001) and list(frame.columns[:2]) == ["f0", "f1"]
    assert frame["f1999"].dtype == np.float64 and frame["class"].tolist()[:3] == ["a", "b", "a"]
    expected = np.array([[float(cell) for cell in line.split(",")[:-1]]
                         for line in text.splitlines()[1:]])
    np.testing.assert_array_equal(frame.drop(columns="class").to_numpy(), expected)


def test_a_wide_table_is_prepared_without_a_fragmentation_warning():
    raw = parse_user_csv(wide_csv(2000), "label")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        prepared = prepare_table(raw)
    assert list(prepared.columns) == ["row_id", *raw.columns]
    np.testing.assert_array_equal(prepared.iloc[:, 1:-1].to_numpy(), raw.iloc[:, :-1].to_numpy())


def test_the_table_is_built_in_one_step_whatever_its_width(monkeypatch):
    # One insertion per column costs time quadratic in the columns (7.6 s at 1,000 columns,
    # 298 s at 10,000 through a dry run): count them.
    calls = []
    for method in ("__setitem__", "insert"):
        original = getattr(pd.DataFrame, method)
        monkeypatch.setattr(pd.DataFrame, method,
                            lambda self, *args, _original=original, **kwargs:
                            calls.append(1) or _original(self, *args, **kwargs))
    for n_columns in (10, 1000):
        parse_user_csv(wide_csv(n_columns), "label")
    assert calls == []


def test_a_message_lists_at_most_ten_column_names():
    text = wide_csv(30)
    with pytest.raises(ValueError, match=r"class_column names 'kind', which is not a column of "
                                         r"\['f0', .*'f9'\] and 21 more columns\.$"):
        parse_user_csv(text, "kind")


# --- Inputs recognised by their first bytes ------------------------------------------------

PEOPLE = "height,weight,kind\n" + "".join(
    f"{150 + i},{50 + (i * 7) % 30},{'tall' if i % 3 else 'short'}\n" for i in range(12))
SPEC = {"source": "csv", "path": "people.csv", "class_column": "kind"}


def xlsx_bytes() -> bytes:
    """A zip archive as a spreadsheet program writes an .xlsx (its first bytes are PK 03 04)."""
    import io
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/worksheets/sheet1.xml", "<worksheet/>")
    return buffer.getvalue()


@pytest.mark.parametrize("encode", [
    lambda text: __import__("gzip").compress(text.encode()),
    lambda text: text.encode("utf-16"),                     # with its byte-order mark, LE
    lambda text: b"\xfe\xff" + text.encode("utf-16-be"),
    lambda text: text.encode("utf-32"),
    lambda text: b"\xef\xbb\xbf" + text.encode(),
    lambda text: __import__("gzip").compress(text.encode("utf-16")),
], ids=["gzip", "utf-16-le", "utf-16-be", "utf-32", "utf-8-bom", "gzip-of-utf-16"])
def test_gzip_utf16_and_utf32_csvs_are_read_as_the_plain_csv(tmp_path, encode):
    (tmp_path / "people.csv").write_text(PEOPLE)
    plain = load_source("people", SPEC, tmp_path)
    (tmp_path / "people.csv").write_bytes(encode(PEOPLE))
    again = load_source("people", SPEC, tmp_path)
    pd.testing.assert_frame_equal(again, plain)
    assert again.attrs["lines"] == plain.attrs["lines"]


@pytest.mark.parametrize("content, message", [
    (xlsx_bytes(), r"the file is an Excel workbook or zip archive, not a CSV; save it as CSV "
                   r"\(UTF-8\) and give that file\."),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), r"the file is an old Excel workbook \(\.xls\)"),
    (__import__("bz2").compress(PEOPLE.encode()), r"the file is a bzip2 archive, not a CSV"),
    (PEOPLE.encode("utf-16-le"), r"line 1 holds a zero byte, which no CSV text has: the file is "
                                 r"UTF-16 or UTF-32 text without a byte-order mark"),
    (b"\xff\xfe" + PEOPLE.encode("utf-16-le")[:-1], r"the file starts with a UTF-16 byte-order mark but "
                                                     r"byte \d+ is not UTF-16 text"),
    (__import__("gzip").compress(PEOPLE.encode())[:30], r"the file is gzip-compressed but cannot be decompressed"),
    (__import__("gzip").compress(__import__("gzip").compress(PEOPLE.encode())),
     r"the file is gzip-compressed twice"),
], ids=["xlsx", "xls", "bzip2", "utf-16-without-bom", "utf-16-cut", "gzip-cut", "gzip-twice"])
def test_a_file_that_is_no_csv_text_is_refused_naming_its_format(tmp_path, content, message):
    (tmp_path / "people.csv").write_bytes(content)
    with pytest.raises(ValueError, match=r"^datasets\.people \(people\.csv\): " + message) as caught:
        load_source("people", SPEC, tmp_path)
    assert "iconv" not in str(caught.value) and "Latin-1" not in str(caught.value)


def test_a_downloaded_gzip_file_is_read_and_a_downloaded_workbook_refused(tmp_path):
    import gzip
    import hashlib
    wine = "".join(f"{1 + i % 2},{13 + i / 10},1.7,2.4,15.6,127,2.8,3.06,.28,2.29,5.64,1.04,3.92,"
                   f"{1000 + i}\n" for i in range(6))
    for name, content in (("wine.data.gz", gzip.compress(wine.encode())), ("wine.xlsx", xlsx_bytes())):
        (tmp_path / name).write_bytes(content)
    spec = {"source": "url", "format": "uci_wine", "url": f"file://{tmp_path}/wine.data.gz",
            "sha256": hashlib.sha256((tmp_path / "wine.data.gz").read_bytes()).hexdigest()}
    table = load_source("w", spec)
    assert table.shape == (6, 14) and table["proline"].tolist() == [1000.0 + i for i in range(6)]
    spec.update(url=f"file://{tmp_path}/wine.xlsx",
                sha256=hashlib.sha256((tmp_path / "wine.xlsx").read_bytes()).hexdigest())
    with pytest.raises(ValueError, match=r"^datasets\.w \(file://.*wine\.xlsx\): the file is an "
                                         r"Excel workbook or zip archive, not a CSV"):
        load_source("w", spec)
