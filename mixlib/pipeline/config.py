"""Reading the study's config file: YAML syntax errors named by file, line and column.

The checks of what the config says are :mod:`mixlib.pipeline.checks`; the command that checks
config files from the shell is :mod:`mixlib.pipeline.cli`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from mixlib.pipeline.config_text import check_config_text, load_config_text

STUDY_CONFIG = "config/config.yaml"
"""The study's own config: read only when no ``--configfile`` is given."""


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML config file; a syntax error names the file, line and column.

    Raises
    ------
    ValueError
        ``"<path>, line L, column C: <what the parser expected>"``, as an editor counts
        lines and columns (from 1), also for a key given twice; if the file does not hold a
        mapping of keys, or sets ``__use_yte__`` (:mod:`mixlib.pipeline.config_text`).
    """
    text = Path(path).read_text(encoding="utf-8")
    try:
        loaded = load_config_text(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        began = exc.context_mark
        if began is not None and mark is not None and began.line != mark.line:
            what += f" (what it was parsing began at line {began.line + 1}, column {began.column + 1})"
        kind = "error" if isinstance(exc, yaml.constructor.ConstructorError) else "YAML syntax error"
        raise ValueError(f"{where}: {kind}: {what}.") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: YAML syntax error: {exc}.") from None
    except ValueError as exc:  # aliases that expand beyond the bound
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: expected a mapping of config keys, got {type(loaded).__name__}.")
    check_config_text(path, loaded)
    return loaded


def describe_config_source(cli_configfiles: Sequence[str | Path]) -> str:
    """One line for the run log saying which config file(s) the run reads.

    A ``--configfile`` stands on its own: the study's config is then not read at all, so a
    key left out of the user's file takes the schema's default, never the study's value.
    """
    if not cli_configfiles:
        return f"Config: {STUDY_CONFIG} (and any --config values)."
    files = ", ".join(str(path) for path in cli_configfiles)
    return (f"Config: {files} only (and any --config values); {STUDY_CONFIG} is not read "
            "when --configfile is given.")
