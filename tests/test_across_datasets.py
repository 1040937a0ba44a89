"""Tests of two models across data sets: the Wilcoxon signed-rank test against
Demšar's (2006) worked example and scipy, the Bayesian signed-rank test against baycomp, the
tables of every pair and the posterior figure."""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
import pandas as pd
import pytest
from scipy import stats

from mixlib.analysis.comparison_across import (
    POSTERIOR_DRAWS_KEPT, chapter6_pairs, comparison_bayes, comparison_wilcoxon, dataset_errors,
)
from mixlib.figures.bayes_simplex import bayes_simplex_figure, simplex_points
from mixlib.model_selection.across_datasets import (
    bayesian_signed_rank, signed_rank_posterior, wilcoxon_signed_rank,
)

# Demšar (2006), table 2: AUC of C4.5 (m = 0) and C4.5 with m tuned, on 14 UCI data sets.
C45 = np.array([0.763, 0.599, 0.954, 0.628, 0.882, 0.936, 0.661, 0.583, 0.775, 1.000, 0.940,
                0.619, 0.972, 0.957])
C45_M = np.array([0.768, 0.591, 0.971, 0.661, 0.888, 0.931, 0.668, 0.583, 0.838, 1.000, 0.962,
                  0.666, 0.981, 0.978])
# ... and the table's difference column (C4.5+m - C4.5), exact to the printed digits
DIFFERENCE = np.array([0.005, -0.008, 0.017, 0.033, 0.006, -0.005, 0.007, 0.000, 0.063, 0.000,
                       0.022, 0.047, 0.009, 0.021])


def test_wilcoxon_reproduces_demsar_worked_example():
    """Demšar section 3.1.3: R+ = 93, R- = 12, T = 12 < 21 (the critical value for N = 14 at
    0.05), z = -2.54: C4.5+m is better. Errors a - b = DIFFERENCE: a is C4.5."""
    result = wilcoxon_signed_rank(DIFFERENCE, np.zeros(14))
    assert (result.rank_sum_b, result.rank_sum_a, result.statistic) == (93.0, 12.0, 12.0)
    assert (result.wins, result.losses, result.ties) == (2, 10, 2)
    z = (12 - 14 * 15 / 4) / np.sqrt(14 * 15 * 29 / 24)
    assert z == pytest.approx(-2.54, abs=0.005)
    assert result.p_value == pytest.approx(
        stats.wilcoxon(DIFFERENCE, zero_method="zsplit").pvalue, rel=1e-12)
    assert 0.005 < result.p_value < 0.05


def test_wilcoxon_is_symmetric_and_exact_without_ties():
    rng = np.random.default_rng(0)
    a, b = rng.random(12), rng.random(12)
    ab, ba = wilcoxon_signed_rank(a, b), wilcoxon_signed_rank(b, a)
    assert (ab.rank_sum_a, ab.rank_sum_b) == (ba.rank_sum_b, ba.rank_sum_a)
    assert ab.p_value == ba.p_value
    assert ab.p_value == pytest.approx(stats.wilcoxon(a - b, method="exact").pvalue)
    assert ab.rank_sum_a + ab.rank_sum_b == 12 * 13 / 2
    assert wilcoxon_signed_rank(a, a).p_value == 1.0
    with pytest.raises(ValueError, match="pair up by data set"):
        wilcoxon_signed_rank(a, b[:5])


def test_bayesian_posterior_equals_baycomp_draw_for_draw():
    """baycomp 1.0.3 ``SignedRankTest.sample(C45, C45_M, rope=0.01, random_state=1)`` draws
    its Dirichlet weights from ``numpy.random.RandomState(1)``; its first three rows (computed
    once with baycomp, hard-coded here) follow from the same weights."""
    weights = np.random.RandomState(1).dirichlet(np.r_[0.5, np.ones(14)], 3)
    thetas = signed_rank_posterior((1 - C45) - (1 - C45_M), weights, rope=0.01)
    np.testing.assert_allclose(thetas, [[0.0, 0.26113481, 0.73886519],
                                        [0.0, 0.27245829, 0.72754171],
                                        [0.0, 0.66370046, 0.33629954]], atol=1e-8)


@pytest.mark.parametrize("rope, reference", [
    # baycomp 1.0.3 SignedRankTest.probs(C45, C45_M, rope, random_state=1), 50 000 draws
    (0.01, (0.0, 0.33084, 0.66916)),
    (0.0, (0.00088, 0.0, 0.99912)),
])
def test_bayesian_probabilities_agree_with_baycomp(rope, reference):
    result = bayesian_signed_rank(1 - C45, 1 - C45_M, rope, rng=np.random.default_rng(2026))
    probabilities = (result.p_a_better, result.p_equivalent, result.p_b_better)
    np.testing.assert_allclose(probabilities, reference, atol=0.01)  # Monte Carlo: sd < 0.003
    assert sum(probabilities) == pytest.approx(1.0)
    np.testing.assert_allclose(result.samples.sum(axis=1), 1.0)
    assert result.n_datasets == 14 and result.samples.shape == (50_000, 3)


def test_bayesian_test_is_seeded_and_swaps_with_the_models():
    rng = np.random.default_rng(1)
    a, b = rng.random(10) * 0.3, rng.random(10) * 0.3
    first = bayesian_signed_rank(a, b, 0.02, n_samples=2000, rng=7)
    again = bayesian_signed_rank(a, b, 0.02, n_samples=2000, rng=7)
    swapped = bayesian_signed_rank(b, a, 0.02, n_samples=2000, rng=7)
    np.testing.assert_array_equal(first.samples, again.samples)
    np.testing.assert_allclose(swapped.samples, first.samples[:, ::-1])
    clear = bayesian_signed_rank(a, a + 0.1, 0.01, n_samples=2000, rng=0)
    assert clear.p_a_better > 0.99
    same = bayesian_signed_rank(a, a + 0.001, 0.01, n_samples=2000, rng=0)
    assert same.p_equivalent > 0.99
    with pytest.raises(ValueError, match="rope"):
        bayesian_signed_rank(a, b, -0.1)


def comparison_table(errors: dict[str, list[float]], approach: dict[str, str]) -> pd.DataFrame:
    rows = [{"protocol": "cv", "dataset": f"d{i}", "split": None, "n_repeats": 1,
             "group_duplicates": "no", "model": model, "approach": approach[model],
             "metric": "cv_error", "value": value, "alpha": 0.05}
            for model, values in errors.items() for i, value in enumerate(values)]
    return pd.DataFrame(rows)


ERRORS = {"mixture": [0.30, 0.20, 0.25, 0.40, 0.10, 0.33],
          "naive_bayes": [0.20, 0.22, 0.15, 0.35, 0.12, 0.30],
          "mlp": [0.10, 0.12, 0.14, 0.20, 0.05, 0.21],
          "knn": [0.15, 0.14, 0.18, 0.26, 0.09, 0.22]}
APPROACH = {"mixture": "probabilistic", "naive_bayes": "probabilistic", "mlp": "deterministic",
            "knn": "deterministic"}


def test_wilcoxon_table_has_every_pair_and_holm_over_them():
    pairs = comparison_wilcoxon(comparison_table(ERRORS, APPROACH))
    assert len(pairs) == 6 and list(pairs[["model_a", "model_b"]].iloc[0]) == ["mixture",
                                                                               "naive_bayes"]
    row = pairs[(pairs.model_a == "mixture") & (pairs.model_b == "mlp")].iloc[0]
    assert row.n_datasets == 6 and row.wins_b == 6 and row.rank_sum_a == 0
    assert row.p_value == pytest.approx(stats.wilcoxon(np.subtract(ERRORS["mixture"],
                                                                    ERRORS["mlp"])).pvalue)
    assert np.all(pairs.p_holm >= pairs.p_value) and np.all(pairs.p_holm <= 1)
    assert row.mean_difference == pytest.approx(np.mean(np.subtract(ERRORS["mixture"],
                                                                     ERRORS["mlp"])))


def test_bayes_table_marks_the_chapter6_pairs_and_keeps_their_draws():
    table = comparison_table(ERRORS, APPROACH)
    errors, approach = dataset_errors(table)
    assert chapter6_pairs(errors, approach) == {
        "mixture vs mlp": ("mixture", "mlp"),
        "best probabilistic vs best deterministic": ("naive_bayes", "mlp")}
    pairs, posterior = comparison_bayes(table, rope=0.01, prior_strength=0.5, n_samples=4000,
                                        seed=3)
    assert len(pairs) == 6
    marked = pairs[pairs.question != ""].set_index("question")
    assert marked.loc["mixture vs mlp", "p_b_better"] > 0.9
    assert list(marked.loc["best probabilistic vs best deterministic",
                           ["model_a", "model_b"]]) == ["naive_bayes", "mlp"]
    assert len(posterior) == 2 * min(POSTERIOR_DRAWS_KEPT, 4000)
    again, _ = comparison_bayes(table, rope=0.01, prior_strength=0.5, n_samples=4000, seed=3)
    pd.testing.assert_frame_equal(pairs, again)
    figure = bayes_simplex_figure(posterior, pairs)
    assert len(figure.axes) == 2


def test_a_missing_cell_is_named():
    table = comparison_table(ERRORS, APPROACH)
    table = table[~((table.model == "knn") & (table.dataset == "d2"))]
    with pytest.raises(ValueError, match=r"lacks cv_error for \['knn on d2'\]"):
        comparison_wilcoxon(table)


def test_simplex_corners():
    np.testing.assert_allclose(simplex_points(np.eye(3)),
                               [[0, 0], [0.5, np.sqrt(3) / 2], [1, 0]])


def test_wilcoxon_one_sided_p_values_are_scipys():
    a = C45 - C45_M
    for alternative in ("greater", "less"):
        result = wilcoxon_signed_rank(1 - C45, 1 - C45_M, alternative=alternative)
        assert result.p_value == pytest.approx(
            stats.wilcoxon(a * -1, zero_method="zsplit", alternative=alternative).pvalue, rel=1e-12)
    # C4.5+m is better: the errors of C4.5 are "greater"
    assert wilcoxon_signed_rank(1 - C45, 1 - C45_M, alternative="greater").p_value < 0.01
    assert wilcoxon_signed_rank(1 - C45, 1 - C45_M, alternative="less").p_value > 0.9
    with pytest.raises(ValueError, match="alternative"):
        wilcoxon_signed_rank(C45, C45_M, alternative="both")


def test_simplex_labels_stay_apart_with_long_model_names():
    """The suite's best-by-rank pair (logistic_regression vs random_forest) once printed its
    two corner labels over each other, and a pair whose question is its own name printed the
    pair twice in the title."""
    posterior = pd.DataFrame({
        "question": ["best probabilistic vs best deterministic"] * 3 + ["mixture vs mlp"] * 3,
        "model_a": ["logistic_regression"] * 3 + ["mixture"] * 3,
        "model_b": ["random_forest"] * 3 + ["mlp"] * 3,
        "theta_a": [0.2, 0.1, 0.3] * 2, "theta_rope": [0.3, 0.2, 0.1] * 2,
        "theta_b": [0.5, 0.7, 0.6] * 2})
    pairs = pd.DataFrame({
        "question": ["best probabilistic vs best deterministic", "mixture vs mlp"],
        "p_a_better": [0.002, 0.0], "p_equivalent": [0.09, 0.001], "p_b_better": [0.907, 0.999],
        "rope": [0.01, 0.01], "n_datasets": [21, 21]})
    figure = bayes_simplex_figure(posterior, pairs)
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    for ax in figure.axes:
        boxes = [text.get_window_extent(renderer) for text in ax.texts]
        for i, first in enumerate(boxes):
            for second in boxes[i + 1:]:
                assert not first.overlaps(second), [t.get_text() for t in ax.texts]
    titles = [ax.get_title() for ax in figure.axes]
    assert titles == ["best probabilistic vs best deterministic\n"
                      "logistic_regression vs random_forest, 21 data sets",
                      "mixture vs mlp\n21 data sets"]
