"""The config file and its schema: read as data, typed, validated once, errors worded by key.

**Reading** (:func:`read_config_file`): a config file is read as plain YAML (nothing in it
runs), refusing what YAML or Snakemake would accept silently or dangerously:

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
  values (a few hundred bytes of nested aliases can stand for billions of values).

**Typing** (:func:`retype_strings`): Snakemake reads the inside of a structured ``--config``
value (``--config 'mlp={"hidden_sizes": [1, 2]}'``) with YAML's base loader, which keeps every
scalar a string; each such string is read again as YAML where the schema wants a number, an
integer or a boolean and accepts no free string (a word its enums list stays a word).

**The schema, once** (:func:`check_schema`, which fills the defaults; :func:`check_numbers`
first refuses a non-finite number and a float where the schema wants an integer).

**Messages**: :func:`stop_on_config_error` ends the run with the message alone (Snakemake would
print the traceback frames, and for a schema violation the whole schema and config); every
message is made safe to print by :func:`safe_message`: a value echoed from the config is cut to
:data:`MAX_VALUE_CHARS` characters, the message to :data:`MAX_MESSAGE_LINES` lines, and a user
name and password in a URL (``https://alice:s3cret@host/``) become ``***``.

What the config says is checked by :mod:`mixlib.pipeline.config_checks`.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
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
    """A safe YAML loader that refuses a key given twice in one mapping (keys merged in by
    ``<<: *base`` do not count: a key written beside the merge overrides it, as YAML says)."""

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
    """One line for the run log saying which config file(s) the run reads (a ``--configfile``
    stands on its own: a key left out of it takes the schema's default, never the study's)."""
    if not cli_configfiles:
        return f"Config: {STUDY_CONFIG} (and any --config values)."
    files = ", ".join(str(path) for path in cli_configfiles)
    return (f"Config: {files} only (and any --config values); {STUDY_CONFIG} is not read "
            "when --configfile is given.")


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


def load_schema(path: str | Path) -> dict[str, Any]:
    """The config schema (YAML) at ``path``."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


#: The longest value (its ``repr``) a message echoes; the rest is cut.
MAX_VALUE_CHARS = 120
#: The most lines of a config error.
MAX_MESSAGE_LINES = 20
#: The most characters of a config error.
MAX_MESSAGE_CHARS = 4000
_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s'\"]+@")
#: A number YAML 1.1 reads as text: no dot in the mantissa (1e-6) or no sign in the exponent.
_YAML11_TEXT_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)[eE][-+]?\d+$")


def key_path(path: Sequence[str | int]) -> str:
    """A config key as the user writes it, e.g. ``mlp.hidden_sizes[0]``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "top level"


def short_repr(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """``repr(value)`` cut to about ``limit`` characters: at most 3 levels, 8 items per list or
    mapping and ``limit`` characters per string (:mod:`reprlib`, so a huge value is never
    written out whole)."""
    shortener = reprlib.Repr()
    shortener.maxlevel, shortener.maxlist, shortener.maxdict = 3, 8, 8
    shortener.maxtuple = shortener.maxset = 8
    shortener.maxstring = shortener.maxother = shortener.maxlong = limit
    text = shortener.repr(value)
    return text if len(text) <= limit + 20 else f"{text[:limit]}..."


def redact_credentials(text: str) -> str:
    """``text`` with the user and password of every URL replaced by ``***``
    (``https://alice:s3cret@host/x`` becomes ``https://***@host/x``)."""
    return _CREDENTIALS.sub(lambda match: f"{match['scheme']}***@", text)


def safe_message(text: str) -> str:
    """A config error as it may be printed: credentials redacted, at most
    :data:`MAX_MESSAGE_LINES` lines and :data:`MAX_MESSAGE_CHARS` characters."""
    text = redact_credentials(text)
    lines = text.splitlines() or [""]
    if len(lines) > MAX_MESSAGE_LINES:
        lines = lines[:MAX_MESSAGE_LINES - 1] + [f"... ({len(lines) - MAX_MESSAGE_LINES + 1} "
                                                 "more lines)"]
    text = "\n".join(lines)
    if len(text) > MAX_MESSAGE_CHARS:
        text = f"{text[:MAX_MESSAGE_CHARS]}... ({len(text) - MAX_MESSAGE_CHARS:,} more characters)"
    return text


def _hint(error: Any) -> str:
    """A hint for a violation whose cause the schema's wording hides."""
    wanted = error.validator_value if error.validator == "type" else None
    wanted = [wanted] if isinstance(wanted, str) else list(wanted or [])
    if (isinstance(error.instance, str) and _YAML11_TEXT_NUMBER.match(error.instance.strip())
            and {"number", "integer"} & set(wanted)):
        mantissa, _, exponent = error.instance.strip().lower().partition("e")
        mantissa = mantissa if "." in mantissa else f"{mantissa}.0"
        exponent = exponent if exponent[:1] in "+-" else f"+{exponent}"
        return (f"; YAML 1.1 (which Snakemake and PyYAML read) takes {error.instance} for text: "
                f"a number needs a dot and a signed exponent, so write {mantissa}e{exponent}")
    if error.validator == "maxLength":
        return (f" (at most {error.validator_value} characters: a name becomes part of file "
                "names and of Snakemake's wildcards)")
    return ""


def _filling_validator(schema: Mapping[str, Any]) -> Any:
    """A jsonschema validator for ``schema`` that fills, in every mapping it validates, the
    ``default`` of each property left out (as Snakemake's ``validate`` does)."""
    from jsonschema import validators

    base = validators.validator_for(schema)
    check_properties = base.VALIDATORS["properties"]

    def properties(validator: Any, declared: Mapping[str, Any], instance: Any,
                   node: Mapping[str, Any]) -> Iterator[Any]:
        if isinstance(instance, dict):
            for key, child in declared.items():
                if isinstance(child, Mapping) and "default" in child:
                    instance.setdefault(key, child["default"])
        yield from check_properties(validator, declared, instance, node)

    return validators.extend(base, {"properties": properties})(schema)


def check_schema(config: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Check ``config`` against ``schema`` once, filling the schema's defaults in place.

    Raises ``ValueError`` naming the key and the rule of the first violation (jsonschema's
    most relevant one); the value at fault is echoed cut to :data:`MAX_VALUE_CHARS`
    characters.
    """
    from jsonschema.exceptions import best_match

    error = best_match(_filling_validator(schema).iter_errors(config))
    if error is not None:
        message = error.message
        if len(message) > 2 * MAX_VALUE_CHARS:
            message = message.replace(repr(error.instance), short_repr(error.instance))
        raise ValueError(safe_message(
            f"{key_path(list(error.absolute_path))}: {message}{_hint(error)} "
            "(config/README.md documents every key)"))


def check_numbers(config: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the key of a non-finite number (``.inf``, ``.nan``: no
    setting of the study takes one), or of a float where the schema wants an integer only
    (jsonschema counts ``1000.0`` as an integer; the estimators do not).

    Every value of ``config`` is visited, the estimator parameters of ``comparison.params``
    included, whatever the schema says of them.
    """
    for path, value, types in schema_leaves(config, schema):
        where = key_path(path)
        if isinstance(value, float) and not math.isfinite(value):
            written = ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"
            raise ValueError(f"{where}: {written} is not a finite number; every number of the "
                             "config must be finite (config/README.md documents every key).")
        if (isinstance(value, float) and "integer" in types and "number" not in types):
            hint = (f"write it as the integer {int(value)}" if value.is_integer()
                    else "give an integer")
            raise ValueError(
                f"{where}: {value!r} is a float, and this key takes an integer: {hint} "
                "(YAML reads 1.0e+3 or 1000.0 as a float; config/README.md documents every key).")


@contextmanager
def stop_on_config_error() -> Iterator[None]:
    """End the run on a ``ValueError`` of the config checks with its message alone, as
    ``Error in the config: <message>`` on standard error and exit status 1 (the message made
    safe by :func:`safe_message`)."""
    try:
        yield
    except ValueError as error:
        raise SystemExit(f"Error in the config: {safe_message(str(error))}") from None
