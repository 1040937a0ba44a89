"""Integrity between stages: every table a job writes carries a manifest its consumers check.

A job's table ``T.tsv`` gets a sidecar ``T.tsv.manifest.json`` written right after it: the rule
that produced it, its row count, its columns and the SHA-256 of its bytes. A job that reads the
table recomputes the hash first; a file truncated, cut mid-line, edited or left from another
run stops the consumer with a message naming the file and the producing rule, instead of a
table computed from the wrong rows.

Snakemake's own facilities do not serve here: its input checksums (``max_checksum_file_size``)
only decide whether a changed input reruns its consumers, so a corrupted intermediate counts
as a new input and is consumed; ``ensure(sha256=...)`` needs the hash before the run.

Manifests are written and required inside a Snakemake job only (:func:`producing_job`, entered
by :func:`mixlib.pipeline.workflow.logged_job`); reading or writing a table anywhere else (a
notebook, the tests) is plain TSV input and output.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import pandas as pd

#: The rule of the running job, None outside a job.
_PRODUCER: ContextVar[str | None] = ContextVar("mixstudy_producer", default=None)
SUFFIX = ".manifest.json"


class CorruptTableError(RuntimeError):
    """A job's input table differs from what its producer wrote, or has no manifest."""


def manifest_path(path: str | Path) -> Path:
    """The manifest of the table at ``path``: the same name plus ``.manifest.json``."""
    path = Path(path)
    return path.with_name(path.name + SUFFIX)


@contextmanager
def producing_job(rule: str) -> Iterator[None]:
    """Within this block, tables written get a manifest naming ``rule``, tables read need one."""
    token = _PRODUCER.set(rule)
    try:
        yield
    finally:
        _PRODUCER.reset(token)


def in_job() -> bool:
    """Whether a Snakemake job is running (manifests are written and checked)."""
    return _PRODUCER.get() is not None


def _shape(data: bytes) -> tuple[int, list[str]]:
    """Rows (lines after the header, a cut last line included) and header columns of TSV bytes."""
    lines = data.splitlines()
    header = lines[0].decode("utf-8", errors="replace").split("\t") if lines else []
    return max(len(lines) - 1, 0), header


def write_manifest(path: str | Path, frame: pd.DataFrame) -> None:
    """Record the producer, rows, columns and SHA-256 of the table just written at ``path``."""
    producer = _PRODUCER.get()
    if producer is None:
        return
    path = Path(path)
    record = {
        "producer": producer,
        "rows": len(frame),
        "columns": [str(column) for column in frame.columns],
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    target = manifest_path(path)
    handle, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(record, stream, indent=1)
        os.replace(tmp_name, target)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


def checked_bytes(path: str | Path) -> bytes:
    """The bytes of the table at ``path``, checked against its manifest inside a job.

    Raises
    ------
    CorruptTableError
        Inside a job, if the table has no manifest or its bytes differ from the manifest's hash;
        the message gives the rows and columns found and recorded and the producing rule.
    """
    path = Path(path)
    data = path.read_bytes()
    if not in_job():
        return data
    target = manifest_path(path)
    if not target.is_file():
        raise CorruptTableError(
            f"{path} has no manifest ({target.name}): it was not written by a job of this "
            f"workflow, so its content cannot be trusted. Delete {path} and rerun Snakemake, "
            f"which makes it again.")
    record = json.loads(target.read_text(encoding="utf-8"))
    if hashlib.sha256(data).hexdigest() == record["sha256"]:
        return data
    rows, columns = _shape(data)
    if rows != record["rows"]:
        detail = f"it has {rows} rows where rule `{record['producer']}` wrote {record['rows']}"
    elif columns != record["columns"]:
        detail = (f"its columns are {columns} where rule `{record['producer']}` wrote "
                  f"{record['columns']}")
    else:
        detail = f"same rows and columns as rule `{record['producer']}` wrote, other content"
    if data and not data.endswith(b"\n"):
        detail += "; its last line is cut"
    raise CorruptTableError(
        f"{path} is not the table rule `{record['producer']}` wrote ({detail}): it was changed "
        f"after that job ended. Delete {path} and rerun Snakemake, which makes it again with "
        f"rule `{record['producer']}`.")
