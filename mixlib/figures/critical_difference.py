"""Demšar's (2006) critical-difference diagram: mean ranks of models across data sets on one
axis, with the models that the Nemenyi test cannot tell apart joined by thick bars."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure, note_figure

_COLUMNS = ("model", "mean_rank", "critical_difference")
#: Vertical distances in data units (the y axis has no scale): tick labels, CD bar, group
#: bars, label rows.
_TICK, _CD_BAR, _GROUP_STEP, _ROW_STEP = 0.12, 0.55, 0.12, 0.26


def rank_groups(mean_ranks, critical_difference: float) -> list[tuple[int, int]]:
    """Maximal runs of models whose mean ranks differ by less than the critical difference.

    Parameters
    ----------
    mean_ranks : array-like of shape (k,)
        Mean ranks sorted in increasing order.
    critical_difference : float
        ``CD`` of the Nemenyi test; two models differ significantly when
        ``|R_i - R_j| >= CD``.

    Returns
    -------
    list of (first, last)
        Index ranges (inclusive) of the sorted models: for every ``i`` the largest ``j > i``
        with ``R_j - R_i < CD``, keeping only ranges not inside an earlier one. Inside a range
        no pair differs significantly; these are the bars of the diagram.
    """
    ranks = np.asarray(mean_ranks, dtype=float)
    if np.any(np.diff(ranks) < 0):
        raise ValueError(f"mean_ranks must be sorted in increasing order, got {ranks!r}.")
    groups: list[tuple[int, int]] = []
    for i, rank in enumerate(ranks):
        last = int(np.searchsorted(ranks, rank + critical_difference, side="left")) - 1
        if last > i and (not groups or last > groups[-1][1]):
            groups.append((i, last))
    return groups


def _check(ranks: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in _COLUMNS if c not in ranks.columns]
    if missing:
        raise ValueError(f"ranks lacks the columns {missing}; it has {list(ranks.columns)}.")
    if len(ranks) < 2:
        raise ValueError(f"ranks needs at least 2 models, got {len(ranks)}.")
    if ranks[list(_COLUMNS[1:])].isna().any().any():
        raise ValueError("ranks has NaN mean ranks or critical differences.")
    if ranks["critical_difference"].nunique() != 1:
        raise ValueError("ranks must have one critical_difference on every row, got "
                         f"{sorted(ranks['critical_difference'].unique())}.")
    return ranks.sort_values(["mean_rank", "model"], kind="stable").reset_index(drop=True)


def no_power_note(ranks: pd.DataFrame) -> str | None:
    """The one-line note that replaces the diagram when the Nemenyi test separates no pair.

    Parameters
    ----------
    ranks : pandas.DataFrame
        As for :func:`critical_difference_figure`.

    Returns
    -------
    str or None
        ``None`` when some pair of mean ranks differs by at least ``CD``; otherwise (the spread
        ``R_max - R_min`` of the mean ranks is below ``CD``, so one bar would join every model)
        the note, e.g. "No pair of the 15 models differs significantly: the Nemenyi CD, 12.38
        (alpha = 0.05, N = 3 data sets), exceeds the spread of their mean ranks, 1.33 to 13.67."
    """
    table = _check(ranks)
    mean_ranks = table["mean_rank"].to_numpy(dtype=float)
    cd = float(table["critical_difference"].iloc[0])
    if mean_ranks[-1] - mean_ranks[0] >= cd:
        return None
    test = [f"alpha = {float(table['alpha'].iloc[0]):g}"] if "alpha" in table.columns else []
    if "n_datasets" in table.columns:
        n = int(table["n_datasets"].iloc[0])
        test.append(f"N = {n} data set{'s' * (n != 1)}")
    return (f"No pair of the {len(table)} models differs significantly: the Nemenyi CD, "
            f"{cd:.2f}" + (f" ({', '.join(test)})" if test else "") + ", exceeds the "
            f"spread of their mean ranks, {mean_ranks[0]:.2f} to {mean_ranks[-1]:.2f}.")


def critical_difference_figure(ranks: pd.DataFrame) -> Figure:
    """Critical-difference diagram of the Nemenyi test (Demšar 2006, figure 1a).

    Parameters
    ----------
    ranks : pandas.DataFrame
        One row per model, as written by
        :func:`mixlib.model_selection.significance.rank_table`: columns ``model``,
        ``mean_rank`` (1 = best) and ``critical_difference`` (the same on every row);
        ``alpha`` and ``n_datasets``, if present, go into the title.

    Returns
    -------
    matplotlib.figure.Figure
        The rank axis from ``k`` (left) to 1 (right, best); every model hangs from its mean
        rank ``R_j`` by a line ending at its label (worse half left, better half right); the
        bar above the axis is one ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` long; a thick bar
        under the axis joins every maximal group of models whose mean ranks differ by less
        than ``CD`` (:func:`rank_groups`): no pair inside a group differs significantly.
        When one bar would join every model (:func:`no_power_note`), the diagram says nothing
        the table does not: the figure is that note alone, one line of text.
    """
    note = no_power_note(ranks)
    if note is not None:
        return note_figure(note, width=10.0)
    table = _check(ranks)
    k = len(table)
    mean_ranks = table["mean_rank"].to_numpy(dtype=float)
    cd = float(table["critical_difference"].iloc[0])
    labels = [f"{model} ({rank:.2f})" for model, rank in zip(table["model"], mean_ranks)]
    groups = rank_groups(mean_ranks, cd)

    n_right = k // 2    # the better half (lowest ranks) is labelled on the right
    n_rows = max(k - n_right, n_right)
    width = max(matplotlib.rcParams["figure.figsize"][0], 0.6 * k)   # room for k rank ticks
    text_space = min(max(0.08 * max(len(label) for label in labels), 1.0), width / 3)
    margin = text_space * max(k - 1, 1) / (width - 2 * text_space)   # inches -> rank units
    top = _CD_BAR + 0.25
    first_row = -(0.2 + _GROUP_STEP * len(groups))
    bottom = first_row - _ROW_STEP * (n_rows - 1) - 0.2
    fig, ax = new_figure(figsize=(width, 0.6 + 0.9 * (top - bottom)))
    ax.set_axis_off()
    ax.set_xlim(k + margin, 1 - margin)   # drawn only when CD < R_max - R_min <= k - 1
    ax.set_ylim(bottom, top)
    line = {"color": "0.15", "linewidth": 1.0}

    ax.plot([1, k], [0, 0], **line)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [0, _TICK / 2], **line)
        ax.text(tick, _TICK, str(tick), ha="center", va="bottom")
    ax.plot([k, k - cd], [_CD_BAR, _CD_BAR], color="0.15", linewidth=1.6)
    for end in (k, k - cd):
        ax.plot([end, end], [_CD_BAR - 0.05, _CD_BAR + 0.05], **line)
    ax.text(k - cd / 2, _CD_BAR + 0.06, f"CD = {cd:.2f}", ha="center", va="bottom")

    for level, (first, last) in enumerate(groups):
        y = -(0.12 + _GROUP_STEP * level)
        ax.plot([mean_ranks[first] - 0.03, mean_ranks[last] + 0.03], [y, y], color="0.1",
                linewidth=4, solid_capstyle="round")
    # outermost models turn at the top row so that no two lines cross
    for i in range(k):
        right = i < n_right
        row = i if right else k - 1 - i
        y = first_row - _ROW_STEP * row
        end = 1 - 0.1 * margin if right else k + 0.1 * margin
        ax.plot([mean_ranks[i], mean_ranks[i], end], [0, y, y], **line)
        ax.text(end, y, f" {labels[i]} " if right else f"{labels[i]} ",
                ha="left" if right else "right", va="center")

    details = []
    if "alpha" in table.columns:
        details.append(f"alpha = {float(table['alpha'].iloc[0]):g}")
    if "n_datasets" in table.columns:
        details.append(f"N = {int(table['n_datasets'].iloc[0])} data sets")
    ax.set_title("Mean ranks, Nemenyi test" + (f" ({', '.join(details)})" if details else ""))
    return fig


__all__ = ["critical_difference_figure", "no_power_note", "rank_groups"]
