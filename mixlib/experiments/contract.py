"""One experiment contract: the arrays of a repeat, and the one runner of a stage's repeats.

Every experiment of the study is a *stage function* of one repeat of a split::

    function(data: RepeatData, *, rng=..., **params) -> pandas.DataFrame

``data`` maps each role of the split (``train``, ``test``, ``labelled``, ``unlabelled``, ...)
to its arrays (:class:`RoleData`, so ``X, y = data["train"]``); ``rng`` is present when the
stage is seeded. :func:`run_repeats` runs a stage function on the repeats of a split: it loops
over the repeats, seeds each one, and stacks their tables with a ``repeat`` column; the stage
module's job function adds the job's label columns (``split``, ``dataset``, ...).

A job runs thousands of small fits, and a DataFrame built per repeat (pandas' string columns
made one table at a time) cost a large share of them. So a stage may also come as a *columnar
twin* of the same signature that returns its table as :class:`Columns` (plain values, no
DataFrame): the stage function is then ``twin(...).frame()``, marked with its twin by
:func:`columnar`, and :func:`run_repeats`, given it, runs the twin on every repeat and makes
one DataFrame of them all: the same table, value for value and dtype for dtype, as the stage
function's tables stacked.
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


class Columns:
    """A table as columns of plain values, made a DataFrame once (:meth:`frame`).

    Parameters
    ----------
    columns : mapping of str to a value or a sequence
        Each column in order: one value for every row (a scalar), or a list or 1-d array of
        ``length`` values.
    length : int
        Rows of the table.

    Examples
    --------
    >>> table = Columns({"method": "prior", "value": [0.5, 0.25]}, 2)
    >>> table.frame()["method"].tolist(), table["value"].tolist()
    (['prior', 'prior'], [0.5, 0.25])
    """

    __slots__ = ("columns", "length")

    def __init__(self, columns: Mapping[str, Any], length: int) -> None:
        self.columns = dict(columns)
        self.length = int(length)

    def __getitem__(self, column: str) -> np.ndarray:
        """The values of ``column``, one per row, as a numpy array."""
        value = self.columns[column]
        if isinstance(value, (list, tuple, np.ndarray)):
            return np.asarray(value)
        return np.full(self.length, value)

    def frame(self) -> pd.DataFrame:
        """The DataFrame of these columns, with no index (a ``RangeIndex``)."""
        return pd.DataFrame(self.columns, index=pd.RangeIndex(self.length))


def columnar(twin: Callable[..., Columns]) -> Callable[[Callable[..., pd.DataFrame]],
                                                     Callable[..., pd.DataFrame]]:
    """Mark a stage function as ``twin(...).frame()``: :func:`run_repeats` then runs ``twin``.

    The stage function stays what it is (callers get its DataFrame); it only gains the
    attribute ``columns = twin``.
    """
    def mark(function: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
        function.columns = twin
        return function
    return mark


def stacked(parts: Sequence[Columns], **last: np.ndarray) -> pd.DataFrame:
    """The parts' tables stacked, each with its rows of the ``last`` columns at its end.

    ``last`` holds columns of one value per row of the stack (e.g. ``repeat``). The table is
    :func:`stacked_frames` of the parts' DataFrames (:meth:`Columns.frame`), made as one
    DataFrame: each column's values are stacked as numpy arrays and pandas makes the column
    once, the same values and dtype whenever every part has the same columns and a column's
    arrays are of one kind (all strings, all floats, ...). Other stacks, and any empty part,
    stack the DataFrames themselves.
    """
    names = list(parts[0].columns)
    alike = all(part.length > 0 and list(part.columns) == names for part in parts)
    arrays = {name: [part[name] for part in parts] for name in names} if alike else {}
    if not alike or any(len({array.dtype.kind for array in column}) > 1
                        for column in arrays.values()):
        return stacked_frames([part.frame() for part in parts], **last)
    total = sum(part.length for part in parts)
    return pd.DataFrame({**{name: np.concatenate(column) for name, column in arrays.items()},
                         **last}, index=pd.RangeIndex(total))


def stacked_frames(frames: Sequence[pd.DataFrame], **last: np.ndarray) -> pd.DataFrame:
    """``pandas.concat(frames, ignore_index=True)`` of the frames, each with its rows of the
    ``last`` columns inserted at its end (``frames`` are changed in place).

    Frames of the same columns are stacked first and get the ``last`` columns once, the same
    table; frames whose columns differ get them one by one, so that the stack's columns come
    in the order they first appear.
    """
    if all(list(frame.columns) == list(frames[0].columns) for frame in frames):
        table = pd.concat(frames, ignore_index=True)
        for name, values in last.items():
            table.insert(table.shape[1], name, values)
        return table
    start = 0
    for frame in frames:
        for name, values in last.items():
            frame.insert(frame.shape[1], name, values[start:start + len(frame)])
        start += len(frame)
    return pd.concat(frames, ignore_index=True)


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


def run_repeats(function: Callable[..., pd.DataFrame | Columns], repeats: Sequence[RepeatData],
                params: Mapping[str, Any] | None = None, *, seed: int | None = None,
                keys: tuple[str | int, ...] | None = None, first: int | None = None,
                needed: int = 0, counts: Callable[[pd.DataFrame | Columns], bool] | None = None,
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
        ``function(data: RepeatData, *, rng=None, **params)``: a stage function (see the
        module docstring), or a function that returns :class:`Columns`. A stage function
        marked by :func:`columnar` runs as its twin: the repeats' tables are then stacked as
        columns (:func:`stacked`), one DataFrame in all.
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
        ``counts(table)`` of one repeat's table as ``function`` returned it (no ``repeat``
        column; a DataFrame, or Columns, both indexed by column name): whether it counts.

    Returns
    -------
    pandas.DataFrame
        No index; the function's columns and a last ``repeat`` column (the split's repeat
        index), on repeats ``0 .. k - 1`` for the smallest ``k >= first`` at which ``needed``
        counted (or every repeat). The repeats' tables are stacked once, at the end: the
        table of ``pandas.concat`` of each one with its ``repeat`` column, value for value.
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
    stage = getattr(function, "columns", function)
    parts, ran, counted = [], [], 0
    for k, data in enumerate(repeats, start=1):
        if k > first and counted >= needed:
            break
        if counts is None:  # a long job's progress, with its setting
            logger.info("repeat %d of %d (split repeat %d): %s", k, first, data.repeat, described)
        else:
            logger.info("repeat %d (split repeat %d, %d of %d counted so far): %s", k,
                        data.repeat, counted, needed, described)
        rng = {} if keys is None else {"rng": generator(seed, *keys, data.repeat)}
        table = stage(data, **rng, **params)
        counted += counts is not None and bool(counts(table))
        parts.append(table)
        ran.append(data.repeat)
    if counts is not None:
        logger.info("%d repeats run, %d counted (needed %d, at most %d)", len(parts), counted,
                    needed, len(repeats))
    repeat = np.repeat(np.asarray(ran, dtype=np.int64),
                       [part.length if isinstance(part, Columns) else len(part) for part in parts])
    if all(isinstance(part, Columns) for part in parts):
        return stacked(parts, repeat=repeat)
    return stacked_frames([part.frame() if isinstance(part, Columns) else part for part in parts],
                          repeat=repeat)


def labelled(table: pd.DataFrame, **columns: Any) -> pd.DataFrame:
    """``table`` with the constant ``columns`` (e.g. ``split``, ``dataset``) put first, in order."""
    for position, (column, value) in enumerate(columns.items()):
        table.insert(position, column, value)
    return table
