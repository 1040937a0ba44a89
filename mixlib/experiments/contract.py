"""One experiment contract: the arrays of a repeat, a stage, and the one runner of every stage.

Every experiment of the study is a *stage function* of one repeat of a split::

    function(data: RepeatData, *, rng=..., **params) -> pandas.DataFrame

``data`` maps each role of the split (``train``, ``test``, ``labelled``, ``unlabelled``, ...)
to its arrays (:class:`RoleData`, so ``X, y = data["train"]``); ``rng`` is present when the
stage is seeded. A :class:`Stage` is such a function plus its parameters, the keys of its
random stream and the label columns of its table. :func:`run_stages` runs stages on the
repeats of a split: it loops over the repeats, seeds each one, and assembles one tidy table.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

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


def _constants() -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Stage:
    """One experiment stage: a stage function, its parameters, its stream and its label columns.

    Parameters
    ----------
    function : callable
        ``function(data: RepeatData, *, rng=None, **params) -> pandas.DataFrame`` on one
        repeat (see the module docstring).
    params : mapping
        Keyword arguments of ``function`` besides ``data`` and ``rng``.
    keys : tuple of str or int, or None
        Seed keys of the stage; ``None``: ``function`` takes no ``rng``.
    stream : {"repeat", "stage"}
        ``"repeat"``: repeat ``r`` draws from ``generator(seed, *keys, r)``, its own stream,
        whatever the other repeats; ``"stage"``: every repeat draws from
        ``generator(seed, *keys)`` (e.g. the grid levels of one split sharing their folds).
    n_repeats : int or None
        Run on the first ``n_repeats`` repeats only (``1``: costly stages run on repeat 0);
        ``None``: on every repeat.
    repeat_column : int, "end" or None
        Where the ``repeat`` column (the split's repeat index) goes in the function's table:
        a column position, ``"end"`` (after the last column), or ``None`` (no column).
    leading, trailing : mapping of str to scalar
        Constant columns put before (in order) and after (in order) every other column of
        the stacked table, e.g. ``{"split": "bacteria", "dataset": "bacteria"}``.
    """

    function: Callable[..., pd.DataFrame]
    params: Mapping[str, Any] = field(default_factory=_constants)
    keys: tuple[str | int, ...] | None = None
    stream: Literal["repeat", "stage"] = "repeat"
    n_repeats: int | None = None
    repeat_column: int | Literal["end"] | None = "end"
    leading: Mapping[str, Any] = field(default_factory=_constants)
    trailing: Mapping[str, Any] = field(default_factory=_constants)

    def __post_init__(self) -> None:
        if self.stream not in ("repeat", "stage"):
            raise ValueError(f"stream must be 'repeat' or 'stage', got {self.stream!r}.")
        if self.n_repeats is not None and self.n_repeats < 1:
            raise ValueError(f"n_repeats must be None or an int >= 1, got {self.n_repeats!r}.")

    def describe(self) -> str:
        """The stage's function and its setting, for a log: label columns and scalar params."""
        setting = {**self.leading, **self.trailing,
                   **{key: value for key, value in self.params.items()
                      if isinstance(value, (str, int, float, bool)) or value is None}}
        return f"{self.function.__name__} {', '.join(f'{k}={v}' for k, v in setting.items())}"

    def run_one(self, data: RepeatData, seed: int | None) -> pd.DataFrame:
        """The function's table on one repeat, with its ``repeat`` column (no label columns)."""
        kwargs = dict(self.params)
        if self.keys is not None:
            if seed is None:
                raise ValueError(f"stage {self.function.__name__} is seeded: give a seed.")
            keys = self.keys + (data.repeat,) if self.stream == "repeat" else self.keys
            kwargs["rng"] = generator(seed, *keys)
        table = self.function(data, **kwargs)
        if self.repeat_column is not None:
            position = table.shape[1] if self.repeat_column == "end" else self.repeat_column
            table.insert(position, "repeat", data.repeat)
        return table


def run_stages(stages: Stage | Sequence[Stage], repeats: Sequence[RepeatData], *,
               seed: int | None = None) -> pd.DataFrame:
    """Run stages on the repeats of a split; one tidy table.

    Each stage runs on its repeats in order (:meth:`Stage.run_one`), each announced in the log
    as "repeat k of N" with the stage's setting (:meth:`Stage.describe`); its tables are
    stacked, and its ``leading`` and ``trailing`` columns are added; the tables of the stages are then
    stacked in the order of ``stages``.

    Parameters
    ----------
    stages : Stage or sequence of Stage
    repeats : sequence of RepeatData
        The repeats of the split (:func:`mixlib.pipeline.workflow.load_repeats`).
    seed : int, optional
        The study's seed; needed by seeded stages.

    Returns
    -------
    pandas.DataFrame
        No index; columns: the leading ones, those of the function (with ``repeat``), the
        trailing ones.
    """
    if isinstance(stages, Stage):
        stages = [stages]
    if not repeats:
        raise ValueError("run_stages needs at least one repeat.")
    tables = []
    for stage in stages:
        chosen = repeats if stage.n_repeats is None else repeats[:stage.n_repeats]
        parts = []
        for k, data in enumerate(chosen, start=1):  # a long job's progress, with its setting
            logger.info("repeat %d of %d (split repeat %d): %s", k, len(chosen), data.repeat,
                        stage.describe())
            parts.append(stage.run_one(data, seed))
        tables.append(_labelled(stage, parts))
    return pd.concat(tables, ignore_index=True)


def _labelled(stage: Stage, parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The stacked tables of a stage's repeats with its ``leading`` and ``trailing`` columns."""
    table = pd.concat(parts, ignore_index=True)
    for position, (column, value) in enumerate(stage.leading.items()):
        table.insert(position, column, value)
    for column, value in stage.trailing.items():
        table[column] = value
    return table


def run_until_counted(stage: Stage, repeats: Sequence[RepeatData], *, seed: int | None,
                      first: int, needed: int, counts: Callable[[pd.DataFrame], bool]) -> pd.DataFrame:
    """Run a stage on the first ``first`` repeats, then on further repeats in order until
    ``needed`` of the repeats run count, or the repeats run out.

    A measure that leaves out some repeats (e.g. those whose fits all collapsed) rests on
    fewer than the repeats run; this runs as many more as it takes for ``needed`` to count.
    Repeat ``r`` draws from its own stream whatever the others (``stream="repeat"``), and the
    rule reads only the repeats' own tables, so which repeats run follows from the seed.

    Parameters
    ----------
    stage : Stage
        A stage with ``stream="repeat"`` and ``n_repeats=None``.
    repeats : sequence of RepeatData
        The split's repeats, in order (the last is the cap).
    seed : int or None
    first : int
        Repeats run whatever they count (the run's ``claims.repeats``); a split with fewer
        (a fixed split has one) runs all it has, as :func:`run_stages` does.
    needed : int
        Repeats that must count (``claims.min_n``).
    counts : callable
        ``counts(table)`` of one repeat's table (before the label columns): whether the
        repeat counts for the measure.

    Returns
    -------
    pandas.DataFrame
        As :func:`run_stages`, on repeats ``0 .. k - 1`` for the smallest ``k >= first`` at
        which ``needed`` counted (or every repeat).
    """
    if stage.stream != "repeat" or stage.n_repeats is not None:
        raise ValueError(f"stage {stage.function.__name__}: running until enough repeats count "
                         "needs a stage with one stream per repeat and no n_repeats.")
    if first < 1 or not repeats:
        raise ValueError(f"first must be at least 1 and the split must have repeats, got first="
                         f"{first} with {len(repeats)} repeat(s).")
    first = min(first, len(repeats))  # as run_stages: a fixed split's one repeat is all it has
    parts, counted = [], 0
    for k, data in enumerate(repeats, start=1):
        if k > first and counted >= needed:
            break
        logger.info("repeat %d (split repeat %d, %d of %d counted so far): %s", k, data.repeat,
                    counted, needed, stage.describe())
        table = stage.run_one(data, seed)
        counted += bool(counts(table))
        parts.append(table)
    logger.info("%d repeats run, %d counted (needed %d, at most %d)", len(parts), counted, needed,
                len(repeats))
    return _labelled(stage, parts)
