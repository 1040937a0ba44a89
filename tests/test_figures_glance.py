"""Figures that read at a glance: a note in place of a diagram without power, confusion
matrices in shares of the true class, the SVM grid's refinements inside the heat map,
ensembles in percent with one shared key."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mixlib.figures.bayes_simplex import MIN_DATASETS, bayes_simplex_figure, few_datasets_note
from mixlib.figures.comparison import confusion_figure, confusion_shares
from mixlib.figures.svm_grid import svm_grid


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
    assert not ax.collections and not ax.axison and figure.get_figheight() <= 1.0
    assert " ".join(text.get_text() for text in ax.texts).split() == note.split()
    # from MIN_DATASETS on, the triangles
    posterior, pairs = _bayes_tables(MIN_DATASETS)
    assert few_datasets_note(posterior, pairs) is None
    (ax,) = bayes_simplex_figure(posterior, pairs).axes
    assert len(ax.collections) == 1 and len(ax.collections[0].get_offsets()) == 3


def _confusion_rows(model: str, counts: np.ndarray, n_repeats: int) -> pd.DataFrame:
    classes = ["1.0", "2.0"]
    return pd.DataFrame([{"protocol": "cv", "dataset": "toy", "model": model,
                          "metric": "confusion", "n_repeats": n_repeats,
                          "true_class": classes[i], "predicted_class": classes[j],
                          "value": float(counts[i, j])}
                         for i in range(2) for j in range(2)])


def test_confusion_shares_add_up_to_one_per_true_class_and_counts_are_one_repeats():
    # 3 repeats of 2-fold CV on 10 rows (6 of class 1, 4 of class 2), pooled: 30 test rows
    pooled = np.array([[15.0, 3.0], [2.0, 10.0]])
    shares, counts = confusion_shares(_confusion_rows("knn", pooled, 3), 3)
    np.testing.assert_allclose(shares.sum(axis=1), [1.0, 1.0])
    np.testing.assert_allclose(shares.to_numpy(), [[15 / 18, 3 / 18], [2 / 12, 10 / 12]])
    np.testing.assert_allclose(counts.to_numpy(), pooled / 3)
    assert counts.to_numpy().sum() == 10                     # the data set's rows, once
    np.testing.assert_allclose(counts.sum(axis=1), [6, 4])   # the class sizes
    # a class without test rows has shares 0, not NaN
    empty, _ = confusion_shares(_confusion_rows("knn", np.array([[0.0, 0.0], [1.0, 3.0]]), 1), 1)
    np.testing.assert_allclose(empty.to_numpy(), [[0, 0], [0.25, 0.75]])


def test_confusion_figure_shows_shares_and_one_repeats_counts():
    pooled = np.array([[15.0, 3.0], [2.0, 10.0]])
    table = _confusion_rows("knn", pooled, 3)
    summary = pd.DataFrame({"protocol": ["cv"], "dataset": ["toy"], "split": [""],
                            "model": ["knn"], "approach": ["deterministic"],
                            "family": ["neighbours"], "n_folds": [2], "alpha": [0.05],
                            "cv_error": [5 / 30], "ci_low": [0.1], "ci_high": [0.2]})
    figure = confusion_figure(table, summary, "toy")
    ax = figure.axes[0]
    assert [t.get_text() for t in ax.texts] == ["83 %\n5", "17 %\n1", "17 %\n0.7", "83 %\n3.3"]
    image = ax.get_images()[0].get_array()
    np.testing.assert_allclose(image.sum(axis=1), [100.0, 100.0])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2"]
    assert "count of one repeat (mean of 3)" in figure._suptitle.get_text()


def test_svm_grid_refinement_lies_inside_the_axes():
    # level 0: 3 x 3 points, step 1; the best point sits on its top edge, so level 1 (step
    # 0.5) reaches half a level-0 cell past the coarse grid
    coarse = [(c, s, 0.3 - 0.05 * s) for c in (0.0, 1.0, 2.0) for s in (0.0, 1.0, 2.0)]
    fine = [(c, s, 0.15) for c in (0.5, 1.0, 1.5) for s in (1.5, 2.0, 2.5)]
    grid = pd.DataFrame(
        [{"dataset": "toy", "level": 0, "log10_C": c, "log10_sigma": s, "metric": "cv_error",
          "value": v} for c, s, v in coarse]
        + [{"dataset": "toy", "level": 1, "log10_C": c, "log10_sigma": s, "metric": "cv_error",
            "value": v} for c, s, v in fine])
    best = pd.DataFrame({"log10_C": 1.0, "log10_sigma": 2.0, "class": "all",
                         "metric": ["cv_error", "test_error"], "value": [0.15, 0.2]})
    ax = svm_grid(grid, best).axes[0]
    (x_low, x_high), (y_low, y_high) = ax.get_xlim(), ax.get_ylim()
    # the frame of level 1 (its points +/- 0.25) and every marker inside the axes
    (frame,) = ax.patches
    assert (frame.get_x(), frame.get_y()) == (0.25, 1.25)
    assert (frame.get_width(), frame.get_height()) == (1.5, 1.5)
    assert x_low <= 0.25 and 0.25 + 1.5 <= x_high and y_low <= 1.25 and 1.25 + 1.5 <= y_high
    points = ax.collections[1].get_offsets()
    assert points[:, 1].max() == 2.5 and y_high >= 2.75
    # and no more than that: level 0's cells (-0.5 to 2.5) on the other sides
    assert (x_low, x_high, y_low, y_high) == (-0.5, 2.5, -0.5, 2.75)
