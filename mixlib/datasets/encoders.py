"""Turn normalised raw tables into numeric feature matrices (the ``prepare`` stage)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mixlib.datasets.registry import CLASS_COLUMN, ROW_ID_COLUMN, prefixed_role_columns

BASES = "ACGT"
IUPAC_CODES: dict[str, str] = {
    "A": "A", "C": "C", "G": "G", "T": "T",
    "R": "AG", "Y": "CT", "S": "CG", "W": "AT", "K": "GT", "M": "AC",
    "B": "CGT", "D": "AGT", "H": "ACT", "V": "ACG", "N": "ACGT",
}
"""Each IUPAC nucleotide code and the bases it stands for."""

ENCODINGS = ("onehot", "ordinal")


def _base_weights() -> np.ndarray:
    """Table of shape (256, 4): row ``ord(code)`` spreads one unit over the code's bases."""
    table = np.full((256, len(BASES)), np.nan)
    for code, bases in IUPAC_CODES.items():
        table[ord(code)] = [1.0 / len(bases) if b in bases else 0.0 for b in BASES]
    return table


_WEIGHTS = _base_weights()


def encode_sequences(sequences: pd.Series, encoding: str = "onehot") -> pd.DataFrame:
    """Encode equal-length nucleotide sequences as numbers.

    Parameters
    ----------
    sequences : pandas.Series of str, length n_samples
        Sequences over the IUPAC alphabet, all of the same length L.
    encoding : {"onehot", "ordinal"}
        ``onehot``: 4 columns per position (``p01_A`` ... ``pL_T``); a base gives 1 in its
        column, an ambiguity code spreads one unit evenly over the bases it stands for
        (N = 1/4 each, R = A/G = 1/2 each, D = A/G/T = 1/3 each). ``ordinal``: one column per
        position with A, C, G, T = 0, 1, 2, 3 and an ambiguity code the mean of its bases'
        values (N = 1.5). The ordinal code puts G "between" C and T, which matters for
        isotropic kernels; one-hot puts all four bases at the same distance.

    Returns
    -------
    pandas.DataFrame of shape (n_samples, 4 L) or (n_samples, L), float64.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"Unknown encoding {encoding!r}; expected one of {list(ENCODINGS)}.")
    strings = sequences.astype(str).str.upper().to_numpy()
    lengths = {len(s) for s in strings}
    if len(lengths) != 1:
        raise ValueError(f"Sequences must all have the same length, got lengths {sorted(lengths)}.")
    (length,) = lengths
    codes = np.frombuffer("".join(strings).encode("ascii", errors="replace"), dtype=np.uint8)
    weights = _WEIGHTS[codes]
    if np.isnan(weights).any():
        flat = int(np.flatnonzero(np.isnan(weights[:, 0]))[0])
        raise ValueError(
            f"Sequence {flat // length} has the symbol {chr(codes[flat])!r} at position "
            f"{flat % length + 1}, which is not an IUPAC nucleotide code {sorted(IUPAC_CODES)}."
        )
    weights = weights.reshape(len(strings), length, len(BASES))
    positions = [f"p{i + 1:02d}" for i in range(length)]
    if encoding == "onehot":
        columns = [f"{p}_{b}" for p in positions for b in BASES]
        return pd.DataFrame(weights.reshape(len(strings), -1), columns=columns)
    ordinal = weights @ np.arange(len(BASES), dtype=np.float64)
    return pd.DataFrame(ordinal, columns=positions)


def category_order(values: pd.Series) -> list[str]:
    """The categories of a text column in code order: by number when every value is one
    (``"2" < "10"``), else alphabetically; missing cells are not a category."""
    categories = sorted(set(values.dropna().astype(str)))
    numbers = pd.to_numeric(pd.Series(categories, dtype=object), errors="coerce")
    if len(categories) and numbers.notna().all():
        return [c for _, c in sorted(zip(numbers.to_numpy(), categories))]
    return categories


def encode_categorical(column: pd.Series, encoding: str = "onehot") -> pd.DataFrame:
    """Encode one categorical feature (text, ``None``/NaN where missing) as numbers.

    Parameters
    ----------
    column : pandas.Series of str, length n_samples
        The feature's values; its name names the output columns.
    encoding : {"onehot", "ordinal"}
        ``onehot``: one 0/1 column ``<name>=<category>`` per category (in
        :func:`category_order`); ``ordinal``: one column ``<name>`` holding the category's
        position 0, 1, ..., m - 1 in that order (meaningful for ordered categories only).
        A missing cell is NaN in every output column of the feature, for the imputation
        stage to fill.

    Returns
    -------
    pandas.DataFrame of shape (n_samples, m) or (n_samples, 1), float64.
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"Unknown encoding {encoding!r}; expected one of {list(ENCODINGS)}.")
    categories = category_order(column)
    text = column.astype(object).where(column.notna(), None).map(
        lambda value: None if value is None else str(value))
    index = pd.Categorical(text, categories=categories).codes.astype(np.int64)  # -1: missing
    observed = index >= 0
    name = str(column.name)
    if encoding == "ordinal":
        return pd.DataFrame({name: np.where(observed, index, np.nan).astype(np.float64)})
    onehot = (index[:, None] == np.arange(len(categories))[None, :]).astype(np.float64)
    onehot[~observed] = np.nan
    return pd.DataFrame(onehot, columns=[f"{name}={category}" for category in categories])


def prepare_table(raw: pd.DataFrame, sequence_column: str | None = None,
                  encoding: str = "onehot",
                  categorical_columns: tuple[str, ...] | list[str] = ()) -> pd.DataFrame:
    """The prepared table: ``row_id``, numeric features, then ``class``.

    Sequence data are encoded by :func:`encode_sequences` and categorical features by
    :func:`encode_categorical` (both with ``encoding``), each in its place among the
    features; numeric features are passed through unchanged (standardisation depends on the split, so it happens later, with statistics of
    the training rows only). Missing values stay NaN: imputation is its own stage. Role columns
    (:data:`mixlib.datasets.registry.ROLE_PREFIX`) are not features and are left out; the
    ``split`` stage reads them from the raw table.
    """
    if CLASS_COLUMN not in raw.columns:
        raise ValueError(f"The raw table has no {CLASS_COLUMN!r} column.")
    if ROW_ID_COLUMN in raw.columns:
        raise ValueError(f"The raw table has a feature named {ROW_ID_COLUMN!r}, which the "
                         "prepared table uses for row numbers; rename it.")
    if sequence_column is not None:
        features = encode_sequences(raw[sequence_column], encoding)
    else:
        features = raw.drop(columns=[CLASS_COLUMN, *prefixed_role_columns(raw.columns)])
        features = pd.concat(_encoded_pieces(features.reset_index(drop=True), encoding,
                                             categorical_columns), axis=1)
    # one concatenation of a few blocks: a frame of thousands of columns is built in time
    # linear in its columns, not fragmented
    return pd.concat(
        [pd.DataFrame({ROW_ID_COLUMN: np.arange(len(raw))}), features,
         pd.DataFrame({CLASS_COLUMN: raw[CLASS_COLUMN].astype(str).to_numpy()})], axis=1
    )


def _encoded_pieces(features: pd.DataFrame, encoding: str,
                    categorical_columns: tuple[str, ...] | list[str]) -> list[pd.DataFrame]:
    """The features in file order as frames: each run of numeric columns as one float64 block,
    each categorical feature encoded (:func:`encode_categorical`)."""
    pieces, run = [], []
    for column in features.columns:
        if column not in categorical_columns:
            run.append(column)
            continue
        if run:
            pieces.append(features[run].astype(np.float64))
            run = []
        pieces.append(encode_categorical(features[column], encoding))
    if run:
        pieces.append(features[run].astype(np.float64))
    return pieces


def feature_matrix(prepared: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Split a prepared table into ``X`` (float64, NaN where missing) and ``y`` (str labels)."""
    X = prepared.drop(columns=[ROW_ID_COLUMN, CLASS_COLUMN]).to_numpy(dtype=np.float64)
    y = prepared[CLASS_COLUMN].to_numpy(dtype=str)
    return X, y
