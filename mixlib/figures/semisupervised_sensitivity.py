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
    ("unassigned_by_margin", "share the margin never assigns (%)", 100.0, False),
    ("n_rounds", "rounds", 1.0, False),
)
_METHOD_LABELS = {"iterative": "iterative", "prior": "prior"}
#: The report's values per (method, metric), in the panels' units (a pair: a stated range):
#: fig. 5.1 settles at 5 % hard error, 3 % unknown error, 0 % unknown after 2 to 3 rounds;
#: fig. 5.3 at 4 % and 3 % after four rounds.
REPORT_VALUES = {("iterative", "hard_error"): 5.0, ("iterative", "unknown_error"): 3.0,
                 ("iterative", "unassigned_by_margin"): 0.0, ("iterative", "n_rounds"): (2.0, 3.0),
                 ("prior", "hard_error"): 4.0, ("prior", "unknown_error"): 3.0, ("prior", "n_rounds"): 4.0}
_MARKERS = ("o", "s", "^", "D", "v", "P")


def _final_values(table: pd.DataFrame) -> pd.DataFrame:
    """Each repeat's value at its last round, per (split, setting, metric, rule)."""
    keys = [c for c in ("split", "method", "restart", "finish", "threshold", "relative_min_variance", "metric",
                        "unclassifiable", "repeat") if c in table.columns]
    return table.sort_values("round", kind="stable").groupby(keys, dropna=False, sort=False).tail(1)


def _reference(ax, value) -> None:
    """The report's value as a dotted line (a range: a shaded band between dotted lines)."""
    if value is None:
        return
    low, high = value if isinstance(value, tuple) else (value, value)
    if high > low:
        ax.axhspan(low, high, color="0.85", zorder=0)
    for y in {low, high}:
        ax.axhline(y, color="black", linestyle=":", linewidth=1.0, label="report")


def _variant_label(method: str, restart: str, finish: str) -> str:
    reading = [str(v) for v in (restart, finish) if str(v) != ANY]
    name = _METHOD_LABELS.get(method, method)
    return f"{name} ({', '.join(reading)})" if reading else name


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
        Small multiples: one row of four panels per split (sorted by name) and method
        variant (method, restart, finish; titles name them): final hard error, final unknown
        error, final unknown share (in %, iterative only) and rounds against the threshold.
        One curve per variance floor (x rule): colour and marker = floor, line style = rule
        (confidence solid, underflow dashed); mean over repeats and Student-t interval at
        ``confidence_level`` (vertical bar), the floors slightly offset on the x axis so the
        bars do not overlap; the report's value (:data:`REPORT_VALUES`) as a dotted line. A
        panel whose every value is 0 says so. A legend row below.

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
    runs = table[["method", "restart", "finish"]].astype(str).drop_duplicates()
    variants = sorted(runs.itertuples(index=False, name=None),
                      key=lambda v: (list(_METHOD_LABELS).index(v[0]) if v[0] in _METHOD_LABELS else 99, v))
    floors = sorted(table["relative_min_variance"].unique())
    thresholds = np.sort(table["threshold"].unique())
    gap = np.min(np.diff(thresholds)) if len(thresholds) > 1 else 0.1

    rows_of = [(split, panel, own, variant) for split, panel, own in groups for variant in variants]
    heights = [2.3] * len(rows_of) + [0.7]
    fig, axes = new_figure(len(heights), len(PANELS), figsize=(12.8, sum(heights) + 0.5), squeeze=False,
                           gridspec_kw={"height_ratios": heights})
    grid = axes[0, 0].get_gridspec()
    for ax in axes[len(rows_of):].ravel():
        ax.remove()
    dodge = 0.5 * gap / max(len(floors), 1)
    for r, (split, panel, own, (method, restart, finish)) in enumerate(rows_of):
        where = f" in split {split!r}" if split else ""
        name_of_row = _variant_label(method, restart, finish)
        for p, (metric, title, scale, per_rule) in enumerate(PANELS):
            ax = axes[r, p]
            if metric != "unassigned_by_margin" or (own["method"] == "iterative").any():
                require_metric(own, metric, name, where)
            rows = own[(own["metric"] == metric) & (own["method"] == method)
                       & (own["restart"].astype(str) == restart) & (own["finish"].astype(str) == finish)]
            if rows.empty:
                ax.axis("off")
                continue
            for f, floor in enumerate(floors):
                at_floor = rows[rows["relative_min_variance"] == floor]
                offset = (f - (len(floors) - 1) / 2) * dodge
                for rule in ordered_rules(at_floor) if per_rule else [None]:
                    curve = at_floor if rule is None else at_floor[at_floor["unclassifiable"] == rule]
                    if curve.empty:
                        continue
                    wide = curve.pivot_table(index="repeat", columns="threshold", values="value")
                    mean, low, high = mean_t_interval(scale * wide.to_numpy(), 1 - confidence_level)
                    x = wide.columns.to_numpy(dtype=float) + offset
                    ax.plot(x, mean, color=f"C{f}", marker=_MARKERS[f % len(_MARKERS)], markersize=4,
                            linestyle=RULE_LINESTYLES.get(rule, "-"), linewidth=1.0,
                            label=f"floor {floor:g}" + ("" if rule is None else rule_suffix(rule)))
                    ax.vlines(x, low, high, color=f"C{f}", linewidth=0.6, alpha=0.45)
            _reference(ax, REPORT_VALUES.get((method, metric)))
            ax.set_title(f"{panel}, {name_of_row}:\n{title}" if panel else f"{name_of_row}:\n{title}",
                         fontsize="x-small")
            ax.set_xticks(thresholds)
            ax.set_xticklabels([f"{t:g}" for t in thresholds], fontsize="x-small")
            ax.set_xlabel("threshold", fontsize="small")
            ax.set_ylim(bottom=0)
            if np.allclose(rows["value"].to_numpy(dtype=float), 0.0):
                ax.text(0.5, 0.5, "0 at every setting", transform=ax.transAxes, ha="center", va="center",
                        color="0.4")

    handles = [Line2D([], [], color=f"C{f}", marker=_MARKERS[f % len(_MARKERS)], linewidth=1,
                      label=f"floor {floor:g} (relative min. variance)") for f, floor in enumerate(floors)]
    rules = ordered_rules(table[table["metric"].isin([m for m, _, _, per_rule in PANELS if per_rule])])
    handles += [Line2D([], [], color="0.3", linestyle=RULE_LINESTYLES.get(rule, "-"),
                       label=f"rule: {rule}") for rule in rules]
    handles.append(Line2D([], [], color="black", linestyle=":", label="the report's value (bacteria)"))
    legend_ax = fig.add_subplot(grid[len(rows_of), :])
    legend_ax.axis("off")
    legend_ax.legend(handles=handles, loc="center", ncol=3, fontsize="small")
    fig.suptitle("Semi-supervised methods across threshold and variance floor (value at the last round; "
                 f"mean and {interval_name(confidence_level)} over repeats)")
    return fig
