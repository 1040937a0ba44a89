"""Heat map of the cross-validated SVM error over the refined (log C, log sigma) grids."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from mixlib.figures import new_figure

_MARKERS = ("s", "o", "D", "^", "v")


def svm_grid(grid: pd.DataFrame, best: pd.DataFrame) -> Figure:
    """CV error of every evaluated ``(C, sigma)`` of one data set, levels overlaid.

    Parameters
    ----------
    grid : pandas.DataFrame
        Concatenated tables of :func:`mixlib.experiments.svm.svm_grid_level` for every level
        of ONE data set: columns ``dataset``, ``level``, ``log10_C``, ``log10_sigma``,
        ``metric``, ``value`` (rows with metric ``cv_error`` are drawn).
    best : pandas.DataFrame
        The table of :func:`mixlib.experiments.svm.svm_refit_best` for that data set (the
        ``svm_best`` table): the chosen point's ``log10_C`` and ``log10_sigma``, and the rows
        of ``class == "all"`` with metrics ``cv_error`` and ``test_error``.

    Returns
    -------
    matplotlib.figure.Figure
        Level 0 as a coloured mesh of cells; each finer level as markers with the same colour
        scale inside a dashed rectangle around its cells (its points +/- half its step); the
        axes span every level's cells, grey where level 0 has none; the point chosen in ``best`` starred,
        labelled with its CV error; its test error in the title; colour bar in percent of
        misclassified rows.
    """
    missing = {"dataset", "level", "log10_C", "log10_sigma", "metric", "value"} - set(grid.columns)
    if missing:
        raise ValueError(f"grid lacks column(s) {sorted(missing)}.")
    datasets = grid["dataset"].unique()
    if len(datasets) != 1:
        raise ValueError(f"grid must hold one data set, got {list(datasets)}.")
    errors = grid[grid["metric"] == "cv_error"]
    if errors.empty:
        raise ValueError("grid has no cv_error rows.")
    missing = {"log10_C", "log10_sigma", "class", "metric", "value"} - set(best.columns)
    if missing:
        raise ValueError(f"best lacks column(s) {sorted(missing)}.")
    overall = best[best["class"].astype(str) == "all"].set_index("metric")["value"]
    if "cv_error" not in overall.index:
        raise ValueError(f"best has no cv_error row of class 'all'; metrics: {sorted(overall.index)}.")
    norm = Normalize(vmin=100 * errors["value"].min(), vmax=100 * errors["value"].max())
    fig, ax = new_figure(figsize=(6.4, 5.0))
    mesh, extents = None, []
    for level, part in errors.groupby("level"):
        log_C = np.sort(part["log10_C"].unique())
        log_sigma = np.sort(part["log10_sigma"].unique())
        c_edges, sigma_edges = _edges(log_C), _edges(log_sigma)
        extents.append((c_edges[0], c_edges[-1], sigma_edges[0], sigma_edges[-1]))
        values = (part.pivot_table(index="log10_sigma", columns="log10_C", values="value")
                  .reindex(index=log_sigma, columns=log_C).to_numpy() * 100)
        if level == 0:
            mesh = ax.pcolormesh(c_edges, sigma_edges, values, cmap="viridis", norm=norm,
                                 shading="flat")
            continue
        marker = _MARKERS[(int(level) - 1) % len(_MARKERS)]
        ax.scatter(part["log10_C"], part["log10_sigma"], c=100 * part["value"], cmap="viridis",
                   norm=norm, marker=marker, s=110 / level, edgecolors="white", linewidths=0.8,
                   label=f"level {int(level)}", zorder=3)
        ax.add_patch(Rectangle((c_edges[0], sigma_edges[0]), c_edges[-1] - c_edges[0],
                               sigma_edges[-1] - sigma_edges[0], fill=False, edgecolor="0.35",
                               linestyle="--", linewidth=0.8, zorder=2))
    # every level's cells inside the axes: a refinement around a best point on the edge of
    # the coarse grid reaches past it, where the background (not evaluated at level 0) shows
    extents = np.array(extents)
    ax.set_xlim(extents[:, 0].min(), extents[:, 1].max())
    ax.set_ylim(extents[:, 2].min(), extents[:, 3].max())
    ax.set_facecolor("0.88")
    ax.plot(best["log10_C"].iloc[0], best["log10_sigma"].iloc[0], "*", color="red", markersize=14,
            markeredgecolor="white", label=f"best: {100 * overall['cv_error']:.1f} %", zorder=4)
    fig.colorbar(mesh if mesh is not None else ax.collections[0], ax=ax,
                 label="cross-validated error (%)")
    ax.set_xlabel("log10 C")
    ax.set_ylabel("log10 sigma (Gaussian width, feature units)")
    title = f"SVM grid search on {datasets[0]}"
    if "test_error" in overall.index:
        title += f": test error {100 * overall['test_error']:.1f} %"
    ax.set_title(title)
    ax.grid(False)
    ax.legend(loc="lower right", fontsize="small", facecolor="white", framealpha=0.8,
              frameon=True)
    return fig


def _edges(centres: np.ndarray) -> np.ndarray:
    """Cell edges around equally spaced centres (one centre: +/- 0.5)."""
    step = centres[1] - centres[0] if len(centres) > 1 else 1.0
    return np.concatenate([centres - step / 2, [centres[-1] + step / 2]])
