"""Figure of the data summary: class counts and missing cells of every data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure


def draw_data_summary(summary: pd.DataFrame) -> Figure:
    """Class shares with counts (left) and the features with missing cells (right), per data set.

    Parameters
    ----------
    summary : pandas.DataFrame
        The ``data_summary`` table (``dataset``, ``quantity``, ``item``, ``value``).
    """
    datasets = list(dict.fromkeys(summary["dataset"]))
    figure, (ax_classes, ax_missing) = new_figure(1, 2, figsize=(9.0, 3.2 + 0.25 * len(datasets)))
    counts = summary[summary["quantity"] == "class_count"]
    y_labels, offsets = [], []
    position = 0.0
    for name in datasets:
        rows = counts[counts["dataset"] == name]
        left = 0.0
        n_rows = int(summary.loc[(summary["dataset"] == name) & (summary["quantity"] == "rows"), "value"].iloc[0])
        n_features = int(summary.loc[(summary["dataset"] == name) & (summary["quantity"] == "features"), "value"].iloc[0])
        for label, value in zip(rows["item"], rows["value"]):
            share = value / n_rows
            ax_classes.barh(position, share, left=left, height=0.6, edgecolor="white")
            ax_classes.text(left + share / 2, position, f"{label}\n{value}", ha="center", va="center", fontsize=7)
            left += share
        y_labels.append(f"{name}\n{n_rows} rows x {n_features} features")
        offsets.append(position)
        position += 1.0
    ax_classes.set_yticks(offsets, y_labels)
    ax_classes.invert_yaxis()
    ax_classes.set_xlabel("share of rows (labels: class, count)")
    ax_classes.set_xlim(0, 1)
    ax_classes.set_title("Class counts")

    missing = summary[(summary["quantity"] == "missing_cells") & (summary["value"] > 0)]
    if missing.empty:
        ax_missing.text(0.5, 0.5, "no missing cells", ha="center", va="center", transform=ax_missing.transAxes)
        ax_missing.set_xticks([])
        ax_missing.set_yticks([])
    else:
        labels = [f"{d}: {f}" for d, f in zip(missing["dataset"], missing["item"])]
        ax_missing.barh(np.arange(len(missing)), missing["value"].to_numpy(), color="0.4")
        ax_missing.set_yticks(np.arange(len(missing)), labels)
        ax_missing.invert_yaxis()
        ax_missing.set_xlabel("missing cells")
    ax_missing.set_title("Missing cells per feature")
    return figure
