"""The posterior of the Bayesian signed-rank test in the probability simplex (Benavoli et al.
2017, figure 6): one triangle per chapter-6 pair of models."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mixlib.figures import new_figure, note_figure

_POSTERIOR = ("question", "model_a", "model_b", "theta_a", "theta_rope", "theta_b")
_PAIRS = ("question", "p_a_better", "p_equivalent", "p_b_better", "rope", "n_datasets")
#: The corners: theta_a (bottom left), theta_rope (top), theta_b (bottom right).
_CORNERS = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])
#: Fewest data sets for which the triangle is drawn. With N data sets the posterior is a
#: Dirichlet over N + 1 atoms (the data sets' differences and the prior's pseudo-observation),
#: so with N < 5 every draw is a mix of at most 5 points, one of them the prior's: the cloud
#: is a few clusters set as much by the prior as by the data (the frequentist signed-rank test
#: cannot reach p < 0.05 two-sided below N = 6 either).
MIN_DATASETS = 5


def simplex_points(thetas: np.ndarray) -> np.ndarray:
    """Barycentric ``(theta_a, theta_rope, theta_b)`` rows (each summing to 1) to plane
    points: ``theta_a`` at (0, 0), ``theta_rope`` at (1/2, sqrt(3)/2), ``theta_b`` at (1, 0)."""
    return np.asarray(thetas, dtype=float) @ _CORNERS


def _check(table: pd.DataFrame, columns, name: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{name} lacks the columns {missing}; it has {list(table.columns)}.")


def few_datasets_note(posterior: pd.DataFrame, pairs: pd.DataFrame) -> str | None:
    """The note in place of the triangles when the pairs were tested on fewer than
    :data:`MIN_DATASETS` data sets, else ``None``.

    Parameters
    ----------
    posterior, pairs : pandas.DataFrame
        As for :func:`bayes_simplex_figure`.

    Returns
    -------
    str or None
        E.g. "Bayesian signed-rank test on 3 data sets (fewer than 5): too few to draw its
        posterior. P(a better, equivalent, b better): mixture vs mlp 0.41, 0.20, 0.39."
    """
    questions = list(pd.unique(posterior["question"]))
    rows = pairs[pairs["question"].isin(questions)]
    n = int(rows["n_datasets"].max())
    if n >= MIN_DATASETS:
        return None
    models = posterior.groupby("question", sort=False)[["model_a", "model_b"]].first()
    probabilities = "; ".join(
        f"{models.at[q, 'model_a']} vs {models.at[q, 'model_b']} {row['p_a_better']:.2f}, "
        f"{row['p_equivalent']:.2f}, {row['p_b_better']:.2f}"
        for q in questions for _, row in rows[rows["question"] == q].head(1).iterrows())
    return (f"Bayesian signed-rank test on {n} data set{'s' * (n != 1)} (fewer than "
            f"{MIN_DATASETS}): too few to draw its posterior. P(a better, equivalent, "
            f"b better): {probabilities}.")


def bayes_simplex_figure(posterior: pd.DataFrame, pairs: pd.DataFrame) -> Figure:
    """Posterior draws of the Bayesian signed-rank test of each chapter-6 pair.

    Parameters
    ----------
    posterior : pandas.DataFrame
        ``comparison_bayes_posterior.tsv``: ``question``, ``model_a``, ``model_b`` and the
        draws ``theta_a``, ``theta_rope``, ``theta_b``.
    pairs : pandas.DataFrame
        ``comparison_bayes.tsv``: its rows with a ``question`` give the probabilities, rope
        and number of data sets of each panel's title.

    Returns
    -------
    matplotlib.figure.Figure
        One triangle per question: every draw a dot; the lines from the centre to the middle
        of each side split the triangle into the three regions where ``theta_a``,
        ``theta_rope`` or ``theta_b`` is the largest, whose shares of the draws are
        ``P(a better)``, ``P(equivalent)`` and ``P(b better)``. With fewer than
        :data:`MIN_DATASETS` data sets, a one-line note in place of the triangles, naming
        the posterior probabilities of each question's pair.
    """
    _check(posterior, _POSTERIOR, "posterior")
    _check(pairs, _PAIRS, "pairs")
    questions = list(pd.unique(posterior["question"]))
    if not questions:
        raise ValueError("the posterior table holds no chapter-6 pair to draw.")
    note = few_datasets_note(posterior, pairs)
    if note is not None:
        return note_figure(note, width=10.0)
    figure, axes = new_figure(1, len(questions), figsize=(4.6 * len(questions), 4.4),
                              squeeze=False)
    centre = _CORNERS.mean(axis=0)
    for ax, question in zip(axes[0], questions):
        draws = posterior[posterior["question"] == question]
        a, b = draws["model_a"].iloc[0], draws["model_b"].iloc[0]
        points = simplex_points(draws[["theta_a", "theta_rope", "theta_b"]].to_numpy())
        ax.fill(*_CORNERS.T, color="0.96", zorder=0)
        ax.plot(*np.vstack([_CORNERS, _CORNERS[:1]]).T, color="0.2", linewidth=1.0)
        for i, j in ((0, 1), (1, 2), (0, 2)):
            middle = (_CORNERS[i] + _CORNERS[j]) / 2
            ax.plot([centre[0], middle[0]], [centre[1], middle[1]], color="0.5",
                    linewidth=0.8, linestyle="--")
        ax.scatter(points[:, 0], points[:, 1], s=3, alpha=0.25, color="C0", linewidths=0)
        row = pairs[pairs["question"] == question].iloc[0]
        # each corner's label under its own corner, the model's name on a line of its own, so
        # that two long names stay apart
        ax.text(-0.03, -0.06, f"{a}\nbetter: P = {row['p_a_better']:.3f}", ha="left", va="top",
                fontsize="small")
        ax.text(1.03, -0.06, f"{b}\nbetter: P = {row['p_b_better']:.3f}", ha="right", va="top",
                fontsize="small")
        ax.text(0.5, _CORNERS[1, 1] + 0.03,
                f"equivalent (|difference| < {row['rope']:g})\nP = {row['p_equivalent']:.3f}",
                ha="center", va="bottom", fontsize="small")
        n_datasets = f"{int(row['n_datasets'])} data sets"
        pair = f"{a} vs {b}"
        ax.set_title(f"{question}\n{n_datasets}" if question == pair
                     else f"{question}\n{pair}, {n_datasets}", pad=34)
        ax.set_xlim(-0.08, 1.08)
        ax.set_ylim(-0.22, _CORNERS[1, 1] + 0.12)
        ax.set_aspect("equal")
        ax.set_axis_off()
    return figure


__all__ = ["MIN_DATASETS", "bayes_simplex_figure", "few_datasets_note", "simplex_points"]
