"""Where raw data come from: the shipped copy, a checksummed URL, or a user's CSV."""

from __future__ import annotations

import gzip
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from mixlib.datasets.checks import check_raw_table, check_role_column_names
from mixlib.datasets.download import DownloadLimits, FetchError, download
from mixlib.datasets.parsers import parse_uci, parse_user_csv, read_normalised_csv
from mixlib.datasets.registry import CLASS_COLUMN, bundled_dataset

#: The keys of a data set's config entry that say where and how its raw table is read: the
#: ``fetch`` job's parameters, so changing one refetches the data set.
SOURCE_KEYS = ("source", "bundled_name", "url", "sha256", "format", "max_download_mb",
               "download_deadline_s", "path", "class_column", "missing_values", "drop_columns",
               "role_columns")


def load_bundled(name: str) -> pd.DataFrame:
    """The shipped copy of data set ``name`` as a normalised raw table."""
    info = bundled_dataset(name)
    with info.open_binary() as handle, gzip.open(handle, "rt", encoding="utf-8") as text:
        return read_normalised_csv(text, info.sequence_column)


def load_source(name: str, spec: dict[str, Any], base_dir: Path | str = ".") -> pd.DataFrame:
    """Load data set ``name`` as described by its config entry ``spec``.

    Parameters
    ----------
    name : str
        The data set's key in the config (used in messages).
    spec : dict
        ``source`` is ``bundled`` (optional ``bundled_name``, default ``name``), ``url``
        (``url``, ``sha256``, ``format``; optional ``max_download_mb`` and
        ``download_deadline_s``, see :class:`~mixlib.datasets.download.DownloadLimits`) or ``csv`` (``path``, ``class_column``, optional
        ``missing_values`` and ``drop_columns``). Optional ``role_columns``: the columns the
        splits read roles from, column -> config key
        (:func:`mixlib.model_selection.fixed_splits.dataset_role_columns`); only a user's CSV
        can have them, so for the other sources any is an error naming the key.
    base_dir : path
        Directory that relative CSV paths are resolved against.

    Returns
    -------
    pandas.DataFrame
        The normalised raw table: features (or one sequence column), the role columns
        (``role:<column>``, text), then ``class``; for ``url`` and ``csv`` sources
        ``frame.attrs["lines"]`` is the file line of each row.

    Raises
    ------
    ValueError
        If the values of a ``url`` or ``csv`` source fail :func:`mixlib.datasets.checks.check_raw_table`,
        or a role column is missing, the class column, or holds a cell that is not a role.
    """
    source = spec.get("source", "bundled")
    wanted = dict(spec.get("role_columns", {}))
    if source == "bundled":
        shipped = spec.get("bundled_name", name)
        frame = load_bundled(shipped)
        check_role_column_names(list(frame.columns), wanted, CLASS_COLUMN,
                                f"datasets.{name} (the shipped {shipped})")
        return frame
    if source == "url":
        limits = DownloadLimits.from_config(
            **{key: spec[key] for key in ("max_download_mb", "download_deadline_s") if key in spec})
        with tempfile.TemporaryDirectory(prefix="mixstudy-fetch-") as folder:
            path = download(spec["url"], spec["sha256"], Path(folder) / "download", limits,
                            where=f"datasets.{name}")
            text = path.read_bytes().decode("utf-8", errors="strict")
        frame = parse_uci(text, spec["format"])
        where = f"datasets.{name} ({spec['url']})"
        check_role_column_names(list(frame.columns), wanted, CLASS_COLUMN, where)
        check_raw_table(frame, where, frame.attrs["lines"], sequence_column(name, spec))
        return frame
    if source == "csv":
        path = Path(base_dir) / spec["path"]
        if not path.is_file():
            raise FileNotFoundError(f"datasets.{name}.path: no file at {path}.")
        return parse_user_csv(
            path.read_text(encoding="utf-8"),
            class_column=spec["class_column"],
            missing_values=spec.get("missing_values", []),
            drop_columns=spec.get("drop_columns", []),
            source=f"datasets.{name} ({spec['path']})",
            role_columns=wanted,
        )
    raise ValueError(f"datasets.{name}.source: unknown source {source!r}; expected bundled, url or csv.")


def sequence_column(name: str, spec: dict[str, Any]) -> str | None:
    """The sequence column of a data set, or ``None`` for numeric data.

    Only the shipped splice data and UCI files in the ``uci_splice`` format are sequences.
    """
    source = spec.get("source", "bundled")
    if source == "bundled":
        return bundled_dataset(spec.get("bundled_name", name)).sequence_column
    if source == "url" and spec.get("format") == "uci_splice":
        return "sequence"
    return None


def dataset_encoding(spec: Mapping[str, Any]) -> str:
    """How a data set's sequences are coded: its ``encoding``, ``onehot`` when not given."""
    return spec.get("encoding", "onehot")


def uses_standardisation(name: str, spec: Mapping[str, Any]) -> bool:
    """Whether a data set's features are standardised: its ``standardise`` setting, where
    ``auto`` (the default) means numeric data, not sequences."""
    setting = spec.get("standardise", "auto")
    if setting == "auto":
        return sequence_column(name, dict(spec)) is None
    return bool(setting)
