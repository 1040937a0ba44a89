"""One experiment contract: the arrays of a repeat, and the one runner of a stage's repeats.

Every experiment of the study is a *stage function* of one repeat of a split::

    function(data: RepeatData, *, rng=..., **params) -> pandas.DataFrame

``data`` maps each role of the split (``train``, ``test``, ``labelled``, ``unlabelled``, ...)
to its arrays (:class:`RoleData`, so ``X, y = data["train"]``); ``rng`` is present when the
stage is seeded. :func:`run_repeats` runs a stage function on the repeats of a split: it loops
over the repeats, seeds each one, and stacks their tables with a ``repeat`` column; the stage
module's job function adds the job's label columns (``split``, ``dataset``, ...).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator

logger = logging.getLogger(__name__)


class RoleData(NamedTuple):
    """The rows of one role of a repeat: features ``X`` (n_rows, n_features), classes ``y`` (n_rows,)."""

    X: np.ndarray
    y: np.ndarray


@dataclass(frozen=True, eq=False)
class RepeatData(Mapping[str, RoleData]):
    """The arrays of one repeat of a split, by role.

    Parameters
    ----------
    repeat : int
        The split's repeat index (the ``repeat`` column of the split table).
    roles : mapping of str to RoleData
        Role -> its rows, e.g. ``{"train": RoleData(X, y), "test": RoleData(X_t, y_t)}``.

    Examples
    --------
    >>> data = RepeatData.of(0, train=(np.zeros((2, 1)), np.array(["a", "b"])))
    >>> X, y = data["train"]
    >>> X.shape, list(data)
    ((2, 1), ['train'])
    """

    repeat: int
    roles: Mapping[str, RoleData]

    @classmethod
    def of(cls, repeat: int, **roles: tuple[np.ndarray, np.ndarray]) -> "RepeatData":
        """The repeat ``repeat`` with one ``(X, y)`` pair per role keyword."""
        return cls(int(repeat), {role: RoleData(*pair) for role, pair in roles.items()})

    def __getitem__(self, role: str) -> RoleData:
        try:
            return self.roles[role]
        except KeyError:
            raise KeyError(f"repeat {self.repeat} has no role {role!r}; its roles are "
                           f"{sorted(self.roles)}.") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.roles)

    def __len__(self) -> int:
        return len(self.roles)


def run_repeats(function: Callable[..., pd.DataFrame], repeats: Sequence[RepeatData],
                params: Mapping[str, Any] | None = None, *, seed: int | None = None,
                keys: tuple[str | int, ...] | None = None, first: int | None = None,
                needed: int = 0, counts: Callable[[pd.DataFrame], bool] | None = None,
                ) -> pd.DataFrame:
    """Run a stage function on the repeats of a split, in order; its tables stacked.

    Repeat ``r`` runs ``function(data, rng=generator(seed, *keys, r), **params)``: its own
    stream, whatever the other repeats (no ``rng`` when ``keys`` is None). The first ``first``
    repeats run (all by default; a split with fewer, a fixed split's one, runs all it has);
    with ``counts``, further repeats then run in order until ``needed`` of the repeats run
    count, or the repeats run out: a measure that leaves out some repeats (e.g. those whose
    fits all collapsed) then rests on ``needed`` of them, and which repeats run follows from
    the seed. Each repeat is announced in the log with the function and its scalar params.

    Parameters
    ----------
    function : callable
        ``function(data: RepeatData, *, rng=None, **params) -> pandas.DataFrame`` (see the
        module docstring).
    repeats : sequence of RepeatData
        The split's repeats (:func:`mixlib.pipeline.workflow.load_repeats`), in order.
    params : mapping, optional
        Keyword arguments of ``function`` besides ``data`` and ``rng``.
    seed : int, optional
        The study's seed; needed when ``keys`` is given.
    keys : tuple of str or int, optional
        The stage's seed keys.
    first : int >= 1, optional
        Repeats run whatever they count (the run's ``claims.repeats``); None: every repeat.
    needed : int
        Repeats that must count (``claims.min_n``) among those run.
    counts : callable, optional
        ``counts(table)`` of one repeat's table: whether the repeat counts.

    Returns
    -------
    pandas.DataFrame
        No index; the function's columns and a last ``repeat`` column (the split's repeat
        index), on repeats ``0 .. k - 1`` for the smallest ``k >= first`` at which ``needed``
        counted (or every repeat).
    """
    if not repeats:
        raise ValueError(f"{function.__name__}: the split has no repeat to run on.")
    if first is not None and first < 1:
        raise ValueError(f"{function.__name__}: first must be at least 1, got {first}.")
    if keys is not None and seed is None:
        raise ValueError(f"stage {function.__name__} is seeded: give a seed.")
    params = dict(params or {})
    setting = ", ".join(f"{key}={value}" for key, value in params.items()
                        if isinstance(value, (str, int, float, bool)) or value is None)
    stream = f" (stream {', '.join(map(str, keys))})" if keys is not None else ""
    described = f"{function.__name__} {setting}{stream}"
    first = len(repeats) if first is None else min(first, len(repeats))
    parts, counted = [], 0
    for k, data in enumerate(repeats, start=1):
        if k > first and counted >= needed:
            break
        if counts is None:  # a long job's progress, with its setting
            logger.info("repeat %d of %d (split repeat %d): %s", k, first, data.repeat, described)
        else:
            logger.info("repeat %d (split repeat %d, %d of %d counted so far): %s", k,
                        data.repeat, counted, needed, described)
        rng = {} if keys is None else {"rng": generator(seed, *keys, data.repeat)}
        table = function(data, **rng, **params)
        table.insert(table.shape[1], "repeat", data.repeat)
        counted += counts is not None and bool(counts(table))
        parts.append(table)
    if counts is not None:
        logger.info("%d repeats run, %d counted (needed %d, at most %d)", len(parts), counted,
                    needed, len(repeats))
    return pd.concat(parts, ignore_index=True)


def labelled(table: pd.DataFrame, **columns: Any) -> pd.DataFrame:
    """``table`` with the constant ``columns`` (e.g. ``split``, ``dataset``) put first, in order."""
    for position, (column, value) in enumerate(columns.items()):
        table.insert(position, column, value)
    return table
