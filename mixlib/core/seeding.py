"""Seeded random generators derived from the config seed and a job's identity.

Every job draws from ``numpy.random.SeedSequence(seed, spawn_key=keys)`` where the keys encode
(rule, wildcards, ...) as integers. Results therefore depend only on the config seed and on
what the job is, never on job order, ``--cores`` or global numpy state.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key_to_int(key: str | int) -> int:
    """A stable 32-bit integer for a key (SHA-256 of its text: ``hash()`` is salted per run)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        if key < 0:
            raise ValueError(f"Integer seed keys must be non-negative, got {key}.")
        return int(key)
    return int.from_bytes(hashlib.sha256(str(key).encode("utf-8")).digest()[:4], "little")


def seed_sequence(seed: int, *keys: str | int) -> np.random.SeedSequence:
    """The :class:`numpy.random.SeedSequence` of ``seed`` and the job keys."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}.")
    return np.random.SeedSequence(int(seed), spawn_key=tuple(_key_to_int(k) for k in keys))


def generator(seed: int, *keys: str | int) -> np.random.Generator:
    """A fresh :class:`numpy.random.Generator` for ``seed`` and the job keys.

    Examples
    --------
    >>> a = generator(1, "split", "bacteria", 0).integers(1000)
    >>> b = generator(1, "split", "bacteria", 0).integers(1000)
    >>> bool(a == b)
    True
    """
    return np.random.default_rng(seed_sequence(seed, *keys))
