"""The suite's shipped data sets: checksums, shapes, the layouts of their original
files, categorical features through the pipeline, and the url source of the originals."""

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from mixlib.datasets import BUNDLED, load_bundled, load_source, load_xy, prepare_table
from mixlib.datasets.encoders import category_order, encode_categorical
from mixlib.datasets.layouts import LAYOUTS, ORIGINS
from mixlib.datasets.parsers import PARSERS, parse_layout, read_normalised_csv
from mixlib.datasets.user_csv import parse_user_csv
from mixlib.datasets import uses_standardisation

ROOT = Path(__file__).resolve().parents[1]
PROVENANCE = (ROOT / "mixlib" / "datasets" / "data" / "PROVENANCE.md").read_text()

# name: sha256 of the uncompressed CSV, rows, raw features, encoded features (one-hot),
# class counts (sorted by count, largest first), missing cells of the raw table
SUITE = {
    "iris": ("03aa177d2a65b4585eba5a3e896aadcf4b7466b67eebe911c6784314de27560b",
             150, 4, 4, [50, 50, 50], 0),
    "breast_cancer_wdbc": ("87ec98d214559ec17cf6d1b424af40ec1155c91f37b45888dd343fd5cc9d0db3",
                           569, 30, 30, [357, 212], 0),
    "optdigits": ("bb91ac08ceeb4eb7ddca61f0af46532f91c54eea07aab185ef61474328881e05",
                  1797, 64, 64, [183, 182, 182, 181, 181, 180, 179, 178, 177, 174], 0),
    "glass": ("fd387739ca07871315fb269019222c850481e64430287aabc98160fdb2e9e723",
              214, 9, 9, [76, 70, 29, 17, 13, 9], 0),
    "ionosphere": ("9ca46748234d9aa11a6dd72db4ba6cf74f68271c54835e7686ff3647be0101c4",
                   351, 34, 34, [225, 126], 0),
    "sonar": ("904c34a25dd8c81111d7412eb3b1a08f694beca7e1c2617b1f2e93fe48ffebe1",
              208, 60, 60, [111, 97], 0),
    "vehicle": ("0e1e15959fb3c865ad88e3472370409d0fb46c04e247b2978a3f71f0d73338fc",
                846, 18, 18, [218, 217, 212, 199], 0),
    "house_votes": ("6e69301fcac51ca0955c9797763ea320bb33f5379495fb15b14ba512e202d56b",
                    435, 16, 32, [267, 168], 392),
    "soybean": ("66a535e29ece2c921a045607cc65c89576cb1ba0427a728429ffefd1b46e2dac",
                683, 35, 99, [92, 91, 91, 88, 44, 44, 20, 20, 20, 20, 20, 20, 20, 20, 20, 16,
                              15, 14, 8], 2337),
    "breast_cancer_wisconsin": (
        "90682f660bb6678189a196e994b89c46db2bfac69d9f8b7866bea23ec28b7534",
        699, 9, 9, [458, 241], 16),
    "letter": ("2372b53d7fecc6d9faa9b428ef9f14c7f80d5cafb0d9e3846c784663a3b5ab67",
               20000, 16, 16, None, 0),
    "satellite": ("98bfae896ef5c1cac3f43f7e4c33b568bbf64358c9f249e4945ec4c05e9f18ab",
                  6435, 36, 36, [1533, 1508, 1358, 707, 703, 626], 0),
    "zoo": ("7e932976dd84842eb28072d52dd0928c0609ef78ac10f831440b57acffbd4912",
            101, 16, 16, [41, 20, 13, 10, 8, 5, 4], 0),
    "spambase": ("56a70f87fbfdd232702b255e33893ef0cb89f5b98a1570c33a0efddd17e688b6",
                 4601, 57, 57, [2788, 1813], 0),
    "vowel": ("ab7ff38f2338d5e7fec3ef7450ba7816490d8f26db0f7d774e71b7ab7c1d874e",
              990, 11, 11, [90] * 11, 0),
    "german_credit": ("84d2715d7809e3886f09d97b128b6a1b9206bd2e2cac0fd5d54c2bd93856748e",
                      1000, 20, 61, [700, 300], 0),
    "kr_vs_kp": ("a3e5eee1290e27fef745dcb1b98c42e300476271b1a352a06961d211588543a5",
                 3196, 36, 73, [1669, 1527], 0),
    "penguins": ("cb9dbedf4a02ad96832ea06802b8c974fe6141ac72e60c03d4814245e4b102ff",
                 344, 6, 9, [152, 124, 68], 19),
}


def test_every_suite_data_set_is_shipped_and_documented():
    assert set(SUITE) <= set(BUNDLED)
    assert set(SUITE) == set(LAYOUTS) == set(ORIGINS)
    for name, (sha256, *_) in SUITE.items():
        assert re.search(rf"`{name}\.csv`.*{sha256}", PROVENANCE), name


@pytest.mark.parametrize("name", sorted(SUITE))
def test_shipped_copy_has_its_checksum_and_shape(name):
    sha256, rows, n_raw, n_encoded, counts, missing = SUITE[name]
    with BUNDLED[name].open_binary() as handle:
        content = gzip.decompress(handle.read())
    assert hashlib.sha256(content).hexdigest() == sha256
    raw = load_bundled(name)
    assert raw.shape == (rows, n_raw + 1) == (BUNDLED[name].n_rows, BUNDLED[name].n_features + 1)
    assert list(raw.columns) == [*LAYOUTS[name].features, "class"]
    assert int(raw.drop(columns="class").isna().sum().sum()) == missing
    X, y = load_xy(name)
    assert X.shape == (rows, n_encoded) and X.dtype == np.float64
    sizes = sorted(np.unique(y, return_counts=True)[1], reverse=True)
    assert sizes == (counts if counts is not None else sizes)
    if name == "letter":
        assert len(sizes) == 26 and sum(sizes) == 20000


def _render(raw: pd.DataFrame, name: str) -> str:
    """The shipped copy written back in its original file's layout (ignored fields get a
    placeholder), to check that parsing the original gives the shipped table."""
    layout = LAYOUTS[name]
    marker = layout.missing[0]
    table = raw.rename(columns={"class": layout.class_column})
    for column in layout.ignored:
        table[column] = "0"
    cells = table[list(layout.columns)].astype(object).where(table[list(layout.columns)].notna(),
                                                              marker)
    cells = cells.map(lambda v: f"{v:.17g}" if isinstance(v, float) else str(v))
    delimiter = layout.delimiter or "  "
    lines = [delimiter.join(row) for row in cells.to_numpy()]
    if layout.header:
        lines.insert(0, delimiter.join(layout.columns))
    return "\n".join(lines) + "\n\n"


@pytest.mark.parametrize("name", sorted(SUITE))
def test_parsing_the_original_layout_gives_the_shipped_copy(name):
    raw = load_bundled(name)
    parsed = PARSERS[name](_render(raw, name))
    pd.testing.assert_frame_equal(parsed, raw, check_dtype=False)
    assert parsed.attrs["lines"][0] == (2 if LAYOUTS[name].header else 1)


def test_layout_errors_name_the_line_and_column():
    layout = LAYOUTS["glass"]
    with pytest.raises(ValueError, match=r"glass.data line 2: expected 11 fields, got 10"):
        parse_layout("1," * 10 + "1\n" + "1," * 9 + "1\n", layout, "glass.data")
    with pytest.raises(ValueError, match=r"column 'Mg' holds 'x' at line 1, which is not a"):
        parse_layout("1,1.5,13,x,1,70,0,8,0,0,1\n", layout, "glass.data")
    with pytest.raises(ValueError, match=r"class field 'type' is missing at line 1"):
        parse_layout("1,1.5,13,4,1,70,0,8,0,0,?\n", layout, "glass.data")


def test_the_url_source_joins_several_files_and_takes_the_origin_defaults(tmp_path):
    raw = load_bundled("soybean")
    text = _render(raw, "soybean")
    lines = text.strip().split("\n")
    paths = [tmp_path / "soybean-large.data", tmp_path / "soybean-large.test"]
    paths[0].write_text("\n".join(lines[:307]) + "\n")
    paths[1].write_text("\n".join(lines[307:]) + "\n")
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]
    spec = {"source": "url", "url": [p.as_uri() for p in paths], "sha256": digests}
    loaded = load_source("soybean", spec)  # format from the origin of the shipped soybean
    pd.testing.assert_frame_equal(loaded, raw, check_dtype=False)
    with pytest.raises(ValueError, match=r"datasets.soybean.sha256: 1 digest\(s\) for 2 url"):
        load_source("soybean", {**spec, "sha256": digests[0]})
    with pytest.raises(ValueError, match=r"datasets.mine.url: a url data set needs its url"):
        load_source("mine", {"source": "url", "sha256": digests[0], "format": "glass"})


def test_categories_are_coded_in_number_order_when_they_are_numbers():
    assert category_order(pd.Series(["10", "2", None, "1", "2"])) == ["1", "2", "10"]
    assert category_order(pd.Series(["b", "a", "10"])) == ["10", "a", "b"]


def test_onehot_and_ordinal_codes_of_a_categorical_column():
    column = pd.Series(["y", "n", None, "y"], name="vote")
    onehot = encode_categorical(column, "onehot")
    assert list(onehot.columns) == ["vote=n", "vote=y"]
    np.testing.assert_array_equal(onehot.to_numpy(),
                                  [[0, 1], [1, 0], [np.nan, np.nan], [0, 1]])
    ordinal = encode_categorical(pd.Series(["3", "1", None, "10"], name="grade"), "ordinal")
    np.testing.assert_array_equal(ordinal["grade"].to_numpy(), [1, 0, np.nan, 2])
    with pytest.raises(ValueError, match="Unknown encoding 'binary'"):
        encode_categorical(column, "binary")


def test_prepare_encodes_categorical_columns_in_place_and_numbers_pass_through():
    raw = load_bundled("penguins")
    prepared = prepare_table(raw, None, "onehot", BUNDLED["penguins"].categorical_columns)
    assert list(prepared.columns) == [
        "row_id", "island=Biscoe", "island=Dream", "island=Torgersen", "bill_length_mm",
        "bill_depth_mm", "flipper_length_mm", "body_mass_g", "sex=female", "sex=male", "class"]
    sexes = prepared[["sex=female", "sex=male"]].to_numpy()
    assert np.isnan(sexes).all(axis=1).sum() == 11
    np.testing.assert_array_equal(np.nansum(sexes, axis=1)[~np.isnan(sexes[:, 0])], 1.0)
    ordinal = prepare_table(raw, None, "ordinal", BUNDLED["penguins"].categorical_columns)
    assert ordinal.shape[1] == 2 + 6
    assert set(ordinal["island"]) == {0.0, 1.0, 2.0}


def test_a_users_csv_takes_categorical_columns(tmp_path):
    text = "colour,size,kind\nred,1.5,a\nblue,,a\n?,2.5,b\nred,3,b\n"
    raw = parse_user_csv(text, "kind", missing_values=["?"], categorical_columns=["colour"])
    assert raw["colour"].tolist() == ["red", "blue", None, "red"]
    assert raw["size"].isna().tolist() == [False, True, False, False]
    path = tmp_path / "raw.csv"
    raw.to_csv(path, index=False)
    again = read_normalised_csv(path, None, ["colour"])
    prepared = prepare_table(again, None, "onehot", ["colour"])
    assert list(prepared.columns) == ["row_id", "colour=blue", "colour=red", "size", "class"]
    with pytest.raises(ValueError, match=r"column 'colour' is not numeric: 'red' at lines 2, 3, 5; "
                                         r"list the column in categorical_columns"):
        parse_user_csv(text, "kind", missing_values=["?"])
    with pytest.raises(ValueError, match=r"categorical_columns names 'shape', which is not"):
        parse_user_csv(text, "kind", categorical_columns=["shape"])
    with pytest.raises(ValueError, match=r"column 'colour' has no value in any row"):
        parse_user_csv("colour,size,kind\n?,1,a\n?,2,a\n", "kind", missing_values=["?"],
                       categorical_columns=["colour"])


def test_only_all_categorical_data_skip_standardisation_by_default():
    assert not uses_standardisation("kr_vs_kp", {})
    assert not uses_standardisation("house_votes", {})
    assert not uses_standardisation("splice", {})
    assert uses_standardisation("penguins", {})  # mixed: the measurements need it
    assert uses_standardisation("german_credit", {})
    assert uses_standardisation("x", {"source": "url", "format": "iris", "url": "file:///x"})
    assert not uses_standardisation("x", {"source": "url", "format": "kr_vs_kp"})
    assert uses_standardisation("kr_vs_kp", {"standardise": True})


def test_schema_formats_are_the_parsers():
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert sorted(schema["$defs"]["dataset"]["properties"]["format"]["enum"]) == sorted(PARSERS)
