"""Fig. 3.4 of the report: the kernels of each class in the plane of the first two PCs."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from mixlib.figures import new_figure


def fig3_4(kernels: pd.DataFrame) -> Figure:
    """Training points and one circle of radius sigma per kernel, coloured by class.

    Parameters
    ----------
    kernels : pandas.DataFrame
        The table of :func:`mixlib.experiments.mixture.kernel_map`: columns ``kind``
        ("kernel" or "point"), ``class``, ``pc1``, ``pc2``, ``sigma``, ``weight``.

    Returns
    -------
    matplotlib.figure.Figure
        Points as dots; each kernel as a circle of radius ``sigma`` around its projected
        centre (a cross), the line width growing with the kernel's mixing weight. Equal axis
        scales, so circles are round.
    """
    fig, ax = new_figure(figsize=(6.0, 5.5))
    points = kernels[kernels["kind"] == "point"]
    centres = kernels[kernels["kind"] == "kernel"]
    for i, label in enumerate(pd.unique(kernels["class"])):
        colour = f"C{i}"
        own = points[points["class"] == label]
        ax.scatter(own["pc1"], own["pc2"], s=8, color=colour, alpha=0.6, label=f"class {label}")
        for row in centres[centres["class"] == label].itertuples():
            ax.add_patch(Circle((row.pc1, row.pc2), row.sigma, fill=False, edgecolor=colour,
                                linewidth=0.5 + 4.0 * row.weight))
            ax.plot(row.pc1, row.pc2, "x", color=colour)
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    ax.set_xlabel("first principal component (units of the features)")
    ax.set_ylabel("second principal component (units of the features)")
    ax.set_title("Kernels per class: circles of radius sigma")
    ax.legend()
    return fig
