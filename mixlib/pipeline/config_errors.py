"""Config errors as one message naming the key, without Python's traceback frames.

Snakemake prints, after the message of an exception raised while it reads the Snakefile, the
frames of the code that raised it, and for a schema violation the whole schema and config
(hundreds of lines). :func:`stop_on_config_error` ends the run with the message alone, and
:func:`check_schema` words a schema violation by the config key at fault.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any


def key_path(path: Sequence[str | int]) -> str:
    """A config key as the user writes it, e.g. ``mlp.hidden_sizes[0]``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "top level"


def check_schema(config: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` naming the key and the rule of the first schema violation
    (jsonschema's most relevant one), if ``config`` breaks ``schema``."""
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    error = best_match(validator_for(schema)(schema).iter_errors(config))
    if error is not None:
        raise ValueError(f"{key_path(list(error.absolute_path))}: {error.message} "
                         "(config/README.md documents every key)")


@contextmanager
def stop_on_config_error() -> Iterator[None]:
    """End the run on a ``ValueError`` of the config checks with its message alone, as
    ``Error in the config: <message>`` on standard error and exit status 1."""
    try:
        yield
    except ValueError as error:
        raise SystemExit(f"Error in the config: {error}") from None
