"""Config errors as one short message naming the key, without Python's traceback frames.

Snakemake prints, after the message of an exception raised while it reads the Snakefile, the
frames of the code that raised it, and for a schema violation the whole schema and config
(hundreds of lines). :func:`stop_on_config_error` ends the run with the message alone, and
:func:`check_schema` words a schema violation by the config key at fault, with a hint where
YAML 1.1 read a number as text. :func:`check_numbers` refuses what the schema's types let
through: a non-finite number anywhere, and a float where the schema wants an integer.

Every message is made safe to print by :func:`safe_message`: a value echoed from the config is
cut to :data:`MAX_VALUE_CHARS` characters, the message to :data:`MAX_MESSAGE_LINES` lines, and a
user name and password in a URL (``https://alice:s3cret@host/``) become ``***``.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from mixlib.pipeline.config_overrides import schema_leaves

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
