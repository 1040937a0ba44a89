"""The claims figure: a forest plot of every claim against its band, with the report's value.

Each row of ``claims.tsv`` has its own unit (iterations, rates, ranks), so each row is drawn on
its band's scale: a band ``(low, high)`` with both ends finite maps to ``(-1, 1)``
(``x' = (x - mid) / half``); a direction or an "at most" band, with one finite end ``e``, maps
``e`` to 0 and scales by the largest distance from ``e`` of the row's estimate, intervals and
report value (``x' = (x - e) / s``), its band running to the edge. The true numbers are
written beside each row.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from mixlib.figures import new_figure
from mixlib.figures.semisupervised_rounds import require_columns

#: Verdict colours (Okabe-Ito); an unstable row (the replicate disagrees) is grey.
VERDICT_COLOURS = {"holds": "#009E73", "contradicted": "#D55E00", "inconclusive": "#E69F00",
                   "unstable": "#999999"}
#: How far the normalised axis reaches either side (values beyond are drawn at the edge).
REACH = 3.0
_COLUMNS = ("id", "data", "kind", "verdict", "measured", "ci_low", "ci_high", "band_low", "band_high")


def _float(row: pd.Series, column: str) -> float:
    value = row.get(column, math.nan)
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def band_scale(row: pd.Series) -> tuple[float, float]:
    """``(origin, scale)`` of a row's normalised axis, ``x' = (x - origin) / scale`` (module
    docstring)."""
    low, high = _float(row, "band_low"), _float(row, "band_high")
    if math.isfinite(low) and math.isfinite(high):
        return (low + high) / 2, (high - low) / 2
    origin = low if math.isfinite(low) else high
    points = [_float(row, c) for c in ("measured", "ci_low", "ci_high", "pi_low", "pi_high",
                                       "report_low", "report_high")]
    spread = max([abs(p - origin) for p in points if math.isfinite(p)], default=0.0)
    return origin, spread if spread > 0 else 1.0


def stated_verdict(row: pd.Series) -> str:
    """The row's verdict, or ``unstable`` when its replicate disagrees."""
    return "unstable" if str(row.get("stability", "")) == "unstable" else str(row["verdict"])


def _clip(x: float) -> float:
    return float(np.clip(x, -REACH, REACH))


def _number(x: float) -> str:
    return "" if not math.isfinite(x) else format(x, ".3g")


def row_text(row: pd.Series) -> str:
    """The numbers beside a row: ours with its interval, the report's value, the readings."""
    text = f"{_number(_float(row, 'measured'))} [{_number(_float(row, 'ci_low'))}, {_number(_float(row, 'ci_high'))}]"
    report = _float(row, "report_low")
    if math.isfinite(report):
        high = _float(row, "report_high")
        text += f"; report {_number(report)}" + (f"-{_number(high)}" if high != report else "")
        inside = str(row.get("report_in_pi", ""))
        if inside in ("yes", "no"):
            text += " (in PI)" if inside == "yes" else " (outside PI)"
    total = int(_float(row, "readings")) if math.isfinite(_float(row, "readings")) else 0
    if total:
        text += f"; holds in {int(_float(row, 'readings_holds'))}/{total} readings"
    if str(row.get("stability", "")) == "unstable":
        text += f"; replicate {row.get('replicate_verdict', '')}"
    return text


def claims_figure(claims: pd.DataFrame, readings: pd.DataFrame | None = None) -> Figure:
    """A forest plot of ``claims.tsv``: one row per claim and data set.

    Parameters
    ----------
    claims : pandas.DataFrame
        ``claims.tsv`` (columns :data:`_COLUMNS`; with ``pi_low``, ``pi_high``,
        ``report_low``, ``report_high``, ``readings``, ``readings_holds``, ``stability`` when
        present).
    readings : pandas.DataFrame, optional
        ``claims_readings.tsv``: not drawn, its counts are the table's (``readings_holds`` of
        ``readings``, identical readings counted once).

    Returns
    -------
    matplotlib.figure.Figure
        Per row, on the band's scale (:func:`band_scale`): the band (grey), our estimate (dot)
        with its 95 % interval (thick) and the 95 % prediction interval of one run (thin),
        coloured by verdict (grey: unstable, the replicate disagrees), and the report's value
        (black diamond; a bar for a range). Beside it, the numbers (:func:`row_text`).
    """
    require_columns(claims, _COLUMNS, "claims")
    claims = claims.reset_index(drop=True)
    n = len(claims)
    fig, ax = new_figure(figsize=(12.0, 1.4 + 0.28 * max(n, 1)))
    for k, row in claims.iterrows():
        y = n - 1 - k
        origin, scale = band_scale(row)

        def at(column: str) -> float:
            return (_float(row, column) - origin) / scale

        low, high = at("band_low"), at("band_high")
        ax.fill_between([_clip(low), _clip(high)], y - 0.38, y + 0.38, color="0.88", linewidth=0)
        colour = VERDICT_COLOURS.get(stated_verdict(row), "black")
        if math.isfinite(at("pi_low")):
            ax.plot([_clip(at("pi_low")), _clip(at("pi_high"))], [y, y], color=colour, linewidth=1.0)
        if math.isfinite(at("ci_low")):
            ax.plot([_clip(at("ci_low")), _clip(at("ci_high"))], [y, y], color=colour, linewidth=4.0,
                    solid_capstyle="butt")
        if math.isfinite(at("measured")):
            ax.plot([_clip(at("measured"))], [y], "o", color=colour, markeredgecolor="black", markersize=5)
        if math.isfinite(at("report_low")):
            if at("report_high") > at("report_low"):
                ax.plot([_clip(at("report_low")), _clip(at("report_high"))], [y + 0.3] * 2, color="black",
                        linewidth=2)
            else:
                ax.plot([_clip(at("report_low"))], [y], "D", color="black", markerfacecolor="white", markersize=6)
        ax.text(REACH + 0.1, y, row_text(row), va="center", fontsize="x-small")
    ax.set_yticks(range(n))
    ax.set_yticklabels([f"{'*' if kind == 'absolute' else ''}{claim} · {data}" for claim, data, kind in
                        zip(claims["id"][::-1], claims["data"][::-1], claims["kind"][::-1])], fontsize="x-small")
    ax.set_xlim(-REACH, REACH)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xticks([-1, 0, 1])
    ax.set_xticklabels(["band's low end", "band's centre\n(or its finite end)", "band's high end"],
                       fontsize="x-small")
    ax.grid(False)
    ax.axvline(0, color="0.6", linewidth=0.5)
    handles = [Patch(color=c, label=v) for v, c in VERDICT_COLOURS.items()]
    handles += [Patch(color="0.88", label="band (the report's words)"),
                Line2D([], [], color="0.3", linewidth=4, label="our 95 % interval"),
                Line2D([], [], color="0.3", linewidth=1, label="95 % prediction interval, one run"),
                Line2D([], [], marker="D", color="black", markerfacecolor="white", linestyle="",
                       label="the report's value")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.6 / max(n, 1) ** 0.5), ncol=4,
              fontsize="x-small")
    fig.suptitle("Claims of the report under our reading, each on its band's scale (* = the report's own "
                 "numbers; right: the numbers, and in how many readings the claim holds)", fontsize="small")
    return fig
