"""Seeded shuffles that give every row of a data set a role (train, test, labelled, ...)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator

ROLES = ("labelled", "unlabelled", "train", "validation", "test")
"""Roles a split may assign; rows left over get the role ``unused``."""
UNUSED = "unused"
REST = "rest"
TRAINING_ROLES = ("train", "labelled", "unlabelled")
"""Roles whose feature values a model may see while it learns (standardisation statistics)."""


def role_sizes(sizes: Mapping[str, int | str], n_rows: int, *, where: str = "roles") -> dict[str, int]:
    """Resolve the configured sizes to row counts; at most one role may be ``"rest"``.

    Raises
    ------
    ValueError
        On an unknown role, a negative size, more than one ``rest``, or sizes that add up to
        more than ``n_rows`` (the message names ``where``, the config key).
    """
    unknown = [role for role in sizes if role not in ROLES]
    if unknown:
        raise ValueError(f"{where}: unknown role(s) {unknown}; expected roles among {list(ROLES)}.")
    rest = [role for role, size in sizes.items() if size == REST]
    if len(rest) > 1:
        raise ValueError(f"{where}: only one role may be {REST!r}, got {rest}.")
    fixed = {}
    for role, size in sizes.items():
        if size == REST:
            continue
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"{where}.{role}: expected a non-negative integer or 'rest', got {size!r}.")
        fixed[role] = int(size)
    total = sum(fixed.values())
    if total > n_rows:
        raise ValueError(
            f"{where}: the roles ask for {total} rows ({fixed}) but the data set has only {n_rows}."
        )
    resolved = {role: (n_rows - total if size == REST else int(size)) for role, size in sizes.items()}
    return resolved


def _allocate(counts: np.ndarray, size: int) -> np.ndarray:
    """Split ``size`` over classes in proportion to ``counts`` (largest remainders).

    Never gives a class more rows than it has left; ties of remainders go to the larger class
    then the earlier one, so the allocation is deterministic.
    """
    if size == 0:
        return np.zeros_like(counts)
    exact = counts * size / counts.sum()
    alloc = np.minimum(np.floor(exact).astype(int), counts)
    order = sorted(range(len(counts)), key=lambda k: (-(exact[k] - np.floor(exact[k])), -counts[k], k))
    while alloc.sum() < size:
        for k in order:
            if alloc.sum() == size:
                break
            if alloc[k] < counts[k]:
                alloc[k] += 1
    return alloc


def assign_roles(
    y: np.ndarray, sizes: Mapping[str, int | str], rng: np.random.Generator, *,
    stratify: bool = False, where: str = "roles"
) -> np.ndarray:
    """Give every row a role by a seeded shuffle.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Class labels (used only when ``stratify``).
    sizes : mapping role -> int or "rest"
        Rows per role, in the order the roles are filled.
    rng : numpy.random.Generator
    stratify : bool
        Keep each role's class proportions as close as possible to the whole set's: each role
        takes from every class in proportion to what that class still has (largest remainder).
    where : str
        The config key of the sizes, for messages (e.g. ``splits.bacteria.roles``).

    Returns
    -------
    ndarray of shape (n_samples,), dtype object
        The role of each row; rows no role asked for are ``"unused"``.
    """
    y = np.asarray(y)
    n_rows = len(y)
    resolved = role_sizes(sizes, n_rows, where=where)
    roles = np.full(n_rows, UNUSED, dtype=object)
    if not stratify:
        order = rng.permutation(n_rows)
        start = 0
        for role, size in resolved.items():
            roles[order[start:start + size]] = role
            start += size
        return roles
    classes = np.unique(y)
    pools = [rng.permutation(np.flatnonzero(y == c)) for c in classes]
    taken = np.zeros(len(classes), dtype=int)
    for role, size in resolved.items():
        remaining = np.array([len(pool) for pool in pools]) - taken
        alloc = _allocate(remaining, size)
        for k, pool in enumerate(pools):
            roles[pool[taken[k]:taken[k] + alloc[k]]] = role
        taken += alloc
    return roles


def split_table(
    y: np.ndarray, row_ids: np.ndarray, sizes: Mapping[str, int | str], *, seed: int,
    split_name: str, repeats: int, stratify: bool = False
) -> pd.DataFrame:
    """The roles of every row for ``repeats`` seeded repeats of one split.

    Repeat ``r`` draws from ``generator(seed, "split", split_name, r)``, so a repeat's roles
    depend only on the config seed, the split's name and ``r``.

    Returns
    -------
    pandas.DataFrame
        Columns ``repeat``, ``row_id``, ``role``; one row per (repeat, data row), sorted.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}.")
    frames = []
    for repeat in range(repeats):
        rng = generator(seed, "split", split_name, repeat)
        roles = assign_roles(y, sizes, rng, stratify=stratify, where=f"splits.{split_name}.roles")
        frames.append(pd.DataFrame({"repeat": repeat, "row_id": row_ids, "role": roles}))
    return pd.concat(frames, ignore_index=True)


def duplicate_groups(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Group id of every row: rows with the same features and class share one.

    Missing cells (NaN) compare equal, so a row repeated with the same gaps is a duplicate.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)

    Returns
    -------
    ndarray of int, shape (n_samples,)
        Ids ``0 .. n_groups - 1`` in order of first appearance, for
        :func:`mixlib.model_selection.resampling.grouped_stratified_folds`.
    """
    frame = pd.DataFrame(np.asarray(X, dtype=np.float64))
    frame["class"] = np.asarray(y, dtype=str)
    return frame.groupby(list(frame.columns), dropna=False, sort=False).ngroup().to_numpy()
