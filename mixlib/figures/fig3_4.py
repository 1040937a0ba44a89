"""Fig. 3.4 of the report: the kernels of each class in the plane of the first two PCs."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from mixlib.figures.semisupervised_rounds import split_panels

_COLUMNS = ("kind", "class", "pc1", "pc2", "sigma", "weight", "collapsed")


def _truth(values: pd.Series) -> pd.Series:
    """``collapsed`` as booleans, whether read as bool, 0/1 or the strings "True"/"False"."""
    return values.astype(str).str.strip().str.lower().isin(("true", "1", "1.0", "yes"))


def fig3_4(kernels: pd.DataFrame) -> Figure:
    """Training points and one circle of radius sigma per kernel, coloured by class, one panel per split.

    Parameters
    ----------
    kernels : pandas.DataFrame
        The ``kernel_map`` table: columns ``split``, ``dataset``, ``kind`` ("kernel" or
        "point"), ``class``, ``kernel``, ``pc1``, ``pc2``, ``sigma``, ``weight``,
        ``n_iter``, ``collapsed`` (True for a kernel that ended at the variance floor while
        alive; False for points). Every row is drawn; ``split`` and ``dataset`` may be
        absent (one panel).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per split (sorted by name; title: split, data set and "c of K kernels at
        the variance floor"). Points as dots; each kernel as a circle of radius ``sigma``
        around its projected centre (a cross in the class colour), the line width growing
        with the kernel's mixing weight; a collapsed kernel's centre is a large black cross.
        Equal axis scales, so circles are round.

    Raises
    ------
    ValueError
        If a needed column (e.g. ``collapsed``) is absent.
    """
    fig, panels = split_panels(kernels, _COLUMNS, "fig3_4", top=0.3, height=5.2)
    for ax, panel, own in panels:
        points = own[own["kind"] == "point"]
        centres = own[own["kind"] == "kernel"]
        collapsed = _truth(centres["collapsed"])
        for i, label in enumerate(sorted(pd.unique(own["class"]), key=str)):
            colour = f"C{i}"
            mine = points[points["class"] == label]
            ax.scatter(mine["pc1"], mine["pc2"], s=8, color=colour, alpha=0.6, label=f"class {label}")
            for row in centres[centres["class"] == label].itertuples():
                ax.add_patch(Circle((row.pc1, row.pc2), row.sigma, fill=False, edgecolor=colour,
                                    linewidth=0.5 + 4.0 * row.weight))
                ax.plot(row.pc1, row.pc2, "x", color=colour)
        if collapsed.any():
            ax.plot(centres.loc[collapsed, "pc1"], centres.loc[collapsed, "pc2"], "x", color="black",
                    markersize=10, markeredgewidth=2, linestyle="none", label="collapsed kernel")
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        ax.set_xlabel("first principal component (units of the features)")
        ax.set_ylabel("second principal component\n(units of the features)")
        heading = f"{panel}: " * bool(panel)
        ax.set_title(f"{heading}{int(collapsed.sum())} of {len(centres)} kernels at the variance floor",
                     fontsize="medium")
        ax.legend(fontsize="small")
    fig.suptitle("Kernels per class: circles of radius sigma")
    return fig
