"""The claims figure: every claim's verdict under our reading and under every reading."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mixlib.figures import new_figure
from mixlib.figures.semisupervised_rounds import require_columns

#: The settings a reading fixes, in the order the columns are sorted (outermost first).
FACTORS = ("relative_min_variance", "threshold", "restart", "finish", "unclassifiable")
_FACTOR_NAMES = {"relative_min_variance": "floor", "threshold": "threshold", "restart": "restart",
                 "finish": "finish", "unclassifiable": "rule"}
#: Cell colours: verdicts, then "not a reading of this claim".
VERDICT_COLOURS = {"holds": "#009E73", "contradicted": "#D55E00", "inconclusive": "#F0E442"}
_NONE = "#FFFFFF"
_STRIPS = ("restart", "finish", "unclassifiable")


def parse_reading(reading: str) -> dict[str, str]:
    """``"a=1, b=x"`` as ``{"a": "1", "b": "x"}`` (empty for an empty or missing reading)."""
    if not isinstance(reading, str) or not reading.strip():
        return {}
    return dict(part.split("=", 1) for part in reading.split(", ") if "=" in part)


def _sort_key(value: str):
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def reading_columns(readings: pd.DataFrame) -> pd.DataFrame:
    """Every full reading of the grid: one row per combination of the factors' values.

    Columns: the :data:`FACTORS` present in ``readings``'s reading labels, sorted
    outermost-first (numbers numerically).
    """
    parsed = pd.DataFrame([parse_reading(r) for r in readings["reading"]])
    factors = [f for f in FACTORS if f in parsed.columns]
    values = [sorted(parsed[f].dropna().unique(), key=_sort_key) for f in factors]
    return pd.DataFrame(list(itertools.product(*values)), columns=factors)


def verdict_matrix(claims: pd.DataFrame, readings: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Claims down, readings across: the verdict codes of the figure.

    Returns
    -------
    rows : pandas.DataFrame
        The claims' ``id``, ``data``, ``kind`` and ``verdict`` (our reading), in table order.
    columns : pandas.DataFrame
        :func:`reading_columns`.
    codes : ndarray of int of shape (n_rows, 1 + n_columns)
        Column 0 is our reading; then one column per full reading. ``0, 1, 2`` index the
        verdicts of :data:`VERDICT_COLOURS`, ``3`` marks a reading the claim was not
        measured under (a claim without readings, or another split's grid). A reading row
        that does not fix a factor (e.g. the iterative method's rows and ``restart``) fills
        every column of that factor.
    """
    rows = claims[["id", "data", "kind", "verdict"]].reset_index(drop=True)
    codes_of = {verdict: code for code, verdict in enumerate(VERDICT_COLOURS)}
    columns = reading_columns(readings) if len(readings) else pd.DataFrame()
    codes = np.full((len(rows), 1 + len(columns)), len(VERDICT_COLOURS), dtype=int)
    codes[:, 0] = rows["verdict"].map(codes_of).fillna(len(VERDICT_COLOURS)).to_numpy()
    if columns.empty:
        return rows, columns, codes
    index = {(i, d): k for k, (i, d) in enumerate(zip(rows["id"], rows["data"]))}
    parsed = pd.DataFrame([parse_reading(r) for r in readings["reading"]]).reindex(columns=columns.columns)
    match = np.ones((len(readings), len(columns)), dtype=bool)
    for factor in columns.columns:
        mine = parsed[factor].to_numpy(dtype=object)[:, None]
        match &= pd.isna(mine) | (mine == columns[factor].to_numpy(dtype=object)[None, :])
    for r, (claim, data, verdict) in enumerate(zip(readings["id"], readings["data"], readings["verdict"])):
        k = index.get((claim, data))
        if k is not None:
            codes[k, 1:][match[r]] = codes_of[verdict]
    return rows, columns, codes


def claims_figure(claims: pd.DataFrame, readings: pd.DataFrame) -> Figure:
    """Every claim's verdict (rows) under our reading and under every reading (columns).

    Parameters
    ----------
    claims : pandas.DataFrame
        ``claims.tsv``: columns ``id``, ``data``, ``kind``, ``verdict``.
    readings : pandas.DataFrame
        ``claims_readings.tsv``: columns ``id``, ``data``, ``reading``, ``verdict``.

    Returns
    -------
    matplotlib.figure.Figure
        A grid of cells coloured by verdict (holds green, contradicted vermilion,
        inconclusive yellow, white where the claim has no such reading): the first column is
        our reading (the claims table), the others every combination of variance floor,
        threshold, restart, finish and unclassifiable rule of the grid, grouped by floor and
        threshold (labelled on top); a strip under the grid shows each column's restart,
        finish and rule (dark: the first value named in the legend). Rows are named
        ``id · split``, absolute claims (the report's own numbers) marked ``*``; the row's
        count of readings where it holds is written on the right, from the table's
        ``readings_holds`` and ``readings`` when it has them (readings with identical evidence
        counted once).
    """
    require_columns(claims, ("id", "data", "kind", "verdict"), "claims")
    require_columns(readings, ("id", "data", "reading", "verdict"), "claims_readings")
    rows, columns, codes = verdict_matrix(claims, readings)
    n_rows, n_cols = codes.shape
    strips = [f for f in _STRIPS if f in columns.columns]
    width = 5.0 + 0.085 * n_cols
    fig, axes = new_figure(2, 1, figsize=(width, 1.6 + 0.2 * n_rows + 0.25 * len(strips)), squeeze=False,
                           gridspec_kw={"height_ratios": [max(n_rows, 1), max(len(strips), 0.01)]})
    ax, ax_strip = axes[0, 0], axes[1, 0]
    cmap = ListedColormap(list(VERDICT_COLOURS.values()) + [_NONE])
    ax.imshow(codes, cmap=cmap, vmin=-0.5, vmax=len(VERDICT_COLOURS) + 0.5, aspect="auto",
              interpolation="nearest")
    ax.grid(False)
    ax.set_yticks(range(n_rows))
    ax.set_yticklabels([f"{'*' if kind == 'absolute' else ''}{claim} · {data}"
                        for claim, data, kind in zip(rows["id"], rows["data"], rows["kind"])], fontsize="small")
    ax.axvline(0.5, color="black", linewidth=2)
    ticks, labels = [0], ["our\nreading"]
    for start, end, value in _groups(columns, ("relative_min_variance", "threshold")):
        ax.axvline(start + 0.5, color="black", linewidth=0.4)
        ticks.append(1 + (start + end - 1) / 2)
        labels.append(f"t {value['threshold']}" if "threshold" in value else "")
    floors = list(_groups(columns, ("relative_min_variance",)))
    for start, _, _ in floors:
        ax.axvline(start + 0.5, color="black", linewidth=1.5)
    ax.xaxis.tick_top()
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize="x-small")
    held, measured = _counts(claims, codes)
    for k in range(n_rows):
        if measured[k]:
            ax.text(n_cols - 0.3, k, f" {held[k]}/{measured[k]}", va="center", ha="left", fontsize="x-small")
    for k in range(1, n_rows):
        if rows["id"].iloc[k] != rows["id"].iloc[k - 1]:
            ax.axhline(k - 0.5, color="0.6", linewidth=0.3)
    _draw_strips(ax_strip, columns, strips, n_cols)
    ax_strip.set_xticks([1 + (start + end - 1) / 2 for start, end, _ in floors])
    ax_strip.set_xticklabels([f"variance floor {value['relative_min_variance']}" for _, _, value in floors],
                             fontsize="x-small")
    handles = [Patch(color=colour, label=verdict) for verdict, colour in VERDICT_COLOURS.items()]
    handles.append(Patch(facecolor=_NONE, edgecolor="0.5", label="no such reading"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, -0.02 - 0.35 * len(strips) / max(n_rows, 1)),
              ncol=4, fontsize="small")
    fig.suptitle("Claims of the report: verdict under our reading and under every reading of the grid "
                 "(right: readings where the claim holds; * = the report's own numbers)")
    return fig


def _counts(claims: pd.DataFrame, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Readings where each claim holds, and readings measured: the claims table's own counts
    (``readings_holds``, ``readings``: distinct readings, those with identical evidence
    counted once), else the cells of the grid."""
    if {"readings_holds", "readings"} <= set(claims.columns):
        return claims["readings_holds"].to_numpy(dtype=int), claims["readings"].to_numpy(dtype=int)
    return (codes[:, 1:] == 0).sum(axis=1), (codes[:, 1:] != len(VERDICT_COLOURS)).sum(axis=1)


def _groups(columns: pd.DataFrame, factors: tuple[str, ...]):
    """``(start, end, values)`` of each run of equal values of ``factors`` along the columns
    (their first column; the factors absent from ``columns`` are ignored)."""
    present = [f for f in factors if f in columns.columns]
    if not present or columns.empty:
        return
    keys = columns[present].astype(str)
    starts = np.flatnonzero((keys != keys.shift()).any(axis=1).to_numpy())
    ends = np.append(starts[1:], len(columns))
    for start, end in zip(starts, ends):
        yield int(start), int(end), keys.iloc[start].to_dict()


def _draw_strips(ax, columns: pd.DataFrame, strips: list[str], n_cols: int) -> None:
    """Under the grid, one strip per factor: each reading's value (dark: the factor's first value)."""
    ax.grid(False)
    if not strips:
        ax.axis("off")
        return
    shade = np.full((len(strips), n_cols), np.nan)
    names = []
    for s, factor in enumerate(strips):
        values = sorted(columns[factor].unique(), key=_sort_key)
        shade[s, 1:] = (columns[factor] != values[0]).to_numpy(dtype=float)
        names.append(f"{_FACTOR_NAMES[factor]}: {' | '.join(values)}")
    ax.imshow(np.ma.masked_invalid(shade), cmap=ListedColormap(["0.25", "0.85"]), vmin=0, vmax=1,
              aspect="auto", interpolation="nearest")
    ax.set_yticks(range(len(strips)))
    ax.set_yticklabels(names, fontsize="x-small")
    for spine in ax.spines.values():
        spine.set_visible(False)
