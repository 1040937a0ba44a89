"""Figures that read at a glance: a note in place of a diagram without power, confusion
matrices in shares of the true class, the SVM grid's refinements inside the heat map,
ensembles in percent with one shared key."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mixlib.figures.bayes_simplex import MIN_DATASETS, bayes_simplex_figure, few_datasets_note


def _bayes_tables(n_datasets: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    posterior = pd.DataFrame({
        "question": ["mixture vs mlp"] * 3, "model_a": ["mixture"] * 3, "model_b": ["mlp"] * 3,
        "theta_a": [0.2, 0.1, 0.3], "theta_rope": [0.3, 0.2, 0.1], "theta_b": [0.5, 0.7, 0.6]})
    pairs = pd.DataFrame({
        "question": ["mixture vs mlp", ""], "model_a": ["mixture", "knn"],
        "model_b": ["mlp", "mlp"], "p_a_better": [0.123, 0.5], "p_equivalent": [0.2, 0.2],
        "p_b_better": [0.677, 0.3], "rope": [0.01, 0.01], "n_datasets": n_datasets})
    return posterior, pairs


def test_bayes_posterior_on_too_few_data_sets_gives_way_to_a_note():
    posterior, pairs = _bayes_tables(MIN_DATASETS - 1)
    note = few_datasets_note(posterior, pairs)
    assert note == ("Bayesian signed-rank test on 4 data sets (fewer than 5): too few to draw "
                    "its posterior. P(a better, equivalent, b better): mixture vs mlp 0.12, "
                    "0.20, 0.68.")
    figure = bayes_simplex_figure(posterior, pairs)
    (ax,) = figure.axes
    assert not ax.collections and not ax.axison and figure.get_figheight() < 1.0
    assert " ".join(text.get_text() for text in ax.texts).split() == note.split()
    # from MIN_DATASETS on, the triangles
    posterior, pairs = _bayes_tables(MIN_DATASETS)
    assert few_datasets_note(posterior, pairs) is None
    (ax,) = bayes_simplex_figure(posterior, pairs).axes
    assert len(ax.collections) == 1 and len(ax.collections[0].get_offsets()) == 3
