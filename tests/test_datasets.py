"""Shipped data sets, UCI parsers, the user-CSV reader and the sequence encoders."""

import gzip
import hashlib

import numpy as np
import pandas as pd
import pytest

from mixlib.datasets import BUNDLED, encode_sequences, load_bundled, load_source, load_xy, prepare_table
from mixlib.datasets.parsers import (
    CLEVELAND_COLUMNS, WINE_COLUMNS, parse_uci, parse_uci_cleveland, parse_uci_splice,
    parse_uci_wine, read_normalised_csv,
)
from mixlib.datasets.user_csv import parse_user_csv

# SHA-256 of the normalised copies as documented in mixlib/datasets/data/PROVENANCE.md.
PROVENANCE_SHA256 = {
    "splice": "8991fb559fd8db035d96bd06cd3677ebf78aa7da228dc8026e176787659eadce",
    "heart_cleveland": "e31198bc4d502cd8454080a2a4f93502238186db9011b8169c926a5824497156",
    "wine": "8afa51b7b46daf7f77aff19a58405ec076b7e7cf88e0224d8cd8d1fc099a2505",
}


@pytest.mark.parametrize("name", sorted(PROVENANCE_SHA256))  # the suite's: test_suite_datasets
def test_shipped_copy_is_the_documented_file(name):
    with BUNDLED[name].open_binary() as handle:
        content = gzip.decompress(handle.read())
    assert hashlib.sha256(content).hexdigest() == PROVENANCE_SHA256[name]


@pytest.mark.parametrize(
    "name, shape, classes, missing",
    [
        ("splice", (3190, 240), {"EI": 767, "IE": 768, "N": 1655}, 0),
        ("heart_cleveland", (303, 13), {"0": 164, "1": 139}, 6),
        ("wine", (178, 13), {"1": 59, "2": 71, "3": 48}, 0),
    ],
)
def test_load_xy_shapes_classes_and_missing_cells(name, shape, classes, missing):
    X, y = load_xy(name)
    assert X.shape == shape and X.dtype == np.float64
    assert dict(zip(*np.unique(y, return_counts=True))) == classes
    assert int(np.isnan(X).sum()) == missing
    assert BUNDLED[name].n_rows == shape[0]


def test_heart_missing_cells_are_in_ca_and_thal():
    raw = load_bundled("heart_cleveland")
    assert raw.isna().sum()[lambda s: s > 0].to_dict() == {"ca": 4, "thal": 2}


def test_onehot_spreads_ambiguity_codes_over_their_bases():
    encoded = encode_sequences(pd.Series(["ACGT", "NDRS"]), "onehot")
    assert encoded.shape == (2, 16)
    assert list(encoded.columns[:5]) == ["p01_A", "p01_C", "p01_G", "p01_T", "p02_A"]
    np.testing.assert_allclose(encoded.iloc[0].to_numpy().reshape(4, 4), np.eye(4))
    np.testing.assert_allclose(
        encoded.iloc[1].to_numpy().reshape(4, 4),
        [[0.25, 0.25, 0.25, 0.25], [1 / 3, 0, 1 / 3, 1 / 3], [0.5, 0, 0.5, 0], [0, 0.5, 0.5, 0]],
    )


def test_ordinal_codes_bases_and_averages_ambiguity_codes():
    encoded = encode_sequences(pd.Series(["ACGT", "NRSt"]), "ordinal")
    assert list(encoded.columns) == ["p01", "p02", "p03", "p04"]
    np.testing.assert_allclose(encoded.to_numpy(), [[0, 1, 2, 3], [1.5, 1.0, 1.5, 3.0]])


def test_splice_onehot_rows_sum_to_one_per_position_including_ambiguous_rows():
    X, _ = load_xy("splice", "onehot")
    np.testing.assert_allclose(X.reshape(len(X), 60, 4).sum(axis=2), 1.0)
    fractional = np.unique(X[(X > 0) & (X < 1)])
    np.testing.assert_allclose(fractional, [0.25, 1 / 3, 0.5])


def test_encoder_rejects_unknown_symbols_and_ragged_lengths():
    with pytest.raises(ValueError, match=r"symbol 'X' at position 3"):
        encode_sequences(pd.Series(["ACGT", "ACXT"]))
    with pytest.raises(ValueError, match="same length"):
        encode_sequences(pd.Series(["ACGT", "ACG"]))
    with pytest.raises(ValueError, match="Unknown encoding"):
        encode_sequences(pd.Series(["ACGT"]), "binary")


def test_prepare_table_has_row_ids_features_and_class_last():
    prepared = prepare_table(load_bundled("wine"))
    assert list(prepared.columns[:2]) == ["row_id", "alcohol"]
    assert prepared.columns[-1] == "class"
    assert prepared["row_id"].tolist() == list(range(178))


SPLICE_DATA = (
    "EI,      ATRINS-DONOR-521,       " + "CCAGCTGCATCACAGGAGGCCAGCGAGCAGGTCTGTTCCAAGGGCCTTCGAGCCAGTCTG\n"
    "N,       HUMGLUT4B-NEG-1,        " + "NACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACG\n"
)


def test_parse_uci_splice():
    frame = parse_uci_splice(SPLICE_DATA)
    assert frame["class"].tolist() == ["EI", "N"]
    assert frame["sequence"].str.len().tolist() == [60, 60]
    with pytest.raises(ValueError, match="line 1: sequence has 3 bases"):
        parse_uci_splice("EI, x, ACG\n")
    with pytest.raises(ValueError, match="3 comma-separated fields"):
        parse_uci_splice("EI, ACG\n")


def test_parse_uci_cleveland_maps_diagnosis_and_question_marks():
    text = (
        "63.0,1.0,1.0,145.0,233.0,1.0,2.0,150.0,0.0,2.3,3.0,0.0,6.0,0\n"
        "67.0,1.0,4.0,160.0,286.0,0.0,2.0,108.0,1.0,1.5,2.0,?,3.0,2\n"
    )
    frame = parse_uci_cleveland(text)
    assert list(frame.columns) == CLEVELAND_COLUMNS + ["class"]
    assert frame["class"].tolist() == ["0", "1"]
    assert np.isnan(frame.loc[1, "ca"]) and frame.loc[0, "oldpeak"] == 2.3
    with pytest.raises(ValueError, match="expected 14 values, got 13"):
        parse_uci_cleveland("1,2,3,4,5,6,7,8,9,10,11,12,13\n")


def test_parse_uci_cleveland_agrees_with_the_shipped_copy():
    shipped = load_bundled("heart_cleveland")
    lines = []
    for row in shipped.itertuples(index=False):
        values = ["?" if pd.isna(v) else repr(float(v)) for v in row[:-1]]
        lines.append(",".join(values + [row[-1]]))
    parsed = parse_uci("\n".join(lines), "uci_cleveland")
    pd.testing.assert_frame_equal(parsed, shipped, check_dtype=False)


def test_parse_uci_wine_class_first():
    frame = parse_uci_wine("1,14.23,1.71,2.43,15.6,127,2.8,3.06,.28,2.29,5.64,1.04,3.92,1065\n")
    assert list(frame.columns) == WINE_COLUMNS + ["class"]
    assert frame.loc[0, "class"] == "1" and frame.loc[0, "proline"] == 1065.0
    with pytest.raises(ValueError, match="Unknown format"):
        parse_uci("", "uci_iris")


def test_user_csv_reads_missing_markers_drops_columns_and_moves_class_last():
    text = "id,species,a,b\nx1,cat,1.5,?\nx2,dog,,2\n\nx3,cat,3,4\nx4,dog,5,6\n"
    frame = parse_user_csv(text, "species", missing_values=["?"], drop_columns=["id"])
    assert list(frame.columns) == ["a", "b", "class"]
    assert frame["class"].tolist() == ["cat", "dog", "cat", "dog"]
    assert frame[["a", "b"]].isna().sum().tolist() == [1, 1]
    # File lines as an editor shows them: the header is line 1, the blank line 4 is counted.
    assert frame.attrs["lines"] == [2, 3, 5, 6]


@pytest.mark.parametrize(
    "text, kwargs, message",
    [
        ("a,b\n1,2\n", {"class_column": "label"}, r"class_column names 'label'"),
        ("a,label\n1,x\n", {"class_column": "label", "drop_columns": ["zz"]}, r"drop_columns names 'zz'"),
        ("a,label\nfoo,x\n", {"class_column": "label"}, r"column 'a' is not numeric: 'foo' at line 2"),
        ("a,label\n1,x\n2,y\n\n3,\n", {"class_column": "label"},
         r"class column 'label' is empty .* at line 5;"),
    ],
)
def test_user_csv_errors_name_the_problem(text, kwargs, message):
    with pytest.raises(ValueError, match=message):
        parse_user_csv(text, **kwargs)


ROLE_CSV = "id,species,a,role\nx1,cat,1.5,train\nx2,dog,,test\n\nx3,cat,3,\nx4,dog,5,?\nx5,cat,2,unused\n"
ROLE_KEY = {"role": "splits.fixed.role_column"}


def test_a_role_column_is_kept_as_text_beside_the_features_never_among_them():
    frame = parse_user_csv(ROLE_CSV, "species", missing_values=["?"], drop_columns=["id"],
                           role_columns=ROLE_KEY)
    assert list(frame.columns) == ["a", "role:role", "class"]
    # An empty cell, or a missing marker, is an empty role (the row is then unused).
    assert frame["role:role"].tolist() == ["train", "test", "", "", "unused"]
    prepared = prepare_table(frame)
    assert list(prepared.columns) == ["row_id", "a", "class"]
    # Without role_columns the same column is a (non-numeric) feature, as before.
    with pytest.raises(ValueError, match=r"column 'role' is not numeric: 'train' at lines 2, 3, 7; .*name it in a split's role_column"):
        parse_user_csv(ROLE_CSV, "species", missing_values=["?"], drop_columns=["id"])


def test_a_role_column_survives_the_fetched_csv_as_text(tmp_path):
    frame = parse_user_csv(ROLE_CSV, "species", missing_values=["?"], drop_columns=["id"],
                           role_columns=ROLE_KEY)
    path = tmp_path / "fetched.csv"
    frame.to_csv(path, index=False, na_rep="")
    again = read_normalised_csv(path)
    assert again["role:role"].tolist() == ["train", "test", "", "", "unused"]
    assert again["a"].dtype == np.float64 and list(prepare_table(again).columns) == ["row_id", "a", "class"]
    # A role column that is empty in every row reads back as text too.
    frame["role:role"] = ""
    frame.to_csv(path, index=False, na_rep="")
    assert read_normalised_csv(path)["role:role"].tolist() == [""] * 5


@pytest.mark.parametrize(
    "role_columns, text, message",
    [
        ({"fold": "splits.fixed.role_column"}, ROLE_CSV,
         r"splits.fixed.role_column: CSV has no column 'fold' \(its columns: \['id', 'species', 'a', 'role'\]\)"),
        ({"species": "splits.fixed.role_column"}, ROLE_CSV,
         r"splits.fixed.role_column: 'species' is the class column of CSV"),
        (ROLE_KEY, ROLE_CSV.replace("x5,cat,2,unused", "x5,cat,2,dev"),
         r"splits.fixed.role_column: column 'role' of CSV holds 'dev' at line 7, which is not a role"),
        (ROLE_KEY, ROLE_CSV.replace("train", "Train"), r"holds 'Train' at line 2"),
    ],
)
def test_role_column_errors_name_the_key_the_column_and_the_line(role_columns, text, message):
    with pytest.raises(ValueError, match=message):
        parse_user_csv(text, "species", missing_values=["?"], drop_columns=["id"], role_columns=role_columns)


def test_a_shipped_data_set_has_no_role_column():
    with pytest.raises(ValueError, match=r"splits.s.role_column: datasets.w \(the shipped wine\) has no column 'role'"):
        load_source("w", {"bundled_name": "wine", "role_columns": {"role": "splits.s.role_column"}})
    with pytest.raises(ValueError, match=r"'class' is the class column of datasets.wine"):
        load_source("wine", {"role_columns": {"class": "splits.s.role_column"}})


def test_a_downloaded_file_has_no_role_column_and_the_fetch_job_says_so(tmp_path):
    text = "1,14.23,1.71,2.43,15.6,127,2.8,3.06,.28,2.29,5.64,1.04,3.92,1065\n" * 2
    path = tmp_path / "wine.data"
    path.write_text(text)
    spec = {"source": "url", "url": path.as_uri(), "sha256": hashlib.sha256(text.encode()).hexdigest(),
            "format": "uci_wine", "role_columns": {"role": "splits.w.role_column"}}
    with pytest.raises(ValueError, match=rf"splits.w.role_column: datasets.w \({path.as_uri()}\) has no column 'role'"):
        load_source("w", spec)
    assert len(load_source("w", {**spec, "role_columns": {}})) == 2
