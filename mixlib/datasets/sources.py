"""Where raw data come from: the shipped copy, a checksummed URL, or a user's CSV."""

from __future__ import annotations

import gzip
import hashlib
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from mixlib.datasets.checks import check_raw_table, check_role_column_names
from mixlib.datasets.download import DownloadLimits, FetchError, download, redact
from mixlib.datasets.layouts import LAYOUTS, ORIGINS
from mixlib.datasets.parsers import parse_uci, read_normalised_csv
from mixlib.datasets.user_csv import parse_user_csv
from mixlib.datasets.text import decode_text
from mixlib.datasets.registry import BUNDLED, CLASS_COLUMN, bundled_dataset

#: The keys of a data set's config entry that say where and how its raw table is read: the
#: ``fetch`` job's parameters, so changing one refetches the data set.
SOURCE_KEYS = ("source", "bundled_name", "url", "sha256", "format", "max_download_mb",
               "download_deadline_s", "path", "class_column", "missing_values", "drop_columns",
               "categorical_columns", "role_columns")


#: A data set's ``source`` when its config entry names none (the schema's default, which
#: ``tests/test_schema_agreement.py`` checks against this one).
DEFAULT_SOURCE = "bundled"


def dataset_source(spec: dict[str, Any]) -> str:
    """Where a data set's raw table comes from: its ``source``, else :data:`DEFAULT_SOURCE`."""
    return spec.get("source", DEFAULT_SOURCE)


def load_bundled(name: str) -> pd.DataFrame:
    """The shipped copy of data set ``name`` as a normalised raw table."""
    info = bundled_dataset(name)
    with info.open_binary() as handle, gzip.open(handle, "rt", encoding="utf-8") as text:
        return read_normalised_csv(text, info.sequence_column, info.categorical_columns)


def load_source(name: str, spec: dict[str, Any], base_dir: Path | str = ".") -> pd.DataFrame:
    """Load data set ``name`` as described by its config entry ``spec``.

    Parameters
    ----------
    name : str
        The data set's key in the config (used in messages).
    spec : dict
        ``source`` is ``bundled`` (optional ``bundled_name``, default ``name``), ``url``
        (``url``, ``sha256``, ``format``: :func:`url_source`; optional ``max_download_mb``
        and ``download_deadline_s``, see :class:`~mixlib.datasets.download.DownloadLimits`)
        or ``csv`` (``path``, ``class_column``, optional ``missing_values``, ``drop_columns``
        and ``categorical_columns``). Optional ``role_columns``: the columns the
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
    source = dataset_source(spec)
    wanted = dict(spec.get("role_columns", {}))
    if source == "bundled":
        shipped = spec.get("bundled_name", name)
        frame = load_bundled(shipped)
        check_role_column_names(list(frame.columns), wanted, CLASS_COLUMN,
                                f"datasets.{name} (the shipped {shipped})")
        return frame
    if source == "url":
        urls, digests, format = url_source(name, spec)
        limits = DownloadLimits.from_config(
            **{key: spec[key] for key in ("max_download_mb", "download_deadline_s") if key in spec})
        with tempfile.TemporaryDirectory(prefix="mixstudy-fetch-") as folder:
            paths = [download(url, digest, Path(folder) / f"download{index}", limits,
                              where=f"datasets.{name}")
                     for index, (url, digest) in enumerate(zip(urls, digests))]
            text = "\n".join(decode_text(path.read_bytes(), f"datasets.{name} ({redact(url)})",
                                          max_bytes=limits.max_bytes)
                             for path, url in zip(paths, urls))
        frame = parse_uci(text, format)
        where = f"datasets.{name} ({redact(', '.join(urls))})"
        check_role_column_names(list(frame.columns), wanted, CLASS_COLUMN, where)
        check_raw_table(frame, where, frame.attrs["lines"], sequence_column(name, spec),
                        categorical_columns(name, spec))
        return frame
    if source == "csv":
        path = Path(base_dir) / spec["path"]
        if not path.is_file():
            raise FileNotFoundError(f"datasets.{name}.path: no file at {path}.")
        return parse_user_csv(
            decode_text(path.read_bytes(), f"datasets.{name} ({spec['path']})"),
            class_column=spec["class_column"],
            missing_values=spec.get("missing_values", []),
            drop_columns=spec.get("drop_columns", []),
            source=f"datasets.{name} ({spec['path']})",
            role_columns=wanted,
            categorical_columns=spec.get("categorical_columns", []),
        )
    raise ValueError(f"datasets.{name}.source: unknown source {source!r}; expected bundled, url or csv.")


def file_sha256(path: Path | str) -> str:
    """The SHA-256 hex digest of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def with_content_checksum(spec: Mapping[str, Any], base_dir: Path | str = ".") -> dict[str, Any]:
    """A data set's source keys plus, for a user's CSV, the SHA-256 of its bytes (``file_sha256``).

    The ``fetch`` job takes this as its parameter: Snakemake reruns a job whose parameters
    changed, so an edited CSV is read again even when its modification time was restored
    (``cp -p``, ``rsync -t``, a checkout). Other sources, and a CSV not found (which the
    pre-run check reports), are returned unchanged.
    """
    spec = dict(spec)
    if spec.get("source") == "csv" and (Path(base_dir) / spec["path"]).is_file():
        spec["file_sha256"] = file_sha256(Path(base_dir) / spec["path"])
    return spec


def url_source(name: str, spec: dict[str, Any]) -> tuple[list[str], list[str], str]:
    """The files, their sha256 and the format of a ``url`` data set.

    ``url`` and ``sha256`` are one string each, or lists of the same length (the files are
    read in order and their lines joined). For a data set shipped with the suite
    (``bundled_name``, default the key; :data:`mixlib.datasets.layouts.ORIGINS`), a key left
    out takes the original's: ``url`` and ``format`` always, ``sha256`` where verified.

    Raises
    ------
    ValueError
        Naming the key: when one is missing and has no default, or the lengths differ.
    """
    origin = ORIGINS.get(spec.get("bundled_name", name))
    urls = spec.get("url", list(origin.urls) if origin else None)
    digests = spec.get("sha256", list(origin.sha256) if origin and origin.sha256 else None)
    format = spec.get("format", origin.format if origin else None)
    for key, value in (("url", urls), ("sha256", digests), ("format", format)):
        if value is None:
            hint = (" (sha256sum the file you trust)" if key == "sha256" else "")
            raise ValueError(f"datasets.{name}.{key}: a url data set needs its {key}{hint}.")
    urls = [urls] if isinstance(urls, str) else list(urls)
    digests = [digests] if isinstance(digests, str) else list(digests)
    if len(urls) != len(digests):
        raise ValueError(f"datasets.{name}.sha256: {len(digests)} digest(s) for {len(urls)} "
                         "url(s); give one sha256 per file, in the same order.")
    return urls, digests, format


def sequence_column(name: str, spec: dict[str, Any]) -> str | None:
    """The sequence column of a data set, or ``None`` for numeric data.

    Only the shipped splice data and UCI files in the ``uci_splice`` format are sequences.
    """
    source = dataset_source(spec)
    if source == "bundled":
        return bundled_dataset(spec.get("bundled_name", name)).sequence_column
    if source == "url" and spec.get("format") == "uci_splice":
        return "sequence"
    return None


def categorical_columns(name: str, spec: dict[str, Any]) -> tuple[str, ...]:
    """The categorical features of a data set (kept as text until the ``prepare`` stage).

    A shipped copy's come from the registry, a downloaded file's from its layout
    (:data:`mixlib.datasets.layouts.LAYOUTS`), a user's CSV's from ``categorical_columns``.
    """
    source = dataset_source(spec)
    if source == "bundled":
        return bundled_dataset(spec.get("bundled_name", name)).categorical_columns
    if source == "url":
        layout = LAYOUTS.get(spec.get("format", spec.get("bundled_name", name)))
        return layout.categorical if layout is not None else ()
    return tuple(spec.get("categorical_columns", ()))


def all_categorical(name: str, spec: dict[str, Any]) -> bool:
    """Whether every feature of a shipped or laid-out data set is categorical (or a
    sequence): then, like splice, its one-hot 0/1 columns are not standardised by default.
    ``False`` for a user's CSV, whose header is not read here."""
    source = dataset_source(spec)
    if sequence_column(name, spec) is not None:
        return True
    if source == "bundled":
        info = BUNDLED.get(spec.get("bundled_name", name))
        return info is not None and len(info.categorical_columns) == info.n_features
    if source == "url":
        layout = LAYOUTS.get(spec.get("format", spec.get("bundled_name", name)))
        return layout is not None and set(layout.features) == set(layout.categorical)
    return False


def dataset_encoding(spec: Mapping[str, Any]) -> str:
    """How a data set's sequences and categorical features are coded: its ``encoding``,
    ``onehot`` when not given."""
    return spec.get("encoding", "onehot")


def uses_standardisation(name: str, spec: Mapping[str, Any]) -> bool:
    """Whether a data set's features are standardised. ``standardise: auto`` (the default):
    unless every feature is a sequence or categorical (:func:`all_categorical`), whose one-hot
    0/1 columns the models see as they are."""
    setting = spec.get("standardise", "auto")
    if setting == "auto":
        return not all_categorical(name, dict(spec))
    return bool(setting)
