"""What a config file's text may not hold, beyond YAML syntax: duplicate keys, YTE and alias bombs.

A config file is code: Snakemake runs the Python of a file that sets ``__use_yte__: true``
(YTE templating) when it reads a ``--configfile``, before any project code runs (Snakemake's
``ConfigSettings`` loads every ``--configfile`` with ``yte.process_yaml`` while it parses its
command line, and no Snakemake option or profile setting turns YTE off). The project's own
configs never use it, so :func:`check_config_text` rejects such a file, and the Snakefile reads
``config/config.yaml`` with this module's loader before Snakemake's ``configfile:`` does; for a
``--configfile`` the refusal comes after the template has run: run
``python -m mixlib.pipeline.cli FILE`` on a config from someone else before Snakemake reads it.

A key given twice in one mapping is rejected (YAML would silently keep the last value), and so
is a document whose aliases expand to more than :data:`MAX_EXPANDED_NODES` values (a few
hundred bytes of nested aliases can stand for billions of values, and a message that echoes
one would run to megabytes). YAML merge keys (``<<: *base``) are ordinary YAML and accepted.
"""

from __future__ import annotations

from typing import Any

import yaml

#: The key that makes Snakemake process a config file with YTE (Python expressions in YAML).
YTE_KEY = "__use_yte__"
#: The most values (scalars, lists and mappings) a config file may stand for once its aliases
#: are expanded: the study's config has about 600.
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
