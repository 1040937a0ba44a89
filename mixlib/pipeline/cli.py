"""``python -m mixlib.pipeline.cli FILE...``: check the YAML syntax of config files.

Snakemake reports a syntax error in a ``--configfile`` without its place; this names the file,
line and column (:func:`mixlib.pipeline.config.read_config_file`). A key given twice and
``__use_yte__`` (which makes Snakemake run Python from the file) are errors too.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from mixlib.pipeline.config import read_config_file


def main(argv: Sequence[str] | None = None) -> int:
    """Print one line per file; exit status 1 if any file is invalid (or none is given)."""
    paths = list(sys.argv[1:] if argv is None else argv)
    failed = False
    for path in paths:
        try:
            read_config_file(path)
        except (OSError, ValueError) as exc:
            print(exc, file=sys.stderr)
            failed = True
        else:
            print(f"{path}: YAML syntax OK.")
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    raise SystemExit(main())
