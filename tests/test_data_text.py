"""Messages in the user's words: text that is not UTF-8, a byte-order mark,
and wildcard patterns that accept every value the schema accepts."""

import re
from pathlib import Path

import pytest

from mixlib.datasets.sources import load_source
from mixlib.datasets.text import decode_text

ROOT = Path(__file__).resolve().parents[1]


def test_the_rate_pattern_accepts_every_rate_the_schema_accepts():
    rule = (ROOT / "workflow" / "rules" / "imputation_study.smk").read_text()
    pattern = re.search(r'rate=r"([^"]+)"', rule).group(1)
    for rate in (0, 0.05, 0.5, 0.999, 0.00001, 1e-10, 0.123456789):
        assert re.fullmatch(pattern, str(rate)), rate


def test_a_byte_that_is_not_utf8_is_named_by_line_and_column(tmp_path):
    (tmp_path / "people.csv").write_bytes(b"name,height,kind\nab,1.5,x\nJos\xe9,1.7,y\n")
    spec = {"source": "csv", "path": "people.csv", "class_column": "kind"}
    with pytest.raises(ValueError, match=r"^datasets\.people \(people\.csv\): line 3, column 4 "
                                         r"holds the byte 0xe9, which is not UTF-8 text"):
        load_source("people", spec, tmp_path)


def test_a_byte_order_mark_is_not_part_of_the_first_column_name(tmp_path):
    rows = "species,height,weight\n" + "".join(f"{'ab'[i % 2]},{i}.5,{i % 3}\n" for i in range(12))
    (tmp_path / "d.csv").write_bytes(b"\xef\xbb\xbf" + rows.encode())
    table = load_source("d", {"source": "csv", "path": "d.csv", "class_column": "species"},
                        tmp_path)
    assert sorted(table["class"].unique()) == ["a", "b"]
    assert decode_text(b"\xef\xbb\xbfa,b\n", "x") == "a,b\n"
