"""Reading and atomically writing the pipeline's tables and figures.

Every write goes to a temporary file in the destination folder, then ``os.replace`` moves it
into place: a job that crashes half-way never leaves a truncated table for later rules. The file
gets the mode an ordinary ``open`` would give it (0666 less the umask, so 0644 under umask 022),
not the private 0600 of a temporary file. Before any job, :func:`check_output_folders` checks
that no folder the rules write into is a file.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from mixlib.core.vocabulary import CLASS_COLUMN
from mixlib.pipeline.manifest import checked_bytes, write_manifest

#: Name of the column that carries the run's hash in the stamped tables
#: (:mod:`mixlib.pipeline.provenance`).
PROVENANCE_COLUMN = "provenance"


def _current_umask() -> int:
    """The process's umask (reading it means setting it, so it is set straight back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _atomic_write(path: str | Path, write: Callable[[Path], None]) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_current_umask())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_table(frame: pd.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as a tidy TSV (no index column, empty cell for NaN), atomically; inside
    a job, with its manifest (:mod:`mixlib.pipeline.manifest`)."""
    _atomic_write(
        path, lambda tmp: frame.to_csv(tmp, sep="\t", index=False, lineterminator="\n", na_rep="")
    )
    write_manifest(path, frame)


def write_csv(frame: pd.DataFrame, path: str | Path) -> None:
    """Write ``frame`` as CSV (no index column, empty cell for NaN), atomically."""
    _atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False, lineterminator="\n", na_rep=""))


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, e.g. a table's HTML page for the report."""
    _atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a TSV written by :func:`write_table`; the ``class``, ``role``, ``dataset`` and
    ``provenance`` columns stay text.

    A label such as ``01`` or a run's hash such as ``748623549161`` or ``12e456789012`` (hex
    digits that happen to read as a number) is kept as written, not turned into a number.

    Inside a job the file must match its manifest, or
    :class:`mixlib.pipeline.manifest.CorruptTableError` names it and its producing rule.
    """
    return pd.read_csv(
        io.BytesIO(checked_bytes(path)), sep="\t", keep_default_na=False, na_values=[""],
        dtype={CLASS_COLUMN: str, "role": str, "dataset": str, PROVENANCE_COLUMN: str},
    )


def read_tables(paths: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """The table at ``paths``, or the tables at several paths stacked (e.g. one per data set)."""
    if isinstance(paths, (str, Path)):
        return read_table(paths)
    return pd.concat([read_table(path) for path in paths], ignore_index=True)


def save_figure(figure, png_path: str | Path, svg_path: str | Path | None = None) -> None:
    """Save a matplotlib figure as PNG (and SVG), atomically and byte-reproducibly.

    Metadata that would change from run to run (creation date, software version) are left out
    and the SVG ids use a fixed salt, so the same tables give the same files.
    """
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "mixstudy"
    _atomic_write(
        png_path, lambda tmp: figure.savefig(tmp, format="png", metadata={"Software": None})
    )
    if svg_path is not None:
        _atomic_write(
            svg_path,
            lambda tmp: figure.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None}),
        )


def check_output_folders(rules: Iterable[Any], base_dir: str | Path = ".") -> None:
    """Every folder the rules write into is a folder (or absent), not a file.

    Parameters
    ----------
    rules : iterable of snakemake.rules.Rule
        The workflow's rules; the folders are those of their output paths up to the first
        wildcard (e.g. ``results/tables`` for ``results/tables/{table}.tsv``).
    """
    folders: set[PurePosixPath] = set()
    for rule in rules:
        for output in rule.output:
            static = str(output).split("{", 1)[0]
            # "results/tables/" (a wildcard starts the name) is a folder; "a/b.tsv" is not
            folder = PurePosixPath(static) if static.endswith("/") else PurePosixPath(static).parent
            folders.update(path for path in (folder, *folder.parents) if str(path) != ".")
    for folder in sorted(folders, key=lambda path: len(path.parts)):
        path = Path(base_dir) / folder
        if path.exists() and not path.is_dir():
            raise ValueError(
                f"{folder} is a file, not a folder: the study writes its outputs into "
                f"{folder}/. Move or rename the file, then run again.")
