"""What a config file's text may not hold, beyond YAML syntax: duplicate keys and YTE.

A config file is code: Snakemake runs the Python of a file that sets ``__use_yte__: true``
(YTE templating) when it reads it, before any project code runs. The project's own configs
never use it, so :func:`check_config_text` rejects such a file: run
``python -m mixlib.pipeline.config FILE`` on a config from someone else before Snakemake reads
it. A key given twice in one mapping is rejected too: YAML would silently keep the last value.
"""

from __future__ import annotations

from typing import Any

import yaml

#: The key that makes Snakemake process a config file with YTE (Python expressions in YAML).
YTE_KEY = "__use_yte__"


class UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses a key given twice in one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Mark] = {}
        for key_node, _ in node.value:
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


def check_config_text(path: Any, loaded: Any) -> None:
    """Raise ``ValueError`` if the config file at ``path`` (parsed as ``loaded``) uses YTE."""
    if isinstance(loaded, dict) and YTE_KEY in loaded:
        raise ValueError(
            f"{path}: sets {YTE_KEY}, which makes Snakemake run the Python inside the file as a "
            f"template when it reads it. The project's configs never need it; remove the key "
            f"(and read the file: a config file is code).")
