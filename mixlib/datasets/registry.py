"""The data sets the project knows by name: their shipped copies and UCI formats."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mixlib.core.vocabulary import CLASS_COLUMN  # the class column, always the last one
from mixlib.datasets.layouts import LAYOUTS

ROW_ID_COLUMN = "row_id"
"""Name of the row number the prepared tables and splits add: no feature may take it."""
ROLE_PREFIX = "role:"
"""Prefix of a role column in the normalised raw table: the user's column ``role`` of a split's
``role_column`` travels as ``role:role`` (text, ``""`` where empty), beside the features and
never among them, from the ``fetch`` job to the ``split`` job."""
DATA_DIR = Path(__file__).resolve().parent / "data"
"""Where the shipped copies are installed (package data of :mod:`mixlib.datasets`)."""


@dataclass(frozen=True)
class BundledDataset:
    """A data set shipped with :mod:`mixlib` as a gzipped, normalised CSV.

    Attributes
    ----------
    name : str
        Registry key, also the stem of the shipped file ``data/<name>.csv.gz``.
    n_rows : int
        Number of rows of the shipped copy (checked by the tests).
    uci_format : str
        Name of the parser for the canonical UCI file (see :mod:`mixlib.datasets.parsers`).
    sequence_column : str or None
        For sequence data, the column holding one string per row; ``None`` otherwise.
    categorical_columns : tuple of str
        Features whose values are categories, kept as text in the shipped copy and encoded by
        :func:`mixlib.datasets.encoders.prepare_table` (one-hot or ordinal).
    n_features : int or None
        Number of feature columns of the shipped copy (before encoding), checked by the tests.
    """

    name: str
    n_rows: int
    uci_format: str
    sequence_column: str | None = None
    categorical_columns: tuple[str, ...] = ()
    n_features: int | None = None

    def open_binary(self):
        """Open the shipped gzipped CSV for reading (a binary file object)."""
        return (DATA_DIR / f"{self.name}.csv.gz").open("rb")


SUITE_ROWS: dict[str, int] = {
    "iris": 150, "breast_cancer_wdbc": 569, "optdigits": 1797, "glass": 214, "ionosphere": 351,
    "sonar": 208, "vehicle": 846, "house_votes": 435, "soybean": 683,
    "breast_cancer_wisconsin": 699, "letter": 20000, "satellite": 6435, "zoo": 101,
    "spambase": 4601, "vowel": 990, "german_credit": 1000, "kr_vs_kp": 3196, "penguins": 344,
}
"""Rows of the shipped copy of each data set added for the suite (``PROVENANCE.md``)."""

BUNDLED: dict[str, BundledDataset] = {
    "splice": BundledDataset("splice", 3190, "uci_splice", sequence_column="sequence",
                             n_features=1),
    "heart_cleveland": BundledDataset("heart_cleveland", 303, "uci_cleveland", n_features=13),
    "wine": BundledDataset("wine", 178, "uci_wine", n_features=13),
    **{name: BundledDataset(name, n_rows, name, categorical_columns=LAYOUTS[name].categorical,
                            n_features=len(LAYOUTS[name].features))
       for name, n_rows in SUITE_ROWS.items()},
}


def prefixed_role_columns(frame_columns: Iterable[str]) -> list[str]:
    """The role columns (named :data:`ROLE_PREFIX` + the user's name) among ``frame_columns``."""
    return [str(column) for column in frame_columns if str(column).startswith(ROLE_PREFIX)]


def bundled_dataset(name: str) -> BundledDataset:
    """Look up a shipped data set, with an error that lists the known names."""
    try:
        return BUNDLED[name]
    except KeyError:
        raise ValueError(
            f"Unknown bundled data set {name!r}; the shipped data sets are {sorted(BUNDLED)}."
        ) from None
