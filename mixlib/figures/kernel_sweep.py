"""Figs. 5.4, 5.5 and 6.1 of the report: errors against the number of kernels per class."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from mixlib.core.statistics import mean_t_interval
from mixlib.core.vocabulary import ANY
from mixlib.figures import interval_name, new_figure
from mixlib.figures.semisupervised_rounds import (
    RULE_LINESTYLES,
    ordered_rules,
    require_columns,
    require_metric,
    rule_suffix,
    select_variants,
    split_groups,
)

_METHOD_LABELS = {"labelled_only": "labelled only", "iterative": "iterative", "prior": "prior probabilities"}
_LINESTYLES = ("-", "--", "-.", ":")
#: The report's mean error of the mixture classifier on the DNA data (ch. 6).
REPORT_DNA_ERROR = 0.20
#: Kernel-count variant columns chosen per method (the sweep's x axis, n_components, is kept).
_SWEEP_VARIANTS = (("restart", "warm"), ("finish", "argmax"), ("threshold", None))


def _curve(ax, rows: pd.DataFrame, label: str, colour: str, significance_level: float, linestyle: str = "-",
           scale: float = 100.0, marker: str = "o", band: bool = True) -> None:
    """Mean over repeats of ``scale * value`` of ``rows`` (one metric) against n_components.

    With ``band``, also its Student-t interval over repeats at level ``1 - significance_level`` (a shaded band).
    """
    wide = rows.pivot_table(index="repeat", columns="n_components", values="value")
    mean, low, high = mean_t_interval(scale * wide.to_numpy(), significance_level)
    x = wide.columns.to_numpy()
    ax.plot(x, mean, marker=marker, markersize=3, color=colour, linestyle=linestyle, label=label)
    if band:
        ax.fill_between(x, low, high, color=colour, alpha=0.2, linewidth=0)


def _log2_axis(ax, kernels: np.ndarray) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(kernels)
    ax.set_xticklabels([str(int(k)) for k in kernels])
    ax.set_xlabel("kernels per class")


#: Methods fit unequal kernel counts at K when their mean fitted counts differ by more than this.
UNEQUAL_KERNELS = 0.5


def _per_class_fitted(rows: pd.DataFrame) -> pd.DataFrame:
    """Kernels fit per class (``effective_components:<class>`` rows), mean over repeats:
    kernel counts asked x classes."""
    per_class = rows[rows["metric"].astype(str).str.startswith("effective_components:")]
    return per_class.pivot_table(index="n_components", columns="metric", values="value", aggfunc="mean")


def _kernel_panel(ax, rows: pd.DataFrame, label: str, colour: str) -> pd.Series:
    """Kernels fit per class (mean over classes; band: the classes' lowest to highest) and,
    dotted, the collapsed ones; returns the mean fitted count per kernel count asked."""
    fitted = _per_class_fitted(rows)
    if fitted.empty:
        fitted = rows[rows["metric"] == "effective_components"].pivot_table(
            index="n_components", columns="metric", values="value", aggfunc="mean")
    x = fitted.index.to_numpy()
    ax.plot(x, fitted.mean(axis=1), color=colour, marker="o", markersize=3, label=label)
    ax.fill_between(x, fitted.min(axis=1), fitted.max(axis=1), color=colour, alpha=0.15, linewidth=0)
    collapsed = rows[rows["metric"] == "collapsed_kernels"].groupby("n_components")["value"].mean()
    ax.plot(collapsed.index, collapsed, color=colour, linestyle=":", marker="x", markersize=3)
    return fitted.mean(axis=1)


def _mark_unequal(axes, fitted: dict[str, pd.Series]) -> list[int]:
    """Shade the kernel counts where the methods fit unequal kernel counts; those counts."""
    frame = pd.DataFrame(fitted)
    unequal = [int(k) for k, row in frame.iterrows() if row.max() - row.min() > UNEQUAL_KERNELS]
    for k in unequal:
        for ax in axes:
            ax.axvspan(k / 2 ** 0.5, k * 2 ** 0.5, color="0.88", zorder=0, linewidth=0)
    return unequal


def _methods(own: pd.DataFrame) -> list[str]:
    methods = [m for m in _METHOD_LABELS if m in set(own["method"])]
    return methods + sorted(set(own["method"]) - set(methods))


def _key(rules: list[str], shaded: bool) -> list:
    """The figure's one key: line style = rule (errors), then the kernel panels' marks."""
    handles = [Line2D([], [], color="0.25", linestyle=RULE_LINESTYLES.get(rule, "-"), marker="o",
                      markersize=3, label=f"error, {rule} rule" if rule not in ("", ANY)
                      else "error") for rule in rules]
    handles += [Patch(color="0.25", alpha=0.2, label="band: interval over repeats (errors), "
                                                      "classes' lowest to highest (kernels)"),
                Line2D([], [], color="0.25", linestyle=":", marker="x", markersize=3,
                       label="kernels collapsed"),
                Line2D([], [], color="0.5", linestyle="--", linewidth=0.8,
                       label="kernels fit = asked")]
    if shaded:
        handles.append(Patch(color="0.88", label="methods fit unequal kernel counts"))
    return handles


def _method_figure(table: pd.DataFrame, metric: str, ylabel: str, title: str, name: str,
                   confidence_level: float) -> Figure:
    require_columns(table, ("method", "n_components", "metric", "unclassifiable", "value", "repeat"), name)
    require_metric(table, metric, name)
    groups = split_groups(table)
    n_methods = max(len(_methods(own)) for _, _, own in groups)
    fig, axes = new_figure(2 * len(groups), n_methods,
                           figsize=(2.9 * n_methods + 0.6, 0.9 + 4.0 * len(groups)),
                           squeeze=False, sharex=True,
                           gridspec_kw={"height_ratios": [2.2, 1] * len(groups)})
    rules_seen, shaded = [], False
    for s, (split, panel, own) in enumerate(groups):
        where = f" in split {split!r}" if split else ""
        require_metric(own, metric, name, where)
        require_metric(own, "collapsed_kernels", name, where)
        methods = _methods(own)
        kernels = np.sort(own["n_components"].unique())
        fitted, top = {}, 0.0
        for i, method in enumerate(methods):
            ax, ax_kernels = axes[2 * s, i], axes[2 * s + 1, i]
            rows, chosen = select_variants(own[own["method"] == method], _SWEEP_VARIANTS)
            errors = rows[rows["metric"] == metric]
            for rule in ordered_rules(errors):
                _curve(ax, errors[errors["unclassifiable"] == rule], _METHOD_LABELS.get(method, method)
                       + rule_suffix(rule), f"C{i}", 1 - confidence_level, RULE_LINESTYLES.get(rule, "-"))
                rules_seen += [rule] if rule not in rules_seen else []
            top = max([top] + [float(np.nanmax(line.get_ydata())) for line in ax.get_lines()])
            fitted[method] = _kernel_panel(ax_kernels, rows, _METHOD_LABELS.get(method, method), f"C{i}")
            ax_kernels.plot(kernels, kernels, color="0.5", linestyle="--", linewidth=0.8, label="as asked")
            label = _METHOD_LABELS.get(method, method)
            ax.set_title(label + (f"\n{', '.join(chosen)}" if chosen else ""), fontsize="medium")
            _log2_axis(ax_kernels, kernels)
            if i > 0:
                ax.sharey(axes[2 * s, 0])
                ax_kernels.sharey(axes[2 * s + 1, 0])
        for ax in axes[2 * s: 2 * s + 2, len(methods):].ravel():
            ax.set_visible(False)
        shaded |= bool(_mark_unequal(axes[2 * s: 2 * s + 2, :len(methods)].ravel(), fitted))
        # errors are percentages: a band of few repeats may run past 100 %, the axis does not
        axes[2 * s, 0].set_ylim(0, min(100.0, 1.1 * max(top, 1e-9)) if np.isfinite(top) else 100.0)
        heading = f"{panel}: " * bool(panel) + f"{own['repeat'].nunique()} repeats"
        axes[2 * s, 0].set_ylabel(f"{heading}\n{ylabel}", fontsize="small")
        axes[2 * s + 1, 0].set_ylabel("kernels fit\nper class", fontsize="small")
        axes[2 * s + 1, 0].set_ylim(bottom=0)
        if s < len(groups) - 1:
            for ax in axes[2 * s + 1]:
                ax.set_xlabel("")
    fig.legend(handles=_key(rules_seen, shaded), loc="outside lower center", ncols=3,
               fontsize="small")
    fig.suptitle(f"{title} (mean and {interval_name(confidence_level)} over repeats)")
    return fig


def fig5_4(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Training error against kernels per class, one curve per method and rule (report fig. 5.4).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``kernel_sweep`` table: columns ``split``, ``dataset``, ``method``,
        ``n_components``, ``restart``, ``finish``, ``threshold``, ``metric``,
        ``unclassifiable``, ``value``, ``repeat`` (``split``, ``dataset``, ``restart``,
        ``finish``, ``threshold`` may be absent). Drawn: the ``train_error`` rows (error on
        the labelled training examples, one curve per ``unclassifiable`` rule present) and,
        below, the kernels fit per class (``effective_components:<class>`` rows, or the
        mean ``effective_components``) and the ``collapsed_kernels`` rows (rule-free). Of a
        method with several
        ``restart``/``finish``/``threshold`` values only ``warm``/``argmax``/the first sorted
        is drawn, named in the panel title.
    confidence_level : float
        Level of the Student-t interval over repeats of the bands (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        Per split (sorted by name), a main panel: training error in % against kernels per
        class on a log2 axis, for each method present (labelled only, iterative, prior
        probabilities): mean over repeats (line) and Student-t interval at
        ``confidence_level`` (band), colour =
        method, line style = rule (confidence solid, underflow dashed); and a panel under it:
        the kernels each method actually fit per class against those asked (mean over
        repeats and classes; band: from the class with the fewest to the one with the most;
        a class has at most as many kernels as distinct training rows, and warm restarts
        keep round 0's count), the dashed diagonal where every kernel asked is fit, and the
        collapsed kernels (dotted). Kernel counts at which the methods' mean fitted counts
        differ by more than half a kernel are shaded in both panels and named in the title:
        there the methods do not compare at equal K.

    Raises
    ------
    ValueError
        If a column or the metric ``train_error`` or ``collapsed_kernels`` (in some split)
        is absent.
    """
    return _method_figure(table, "train_error", "training error (%)", "Training error", "fig5_4",
                          confidence_level)


def fig5_5(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Test error against kernels per class, one curve per method and rule (report fig. 5.5).

    Parameters
    ----------
    table : pandas.DataFrame
        As for :func:`fig5_4`; the ``test_error`` and ``collapsed_kernels`` rows are drawn.
    confidence_level : float
        As for :func:`fig5_4`.

    Returns
    -------
    matplotlib.figure.Figure
        As :func:`fig5_4`, for the test error.

    Raises
    ------
    ValueError
        If a column or the metric ``test_error`` or ``collapsed_kernels`` (in some split)
        is absent.
    """
    return _method_figure(table, "test_error", "test error (%)", "Test error", "fig5_5", confidence_level)


def fig6_1(table: pd.DataFrame, *, confidence_level: float) -> Figure:
    """Mixture classifier on DNA: test and training error against kernels per class (fig. 6.1).

    Parameters
    ----------
    table : pandas.DataFrame
        The ``dna_kernel_sweep`` table (``workflow/rules/dna.smk``; the experiment is in
        :mod:`mixlib.experiments.dna`): rows for every (kernel count, repeat), columns
        ``n_components``, ``class``, ``metric``, ``value``, ``repeat``, and optionally
        ``encoding`` (one pair of curves per encoding, e.g. "onehot" and "ordinal"). Drawn:
        ``test_error`` and ``train_error`` (``class == "all"``), ``live_kernels`` and, if
        present, ``collapsed_kernels`` (per class).
    confidence_level : float
        Level of the Student-t interval over repeats of the error bands (the config's
        ``figures.confidence_level``).

    Returns
    -------
    matplotlib.figure.Figure
        Top: error in % against kernels per class (log2 axis), test error solid and training
        error dashed, mean over repeats and Student-t interval; a dotted line at the
        report's mean error, 20 %. Middle: kernels still alive after EM (mixing weight
        > 1e-6) of each class, mean over repeats, against the kernels fit (grey dotted: all
        alive; log2 axis). Bottom (when present): the live kernels of each class that ended
        at the variance floor (marker 'x'). In the kernel panels colours tell encodings
        apart and line styles the classes, with one key beside the middle panel.
    """
    if "encoding" not in table.columns:
        table = table.assign(encoding="")
    with_collapsed = "collapsed_kernels" in set(table["metric"])
    fig, axes = new_figure(3 if with_collapsed else 2, 1, figsize=(7.2, 8.0 if with_collapsed else 6.0),
                           sharex=True, gridspec_kw={"height_ratios": [2, 1, 1] if with_collapsed else [2, 1]})
    ax, ax_live = axes[0], axes[1]
    kernels = np.sort(table["n_components"].unique())
    encodings, classes = [], []
    significance_level = 1 - confidence_level
    for i, (encoding, rows) in enumerate(table.groupby("encoding", sort=True)):
        suffix = f" ({encoding})" if encoding else ""
        encodings.append((encoding, f"C{i}"))
        overall = rows[rows["class"] == "all"]
        _curve(ax, overall[overall["metric"] == "test_error"], f"test error{suffix}", f"C{i}", significance_level)
        _curve(ax, overall[overall["metric"] == "train_error"], f"training error{suffix}", f"C{i}",
               significance_level, "--")
        for metric, panel, marker in (("live_kernels", ax_live, "o"), ("collapsed_kernels", axes[-1], "x")):
            if metric == "collapsed_kernels" and not with_collapsed:
                continue
            per_class = rows[rows["metric"] == metric]
            for j, label in enumerate(sorted(per_class["class"].unique())):
                style = _LINESTYLES[j % len(_LINESTYLES)]
                if label not in [c for c, _ in classes]:
                    classes.append((label, style))
                name = f"class {label}{suffix}" + (" collapsed" if metric == "collapsed_kernels" else "")
                _curve(panel, per_class[per_class["class"] == label], name, f"C{i}", significance_level, style,
                       scale=1.0, marker=marker, band=False)
    ax.axhline(100 * REPORT_DNA_ERROR, color="0.3", linestyle=":", label="report: 20 %")
    ax.set_ylabel("error (%)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Mixture classifier on splice ({table['repeat'].nunique()} repeats; "
                 f"band: {interval_name(confidence_level)})")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax_live.plot(kernels, kernels, color="0.5", linestyle=":", label="all alive")
    ax_live.set_yscale("log", base=2)
    ax_live.set_ylim(bottom=0.8)
    ax_live.set_ylabel("live kernels\nper class")
    if with_collapsed:
        axes[-1].set_ylabel("collapsed kernels\nper class")
        axes[-1].set_ylim(bottom=0)
    # One key for the kernel panels: colour = encoding, line style = class (means over repeats).
    handles = [Line2D([], [], color=colour, label=encoding or "all") for encoding, colour in encodings]
    handles += [Line2D([], [], color="0.2", linestyle=style, label=f"class {label}") for label, style in classes]
    handles.append(Line2D([], [], color="0.5", linestyle=":", label="all alive"))
    ax_live.legend(handles=handles, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _log2_axis(axes[-1], kernels)
    return fig
