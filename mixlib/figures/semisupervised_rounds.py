"""Figs. 5.1 and 5.3 of the report: the counters of the two semi-supervised methods per round.

Also the helpers the chapter-3/5 figures share: one panel per split (:func:`split_groups`),
the line style of an unclassifiable rule (:data:`RULE_LINESTYLES`), the choice of one setting
when a table holds several (:func:`select_variants`) and the column check
(:func:`require_columns`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.core.statistics import mean_t_interval
from mixlib.core.vocabulary import ANY
from mixlib.figures import interval_name, new_figure

_LABELS = {
    "hard_error": "hard error",
    "unknown_error": "unknown error",
    "unknown": "unknown",
    "flips": "flips",
}
#: Line style of each unclassifiable rule; a rule not listed (e.g. "any") is drawn solid.
RULE_LINESTYLES = {"confidence": "-", "underflow": "--"}
#: Setting drawn when a table holds several: (column, preferred value or None for the first sorted).
VARIANT_COLUMNS: tuple[tuple[str, str | None], ...] = (
    ("restart", "warm"), ("finish", "argmax"), ("threshold", None), ("n_components", None),
)


def require_columns(table: pd.DataFrame, columns: Iterable[str], figure: str) -> None:
    """Raise a :class:`ValueError` naming the columns of ``columns`` that ``table`` lacks."""
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise ValueError(f"{figure}: the table lacks the column(s) {missing}; it has {list(table.columns)}.")


def require_metric(rows: pd.DataFrame, metric: str, figure: str, where: str = "") -> pd.DataFrame:
    """The rows of ``metric``; a :class:`ValueError` naming the metric if there are none."""
    own = rows[rows["metric"] == metric]
    if own.empty:
        present = sorted(rows["metric"].astype(str).unique())
        raise ValueError(f"{figure}: the table has no rows of metric {metric!r}{where}; metrics: {present}.")
    return own


def split_groups(table: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """The rows of each split, sorted by split name, as ``(split, panel title, rows)``.

    The title names the split and its data set(s), e.g. ``"bacteria (heart)"``. A table
    without a ``split`` column is one group named ``""`` (one panel), without a ``dataset``
    column the title is the split's name.
    """
    if table.empty:
        raise ValueError("the table has no rows to draw.")
    if "split" not in table.columns:
        table = table.assign(split="")
    groups = []
    for split, rows in table.groupby("split", sort=True):
        datasets = (", ".join(sorted(rows["dataset"].dropna().astype(str).unique()))
                    if "dataset" in rows.columns else "")
        split = str(split)
        title = f"{split} ({datasets})" if split and datasets else (split or datasets)
        groups.append((split, title, rows))
    return groups


def split_panels(table: pd.DataFrame, columns: Iterable[str], figure: str, *, top: float,
                 height: float) -> tuple[Figure, list[tuple[object, str, pd.DataFrame]]]:
    """A figure of one panel per split, stacked: ``(figure, [(axes, panel title, rows), ...])``
    in the order of :func:`split_groups`, ``table`` first checked for ``columns``
    (:func:`require_columns`); the figure is 6.4 inches wide and ``top + height * panels``
    high."""
    require_columns(table, columns, figure)
    groups = split_groups(table)
    fig, axes = new_figure(len(groups), 1, figsize=(6.4, top + height * len(groups)),
                           squeeze=False)
    return fig, [(ax, title, rows) for ax, (_, title, rows) in zip(axes[:, 0], groups)]


def ordered_rules(rows: pd.DataFrame) -> list[str]:
    """Unclassifiable rules of ``rows``: confidence, underflow, then any other value sorted."""
    present = set(rows["unclassifiable"].astype(str))
    return [rule for rule in RULE_LINESTYLES if rule in present] + sorted(present - set(RULE_LINESTYLES))


def rule_suffix(rule: str) -> str:
    """``" (rule)"`` for a legend label; empty for the rule-free value ``"any"``."""
    return "" if rule in (ANY, "") else f" ({rule})"


def select_variants(rows: pd.DataFrame,
                    columns: Sequence[tuple[str, str | None]] = VARIANT_COLUMNS) -> tuple[pd.DataFrame, list[str]]:
    """Keep one setting of each variant column of ``rows`` (one method's rows).

    For ``restart``, ``finish``, ``threshold`` and ``n_components`` (those present): the
    preferred value (``warm``, ``argmax``) if present, else the first in sorted order; the
    value ``"any"`` (not applicable) is never reported.

    Returns
    -------
    rows : pandas.DataFrame
        The rows of the chosen settings.
    notes : list of str
        ``"restart warm"`` etc. for every ``restart``/``finish`` kept, and for a
        ``threshold``/``n_components`` chosen among several, for the panel title.
    """
    notes = []
    for column, preferred in columns:
        if column not in rows.columns:
            continue
        values = sorted(pd.unique(rows[column].dropna()), key=str)
        if not values:
            continue
        value = preferred if preferred in values else values[0]
        rows = rows[rows[column] == value]
        if str(value) != ANY and (preferred is not None or len(values) > 1):
            notes.append(f"{column.replace('_', ' ')} {value}")
    return rows, notes


def _carried_forward(table: pd.DataFrame, metric: str, last_round: int) -> pd.DataFrame:
    """(repeat x round) values of ``metric``, each repeat held at its last value up to ``last_round``."""
    wide = table[table["metric"] == metric].pivot_table(index="repeat", columns="round", values="value")
    return wide.reindex(columns=range(last_round + 1)).ffill(axis=1)


_ROUNDS_COLUMNS = ("method", "round", "metric", "unclassifiable", "value", "repeat")
#: The report's values (in %), drawn as dotted reference lines in the counter's colour: fig. 5.1
#: settles at 5 %, 3 % and 0 %; fig. 5.3 at 4 % hard error, 3 % unknown error, about 2 % flips
#: in each of the first three rounds.
REPORT_FIG5_1 = {"hard_error": 5.0, "unknown_error": 3.0, "unknown": 0.0}
REPORT_FIG5_3 = {"hard_error": 4.0, "unknown_error": 3.0, "flips": 2.0}


def _rounds_figure(table: pd.DataFrame, method: str, rule_metrics: tuple[str, ...],
                   free_metrics: tuple[str, ...], title: str, name: str,
                   confidence_level: float, report: dict[str, float]) -> Figure:
    require_columns(table, _ROUNDS_COLUMNS, name)
    rows = table[table["method"] == method]
    if rows.empty:
        raise ValueError(f"the table has no rows of method {method!r}; methods: {sorted(table['method'].unique())}.")
    groups = split_groups(rows)
    fig, axes = new_figure(len(groups), 1, figsize=(9.0, 0.4 + 3.6 * len(groups)), squeeze=False)
    for ax, (split, panel, own) in zip(axes[:, 0], groups):
        own, notes = select_variants(own)
        where = f" for method {method!r}" + (f" in split {split!r}" if split else "")
        last_round = int(own["round"].max())
        for i, metric in enumerate(rule_metrics + free_metrics):
            metric_rows = require_metric(own, metric, name, where)
            rules = ordered_rules(metric_rows) if metric in rule_metrics else [None]
            for rule in rules:
                rule_rows = metric_rows if rule is None else metric_rows[metric_rows["unclassifiable"] == rule]
                wide = _carried_forward(rule_rows, metric, last_round)
                mean, low, high = mean_t_interval(100.0 * wide.to_numpy(), 1 - confidence_level)
                x = wide.columns.to_numpy()
                shown = ~np.isnan(mean)
                label = _LABELS[metric] + ("" if rule is None else rule_suffix(rule))
                ax.plot(x[shown], mean[shown], marker="o", markersize=3, color=f"C{i}",
                        linestyle=RULE_LINESTYLES.get(rule, "-"), label=label)
                ax.fill_between(x[shown], low[shown], high[shown], color=f"C{i}", alpha=0.2, linewidth=0)
            if metric in report:
                ax.axhline(report[metric], color=f"C{i}", linestyle=":", linewidth=1.2,
                           label=f"report: {_LABELS[metric]} {report[metric]:g} %")
        kernels = own["n_components"].iloc[0] if "n_components" in own.columns else None
        details = ([f"{kernels} kernels per class"] if kernels is not None else [])
        details += [note for note in notes if not note.startswith("n components")]
        details.append(f"{own['repeat'].nunique()} repeats")
        ax.set_title(f"{panel}: " * bool(panel) + "; ".join(details), fontsize="medium")
        ax.set_xlabel("round (0: labelled examples only)")
        ax.set_ylabel("rate (%)")
        ax.set_xticks(range(last_round + 1))
        ax.set_ylim(bottom=0)
        # beside the panel, where it hides no curve or band
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.suptitle(f"{title} (mean and {interval_name(confidence_level)} over repeats)")
    return fig


def fig5_1(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Iterative classification: hard error, unknown error and unknown per round (report fig. 5.1).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``semisupervised_rounds`` table: columns ``split``, ``dataset``, ``method``,
        ``n_components``, ``restart``, ``finish``, ``threshold``, ``round``, ``metric``,
        ``unclassifiable``, ``value``, ``repeat`` (``split``, ``dataset``, ``restart``,
        ``finish``, ``threshold`` may be absent). Drawn: the rows with
        ``method == "iterative"`` and the metrics ``hard_error`` and ``unknown_error`` (one
        curve per ``unclassifiable`` rule present) and ``unknown`` (rule-free). If the rows
        hold several ``finish`` values, only ``argmax`` (else the first sorted) is drawn; of
        several ``threshold`` or ``n_components`` values the first sorted; the panel title
        says which.
    confidence_level : float
        Level of the Student-t interval over repeats of the bands (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per split (sorted by name; title: split, data set, kernels, settings,
        repeats). For each counter, in %, the mean over repeats per round (line) and its
        Student-t interval at ``confidence_level`` (band); colour = counter, line style = rule (confidence solid,
        underflow dashed); the report's values (:data:`REPORT_FIG5_1`) as dotted lines in the
        counter's colour. A repeat that stopped before the last round drawn is held at its
        final value (its model no longer changes).

    Raises
    ------
    ValueError
        If a column, the method or one of the metrics (in some split) is absent.
    """
    return _rounds_figure(table, "iterative", ("hard_error", "unknown_error"), ("unknown",),
                          "Iterative classification", "fig5_1", confidence_level, REPORT_FIG5_1)


def fig5_3(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Prior probabilities: hard error, unknown error and flips per round (report fig. 5.3).

    Parameters
    ----------
    table : pandas.DataFrame
        As for :func:`fig5_1`; the rows with ``method == "prior"`` and the metrics
        ``hard_error``, ``unknown_error`` (per rule) and ``flips`` (from round 1) are drawn.
        If the rows hold several ``restart`` values, only ``warm`` (else the first sorted) is
        drawn, named in the panel title.
    confidence_level : float
        As for :func:`fig5_1`.

    Returns
    -------
    matplotlib.figure.Figure
        As :func:`fig5_1` (the report's values: :data:`REPORT_FIG5_3`); a converged repeat is
        held at its last value (flips 0).

    Raises
    ------
    ValueError
        If a column, the method or one of the metrics (in some split) is absent.
    """
    return _rounds_figure(table, "prior", ("hard_error", "unknown_error"), ("flips",),
                          "Prior probabilities", "fig5_3", confidence_level, REPORT_FIG5_3)
