"""Give ``--config`` values nested in a mapping or list the types the schema asks for.

Snakemake reads a top-level ``--config key=value`` as a number or a boolean when it looks like
one, but the inside of a structured value, ``--config 'mlp={"hidden_sizes": [1, 2]}'``, with
YAML's base loader, which keeps every scalar a string: the schema would then reject ``'1'``.
:func:`retype_strings` reads each such string again as YAML where the schema wants a number,
an integer or a boolean there and accepts no free string (a word its enums list stays a
word), and keeps the value when it is of a wanted type; anything else is left for the schema
to report.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import yaml

_PYTHON_TYPES = {"integer": (int,), "number": (int, float), "boolean": (bool,),
                 "null": (type(None),)}


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with a local ``$ref`` (``#/$defs/name``) followed."""
    while "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _branches(schema: Mapping[str, Any], root: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The schema and the alternatives of its ``oneOf``/``anyOf``, ``$ref`` followed."""
    schema = _resolve(schema, root)
    alternatives = [*schema.get("oneOf", []), *schema.get("anyOf", [])]
    return [schema, *(branch for alt in alternatives for branch in _branches(alt, root))]


def _wanted(schema: Mapping[str, Any], root: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """The JSON types the schema accepts at a place, and the strings its enums list."""
    types: set[str] = set()
    words: set[str] = set()
    for branch in _branches(schema, root):
        declared = branch.get("type", [])
        types.update([declared] if isinstance(declared, str) else declared)
        words.update(value for value in branch.get("enum", []) if isinstance(value, str))
    return types, words


def _retype(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        types, words = _wanted(schema, root)
        wanted = types & _PYTHON_TYPES.keys()
        if "string" in types or value in words or not wanted:
            return value
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        matches = any(isinstance(parsed, _PYTHON_TYPES[name])
                      and not (name != "boolean" and isinstance(parsed, bool))
                      for name in wanted)
        return parsed if matches else value
    if isinstance(value, dict):
        for key, item in value.items():
            for branch in _branches(schema, root):
                properties = branch.get("properties", {})
                extra = branch.get("additionalProperties")
                child = properties.get(key, extra if isinstance(extra, Mapping) else None)
                if child is not None:
                    value[key] = item = _retype(item, child, root)
        return value
    if isinstance(value, list):
        for branch in _branches(schema, root):
            if isinstance(branch.get("items"), Mapping):
                value[:] = [_retype(item, branch["items"], root) for item in value]
        return value
    return value


def _children(schema: Mapping[str, Any], root: Mapping[str, Any], key: str | int
              ) -> list[Mapping[str, Any]]:
    """The schemas of the item ``key`` of a mapping or list at a place of ``schema``."""
    children = []
    for branch in _branches(schema, root):
        if isinstance(key, int):
            child = branch.get("items")
        else:
            extra = branch.get("additionalProperties")
            child = branch.get("properties", {}).get(key, extra if isinstance(extra, Mapping)
                                                     else None)
        if isinstance(child, Mapping):
            children.append(child)
    return children


def schema_leaves(config: Any, schema: Mapping[str, Any]
                  ) -> Iterator[tuple[list[str | int], Any, set[str]]]:
    """Every scalar of ``config`` with its key path and the JSON types the schema accepts
    there (empty where the schema says nothing, e.g. inside ``comparison.params``).

    Examples
    --------
    >>> schema = {"properties": {"em": {"properties": {"max_iter": {"type": "integer"}}}}}
    >>> list(schema_leaves({"em": {"max_iter": 3.0}, "x": [1]}, schema))
    [(['em', 'max_iter'], 3.0, {'integer'}), (['x', 0], 1, set())]
    """
    def walk(value: Any, places: list[Mapping[str, Any]], path: list[str | int]):
        if isinstance(value, Mapping) or isinstance(value, list):
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            for key, item in items:
                inner = [child for place in places for child in _children(place, schema, key)]
                yield from walk(item, inner, [*path, key])
            return
        types: set[str] = set()
        for place in places:
            types |= _wanted(place, schema)[0]
        yield path, value, types

    yield from walk(config, [schema], [])


def retype_strings(config: dict[str, Any], schema: Mapping[str, Any]) -> None:
    """Replace, in place, the strings of ``config`` that the JSON ``schema`` wants as numbers,
    integers or booleans by what they read as in YAML, when that is of a wanted type.

    Examples
    --------
    >>> schema = {"properties": {"mlp": {"properties": {
    ...     "hidden_sizes": {"type": "array", "items": {"type": "integer"}}}}}}
    >>> config = {"mlp": {"hidden_sizes": ["1", "2"]}}
    >>> retype_strings(config, schema)
    >>> config
    {'mlp': {'hidden_sizes': [1, 2]}}
    """
    _retype(config, schema, schema)


def load_schema(path: str) -> dict[str, Any]:
    """The config schema (YAML) at ``path``."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)
