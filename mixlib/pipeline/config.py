"""Reading a config file as data: YAML syntax errors named by file, line and column.

:func:`read_config_file` reads a config file as plain YAML (nothing in it runs) and refuses
what YAML or Snakemake would accept silently or dangerously:

- **YTE.** A config file can be code: Snakemake runs the Python of a file that sets
  ``__use_yte__: true`` (YTE templating) when it reads a ``--configfile``, before any project
  code runs (Snakemake's ``ConfigSettings`` loads every ``--configfile`` with
  ``yte.process_yaml`` while it parses its command line, and no Snakemake option or profile
  setting turns YTE off). The project's own configs never use it, so :func:`check_config_text`
  rejects such a file, and the Snakefile reads ``config/config.yaml`` with this module before
  Snakemake's ``configfile:`` does; for a ``--configfile`` the refusal comes after the template
  has run: run ``python -m mixlib.pipeline.cli FILE`` on a config from someone else first.
- **A key given twice** in one mapping (YAML would silently keep the last value).
- **An alias bomb**: a document whose aliases expand to more than :data:`MAX_EXPANDED_NODES`
  values (a few hundred bytes of nested aliases can stand for billions of values, and a
  message that echoes one would run to megabytes).

YAML merge keys (``<<: *base``) are ordinary YAML and accepted. The checks of what the config
says are :mod:`mixlib.pipeline.checks`; the command that checks config files from the shell is
:mod:`mixlib.pipeline.cli`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

STUDY_CONFIG = "config/config.yaml"
"""The study's own config: read only when no ``--configfile`` is given."""

#: The key that makes Snakemake process a config file with YTE (Python expressions in YAML).
YTE_KEY = "__use_yte__"
#: The most values (scalars, lists and mappings) a config file may stand for once its aliases
#: are expanded: the study's config has 500.
MAX_EXPANDED_NODES = 100_000
_MERGE_TAG = "tag:yaml.org,2002:merge"


class UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses a key given twice in one mapping.

    Keys merged in by ``<<: *base`` do not count: a key written beside the merge overrides
    the merged one, as YAML says.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                first = seen[key]
                raise yaml.constructor.ConstructorError(
                    None, None,
                    f"key {key!r} is given twice (first at line {first.line + 1}, column "
                    f"{first.column + 1}); YAML would keep only the last value, so remove one",
                    key_node.start_mark)
            seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def expanded_size(node: yaml.Node | None, limit: int = MAX_EXPANDED_NODES) -> int:
    """The number of nodes of a composed YAML document with every alias expanded, counted up
    to just past ``limit`` (each distinct node's size is computed once, so a deep alias bomb
    is measured in time linear in its text).

    The size of a node is ``1 + sum of its children's sizes``, a merged mapping's included.
    """
    sizes: dict[int, int] = {}

    def size(current: yaml.Node) -> int:
        known = sizes.get(id(current))
        if known is not None:
            return known
        sizes[id(current)] = 1  # a node reached again through itself (a recursive alias)
        total = 1
        if isinstance(current, yaml.SequenceNode):
            children = current.value
        elif isinstance(current, yaml.MappingNode):
            children = [child for pair in current.value for child in pair]
        else:
            children = []
        for child in children:
            total += size(child)
            if total > limit:
                break
        sizes[id(current)] = total
        return total

    return 0 if node is None else size(node)


def load_config_text(text: str, limit: int = MAX_EXPANDED_NODES) -> Any:
    """Parse a config file's text with :class:`UniqueKeyLoader`, refusing an alias bomb.

    Raises
    ------
    yaml.YAMLError
        On a syntax error or a key given twice.
    ValueError
        If the document stands for more than ``limit`` values once its aliases are expanded.
    """
    loader = UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if expanded_size(node, limit) > limit:
            raise ValueError(
                f"its aliases (*name) expand to more than {limit:,} values, where a config "
                f"needs a few hundred; write the values out, or nest fewer aliases.")
        return loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def check_config_text(path: Any, loaded: Any) -> None:
    """Raise ``ValueError`` if the config file at ``path`` (parsed as ``loaded``) uses YTE."""
    if isinstance(loaded, dict) and YTE_KEY in loaded:
        raise ValueError(
            f"{path}: sets {YTE_KEY}, which makes Snakemake run the Python inside the file as a "
            f"template when it reads it. The project's configs never need it; remove the key "
            f"(and read the file: a config file is code). Snakemake has already run the "
            f"template of a --configfile before this check: nothing turns that off (see "
            f"config/README.md, 'A config file is code').")



def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML config file; a syntax error names the file, line and column.

    Raises
    ------
    ValueError
        ``"<path>, line L, column C: <what the parser expected>"``, as an editor counts
        lines and columns (from 1), also for a key given twice; if the file does not hold a
        mapping of keys, sets ``__use_yte__``, or expands its aliases beyond the bound.
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
