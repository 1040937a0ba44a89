"""Sensitivity of the chapter-5 results to the threshold and the variance floor."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mixlib.core.statistics import mean_t_interval
from mixlib.core.vocabulary import ANY
from mixlib.figures import interval_name, new_figure
from mixlib.figures.semisupervised_rounds import (
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
    ("unassigned_by_margin", "share the margin never assigns (%, iterative)", 100.0, False),
    ("n_rounds", "rounds", 1.0, False),
)
_METHOD_LABELS = {"iterative": "iterative", "prior": "prior"}
_MARKERS = ("o", "s", "^", "D", "v", "P")


def _final_values(table: pd.DataFrame) -> pd.DataFrame:
    """Each repeat's value at its last round, per (split, setting, metric, rule)."""
    keys = [c for c in ("split", "method", "restart", "finish", "threshold", "relative_min_variance", "metric",
                        "unclassifiable", "repeat") if c in table.columns]
    return table.sort_values("round", kind="stable").groupby(keys, dropna=False, sort=False).tail(1)


def _variant_label(method: str, restart: str, finish: str) -> str:
    settings = [str(v) for v in (restart, finish) if str(v) != ANY]
    name = _METHOD_LABELS.get(method, method)
    return f"{name} ({', '.join(settings)})" if settings else name


def semisupervised_sensitivity(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Final errors, unknown share and rounds against the threshold, per method, restart and floor.

    Parameters
    ----------
    table : pandas.DataFrame
        The ``semisupervised_sensitivity`` table: columns ``split``, ``dataset``, ``method``,
        ``restart``, ``finish``, ``threshold``, ``relative_min_variance``, ``round``,
        ``metric``, ``unclassifiable``, ``value``, ``repeat`` (``split``, ``dataset``,
        ``restart``, ``finish`` may be absent). Drawn: each repeat's value at its last round
        of ``hard_error`` and ``unknown_error`` (one curve per ``unclassifiable`` rule
        present), ``unassigned_by_margin`` (iterative: the unknowns the margin never
        assigns, whatever the finish; the final unknown share would be 0 by construction
        under ``finish="argmax"``) and ``n_rounds`` (rule-free); other metrics are ignored.
        The claims' verdicts over the same grid are drawn by
        :func:`mixlib.figures.claims.claims_figure`.
    confidence_level : float
        Level of the Student-t interval over repeats of the bars (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        One row of four panels per split (sorted by name; titles name split and data set):
        final hard error, final unknown error, final unknown share (in %) and rounds against
        the threshold. One curve per (method, restart, finish) x variance floor (x rule):
        colour = method and restart or finish, marker = floor, line style = rule (confidence
        solid, underflow dashed); mean over repeats and Student-t interval at
        ``confidence_level`` (vertical bar), the floors slightly offset on the x axis so the bars do not overlap. A panel
        whose every value is 0 says so. A legend row below.

    Raises
    ------
    ValueError
        If a column or a metric (``hard_error``, ``unknown_error``, ``n_rounds``, and
        ``unassigned_by_margin`` when iterative rows are present) is absent.
    """
    name = "semisupervised_sensitivity"
    require_columns(table, _COLUMNS, name)
    table = table.assign(**{c: table[c] if c in table.columns else ANY for c in ("restart", "finish")})
    for metric, _, _, _ in PANELS:
        if metric != "unassigned_by_margin" or (table["method"] == "iterative").any():
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

    heights = [3.0] * len(groups) + [0.55 + 0.17 * len(variants)]
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
            if metric != "unassigned_by_margin" or (own["method"] == "iterative").any():
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
                        mean, low, high = mean_t_interval(scale * wide.to_numpy(), 1 - confidence_level)
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
            if not rows.empty and np.allclose(rows["value"].to_numpy(dtype=float), 0.0):
                ax.text(0.5, 0.5, "0 at every setting", transform=ax.transAxes, ha="center", va="center",
                        color="0.4")

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
    fig.suptitle("Semi-supervised methods across threshold and variance floor (value at the last round; "
                 f"mean and {interval_name(confidence_level)} over repeats)")
    return fig
