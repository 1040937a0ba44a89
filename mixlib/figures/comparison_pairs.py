"""The pairwise tests of the comparison as a figure: per data set, the Holm-adjusted p-value of
every pair of models, models ordered by their error."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure

from mixlib.figures import new_figure

_COLUMNS = ("dataset", "model_a", "model_b", "error_a", "error_b", "p_holm", "alpha")
#: p-value classes of the colours: below 0.001, 0.01, significance_level, and the rest.
_COLOURS = ("#08306b", "#2171b5", "#9ecae1", "#f0f0f0")


def pair_matrix(pairs: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """The models of one data set's pairs, best first, and their p-values as a matrix.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Rows of ``comparison_pairs.tsv`` of one data set: ``model_a``, ``model_b``,
        ``error_a``, ``error_b``, ``p_holm``.

    Returns
    -------
    models : list of str
        Sorted by error (the mean of each model's ``error_a``/``error_b``), then by name.
    p : numpy.ndarray of shape (k, k)
        ``p[i, j]`` = ``p_holm`` of the pair of ``models[i]`` and ``models[j]`` (symmetric),
        NaN on the diagonal and for a pair not in the table.
    """
    errors = pd.concat([pairs[["model_a", "error_a"]].set_axis(["model", "error"], axis=1),
                        pairs[["model_b", "error_b"]].set_axis(["model", "error"], axis=1)])
    mean = errors.groupby("model")["error"].mean()
    models = sorted(mean.index, key=lambda model: (mean[model], model))
    where = {model: i for i, model in enumerate(models)}
    p = np.full((len(models), len(models)), np.nan)
    for a, b, value in zip(pairs["model_a"], pairs["model_b"], pairs["p_holm"]):
        p[where[a], where[b]] = p[where[b], where[a]] = value
    return models, p


def _panel_name(key: tuple) -> str:
    protocol, dataset, split = key
    return f"{split} ({dataset}), hold-out" if protocol == "holdout" and split else str(dataset)


def comparison_pairs_figure(pairs: pd.DataFrame) -> Figure:
    """Holm-adjusted p-values of the paired tests of every pair of models, per data set.

    Parameters
    ----------
    pairs : pandas.DataFrame
        ``comparison_pairs.tsv`` (:func:`mixlib.analysis.comparison_stats.comparison_pairs`):
        columns ``dataset``, ``model_a``, ``model_b``, ``error_a``, ``error_b``, ``p_holm``,
        ``alpha`` and, if present, ``protocol`` and ``split`` (one panel per protocol, data
        set and split, in the table's order).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels a row. In each, the lower triangle of :func:`pair_matrix`: models ordered
        by error, best at the top and on the left, so the cell (row i, column j) compares the
        model of row i with a better one; colour = ``p_holm`` in four classes (< 0.001,
        < 0.01, < significance_level, >= significance_level), the p-value printed (".012", "<.001") in the cells below
        significance_level, the pairs that differ significantly. One colour key for all.
    """
    missing = [column for column in _COLUMNS if column not in pairs.columns]
    if missing:
        raise ValueError(f"the pairs table lacks the column(s) {missing}; it has "
                         f"{list(pairs.columns)}.")
    if pairs.empty:
        raise ValueError("the pairs table has no rows to draw.")
    table = pairs.copy()
    for column, default in (("protocol", "cv"), ("split", "")):
        table[column] = (table[column].fillna(default).astype(str) if column in table.columns
                         else default)
    keys = list(table[["protocol", "dataset", "split"]].drop_duplicates()
                .itertuples(index=False, name=None))
    significance_level = float(table["alpha"].iloc[0])
    k = max(len(pair_matrix(table[(table[["protocol", "dataset", "split"]]
                                   .apply(tuple, axis=1) == key)])[0]) for key in keys)
    ncols = min(2, len(keys))
    nrows = -(-len(keys) // ncols)
    side = 1.6 + 0.3 * k
    fig, axes = new_figure(nrows, ncols, figsize=(side * ncols + 0.8, side * nrows),
                           squeeze=False)
    cmap = ListedColormap(_COLOURS)
    norm = BoundaryNorm([0.0, 0.001, 0.01, significance_level, 1.0], cmap.N)
    image = None
    for ax, key in zip(axes.flat, keys):
        part = table[table[["protocol", "dataset", "split"]].apply(tuple, axis=1) == key]
        models, p = pair_matrix(part)
        lower = np.where(np.tril(np.ones_like(p, dtype=bool), k=-1), p, np.nan)
        image = ax.imshow(np.ma.masked_invalid(lower), cmap=cmap, norm=norm)
        for i, j in zip(*np.nonzero(lower < significance_level)):
            ax.text(j, i, "<.001" if lower[i, j] < 0.001 else f"{lower[i, j]:.3f}"[1:],
                    ha="center", va="center", fontsize=5.5,
                    color="white" if lower[i, j] < 0.01 else "black")
        n = len(models)
        ax.set_xticks(range(n - 1), models[:-1], rotation=90, fontsize="x-small")
        ax.set_yticks(range(1, n), models[1:], fontsize="x-small")
        ax.set_xlim(-0.5, n - 1.5)
        ax.set_ylim(n - 0.5, 0.5)
        ax.grid(False)
        ax.spines[["left", "bottom"]].set_visible(False)
        ax.tick_params(length=0)
        ax.set_title(_panel_name(key), fontsize="medium")
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    bar = fig.colorbar(image, ax=axes, shrink=0.6, ticks=[0.0005, 0.005, (0.01 + significance_level) / 2,
                                                          (significance_level + 1) / 2])
    bar.ax.set_yticklabels(["< 0.001", "< 0.01", f"< {significance_level:g}", f">= {significance_level:g}"])
    bar.set_label("p-value, Holm-adjusted per data set")
    fig.suptitle("Pairs of models per data set (models by error, best first)",
                 fontsize="medium")
    return fig


__all__ = ["comparison_pairs_figure", "pair_matrix"]
