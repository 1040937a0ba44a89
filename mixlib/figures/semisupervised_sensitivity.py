"""Sensitivity of the chapter-5 results to the threshold and the variance floor."""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mixlib.core.statistics import mean_t_interval
from mixlib.figures import ALPHA, INTERVAL, new_figure
from mixlib.figures.semisupervised_rounds import (
    ANY,
    RULE_LINESTYLES,
    ordered_rules,
    require_columns,
    require_metric,
    rule_suffix,
    split_groups,
)

_COLUMNS = ("method", "threshold", "relative_min_variance", "round", "metric", "unclassifiable", "value",
            "repeat")
#: (metric, panel title, scale, per rule) of each panel of a split's row, left to right.
PANELS = (
    ("hard_error", "final hard error (%)", 100.0, True),
    ("unknown_error", "final unknown error (%)", 100.0, True),
    ("unknown", "final unknown share (%, iterative)", 100.0, False),
    ("n_rounds", "rounds", 1.0, False),
)
_METHOD_LABELS = {"iterative": "iterative", "prior": "prior"}
_MARKERS = ("o", "s", "^", "D", "v", "P")
_TRUE = ("true", "yes", "y", "1", "1.0")


def _final_values(table: pd.DataFrame) -> pd.DataFrame:
    """Each repeat's value at its last round, per (split, setting, metric, rule)."""
    keys = [c for c in ("split", "method", "restart", "finish", "threshold", "relative_min_variance", "metric",
                        "unclassifiable", "repeat") if c in table.columns]
    return table.sort_values("round", kind="stable").groupby(keys, dropna=False, sort=False).tail(1)


def _variant_label(method: str, restart: str, finish: str) -> str:
    settings = [str(v) for v in (restart, finish) if str(v) != ANY]
    name = _METHOD_LABELS.get(method, method)
    return f"{name} ({', '.join(settings)})" if settings else name


def _verdict_lines(verdicts: pd.DataFrame, width: int = 150, max_settings: int = 3) -> list[str]:
    """The verdicts as text: which claims hold everywhere, fail everywhere, or depend.

    ``verdicts`` has the columns ``claim``, ``holds_everywhere`` and ``flips_under`` (the
    settings where the claim fails), and optionally ``split``, ``n_hold``, ``n_settings`` and
    ``holds_under`` (:func:`mixlib.experiments.claims.sensitivity_verdicts`); a claim with ``n_hold == 0``
    fails everywhere.
    """
    require_columns(verdicts, ("claim", "holds_everywhere", "flips_under"), "semisupervised_sensitivity verdicts")
    holds = verdicts["holds_everywhere"].astype(str).str.strip().str.lower().isin(_TRUE)
    never = verdicts["n_hold"].eq(0) if "n_hold" in verdicts.columns else pd.Series(False, index=verdicts.index)
    names = verdicts["claim"].astype(str)
    if "split" in verdicts.columns:
        names = names + " (" + verdicts["split"].astype(str) + ")"
    lines = ["Chapter-5 verdicts across the grid (threshold x variance floor x restart):"]
    for i in verdicts.index[~holds & ~never]:
        row = verdicts.loc[i]
        if "holds_under" in verdicts.columns and "n_hold" in verdicts.columns:
            where = [w for w in str(row["holds_under"]).split("; ") if w]
            shown = "; ".join(where[:max_settings]) + ("; ..." if len(where) > max_settings else "")
            text = f"- {names[i]}: holds at {row['n_hold']} of {row['n_settings']} points, e.g. {shown}"
        else:
            flips = "" if pd.isna(row["flips_under"]) else str(row["flips_under"]).strip()
            text = f"- {names[i]}: changes under {flips or '(not given)'}"
        lines.extend(textwrap.wrap(text, width, subsequent_indent="    "))
    if not (~holds & ~never).any():
        lines.append("no verdict changes.")
    for label, mask in (("hold everywhere", holds), ("fail everywhere", never & ~holds)):
        if mask.any():
            lines.extend(textwrap.wrap(f"{label}: {', '.join(names[mask])}", width, subsequent_indent="    "))
    return lines


def semisupervised_sensitivity(table: pd.DataFrame, verdicts: pd.DataFrame | None = None) -> Figure:
    """Final errors, unknown share and rounds against the threshold, per method, restart and floor.

    Parameters
    ----------
    table : pandas.DataFrame
        The ``semisupervised_sensitivity`` table: columns ``split``, ``dataset``, ``method``,
        ``restart``, ``finish``, ``threshold``, ``relative_min_variance``, ``round``,
        ``metric``, ``unclassifiable``, ``value``, ``repeat`` (``split``, ``dataset``,
        ``restart``, ``finish`` may be absent). Drawn: each repeat's value at its last round
        of ``hard_error`` and ``unknown_error`` (one curve per ``unclassifiable`` rule
        present), ``unknown`` (iterative) and ``n_rounds`` (rule-free); other metrics are
        ignored.
    verdicts : pandas.DataFrame, optional
        Columns ``claim``, ``holds_everywhere``, ``flips_under`` (text; ``holds_everywhere``
        read as true for "true", "yes", "1"). Listed in a text block under the panels: the
        claims that change across the grid with where they flip, then those that hold
        everywhere.

    Returns
    -------
    matplotlib.figure.Figure
        One row of four panels per split (sorted by name; titles name split and data set):
        final hard error, final unknown error, final unknown share (in %) and rounds against
        the threshold. One curve per (method, restart, finish) x variance floor (x rule):
        colour = method and restart, marker = floor, line style = rule (confidence solid,
        underflow dashed); mean over repeats and 95 % Student-t interval (vertical bar), the
        floors slightly offset on the x axis so the bars do not overlap. A legend row (and
        the verdicts) below.

    Raises
    ------
    ValueError
        If a column or a metric (``hard_error``, ``unknown_error``, ``n_rounds``, and
        ``unknown`` when iterative rows are present) is absent.
    """
    name = "semisupervised_sensitivity"
    require_columns(table, _COLUMNS, name)
    table = table.assign(**{c: table[c] if c in table.columns else ANY for c in ("restart", "finish")})
    for metric, _, _, _ in PANELS:
        if metric != "unknown" or (table["method"] == "iterative").any():
            require_metric(table, metric, name)
    groups = split_groups(_final_values(table))
    settings = table[["method", "restart", "finish"]].astype(str).drop_duplicates()
    variants = sorted(settings.itertuples(index=False, name=None),
                      key=lambda v: (list(_METHOD_LABELS).index(v[0]) if v[0] in _METHOD_LABELS else 99, v))
    floors = sorted(table["relative_min_variance"].unique())
    thresholds = np.sort(table["threshold"].unique())
    gap = np.min(np.diff(thresholds)) if len(thresholds) > 1 else 0.1
    positions = len(variants) * len(floors)
    dodge = 0.5 * gap / max(positions, 1)

    verdict_lines = _verdict_lines(verdicts) if verdicts is not None else []
    heights = [3.0] * len(groups) + [0.55 + 0.17 * len(variants)] + ([0.2 + 0.17 * len(verdict_lines)]
                                                                     if verdict_lines else [])
    fig, axes = new_figure(len(heights), len(PANELS), figsize=(12.8, sum(heights) + 0.5), squeeze=False,
                           gridspec_kw={"height_ratios": heights})
    grid = axes[0, 0].get_gridspec()
    for ax in axes[len(groups):].ravel():
        ax.remove()
    for s, (split, panel, own) in enumerate(groups):
        where = f" in split {split!r}" if split else ""
        for p, (metric, title, scale, per_rule) in enumerate(PANELS):
            ax = axes[s, p]
            rows = own[own["metric"] == metric]
            if metric != "unknown" or (own["method"] == "iterative").any():
                require_metric(own, metric, name, where)
            for v, (method, restart, finish) in enumerate(variants):
                mine = rows[(rows["method"] == method) & (rows["restart"].astype(str) == restart)
                            & (rows["finish"].astype(str) == finish)]
                for f, floor in enumerate(floors):
                    at_floor = mine[mine["relative_min_variance"] == floor]
                    offset = (v * len(floors) + f - (positions - 1) / 2) * dodge
                    for rule in ordered_rules(at_floor) if per_rule else [None]:
                        curve = at_floor if rule is None else at_floor[at_floor["unclassifiable"] == rule]
                        if curve.empty:
                            continue
                        wide = curve.pivot_table(index="repeat", columns="threshold", values="value")
                        mean, low, high = mean_t_interval(scale * wide.to_numpy(), ALPHA)
                        x = wide.columns.to_numpy(dtype=float) + offset
                        label = f"{_variant_label(method, restart, finish)}, floor {floor:g}"
                        ax.plot(x, mean, color=f"C{v}", marker=_MARKERS[f % len(_MARKERS)], markersize=4,
                                linestyle=RULE_LINESTYLES.get(rule, "-"), linewidth=1.0,
                                label=label + ("" if rule is None else rule_suffix(rule)))
                        ax.vlines(x, low, high, color=f"C{v}", linewidth=0.6, alpha=0.45)
            ax.set_title(f"{panel}\n{title}" if panel else title, fontsize="medium")
            ax.set_xticks(thresholds)
            ax.set_xticklabels([f"{t:g}" for t in thresholds], fontsize="small")
            ax.set_xlabel("threshold")
            ax.set_ylim(bottom=0)

    handles = [Line2D([], [], color=f"C{v}", linewidth=2, label=_variant_label(*variant))
               for v, variant in enumerate(variants)]
    handles += [Line2D([], [], color="0.3", marker=_MARKERS[f % len(_MARKERS)], linestyle="none",
                       label=f"floor {floor:g} (relative min. variance)") for f, floor in enumerate(floors)]
    rules = ordered_rules(table[table["metric"].isin([m for m, _, _, per_rule in PANELS if per_rule])])
    handles += [Line2D([], [], color="0.3", linestyle=RULE_LINESTYLES.get(rule, "-"),
                       label=f"rule: {rule}") for rule in rules]
    legend_ax = fig.add_subplot(grid[len(groups), :])
    legend_ax.axis("off")
    legend_ax.legend(handles=handles, loc="center", ncol=3, fontsize="small")
    if verdict_lines:
        text_ax = fig.add_subplot(grid[len(groups) + 1, :])
        text_ax.axis("off")
        text_ax.text(0.0, 1.0, "\n".join(verdict_lines), transform=text_ax.transAxes, va="top", ha="left",
                     fontsize="small")
    fig.suptitle("Semi-supervised methods across threshold and variance floor (value at the last round; "
                 f"mean and {INTERVAL} over repeats)")
    return fig
