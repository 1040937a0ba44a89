"""Significance tests against hand computations, scipy and Demšar's (2006) worked example."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mixlib.model_selection.significance import (average_ranks, corrected_resampled_ttest,
                                                 friedman_test, holm,
                                                 nemenyi_critical_difference, pairwise_tests,
                                                 rank_table)

#: Demšar (2006, JMLR 7), Table 6: AUC of C4.5, C4.5+m, C4.5+cf and C4.5+m+cf on 14 UCI data
#: sets. On voting the paper prints 0.975 for both C4.5+cf and C4.5+m+cf but ranks them 2 and
#: 3 (the unrounded AUCs differ), so the tie is broken here as 0.9751 / 0.9749.
DEMSAR_MODELS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798],     # adult (sample)
    [0.599, 0.591, 0.590, 0.569],     # breast cancer
    [0.954, 0.971, 0.968, 0.967],     # breast cancer wisconsin
    [0.628, 0.661, 0.654, 0.657],     # cmc
    [0.882, 0.888, 0.886, 0.898],     # ionosphere
    [0.936, 0.931, 0.916, 0.931],     # iris
    [0.661, 0.668, 0.609, 0.685],     # liver disorders
    [0.583, 0.583, 0.563, 0.625],     # lung cancer
    [0.775, 0.838, 0.866, 0.875],     # lymphography
    [1.000, 1.000, 1.000, 1.000],     # mushroom
    [0.940, 0.962, 0.965, 0.962],     # primary tumor
    [0.619, 0.666, 0.614, 0.669],     # rheum
    [0.972, 0.981, 0.9751, 0.9749],   # voting
    [0.957, 0.978, 0.946, 0.970],     # wine
])
#: The ranks the paper prints in parentheses in Table 6.
DEMSAR_RANKS = np.array([
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1], [1, 2.5, 4, 2.5],
    [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1], [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5],
    [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2]])

#: Demšar's Table 5(a): q_alpha of the two-tailed Nemenyi test for k = 2 .. 10 models.
DEMSAR_Q = {0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
            0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]}


# ----------------------------------------------------------------- corrected resampled t-test
def test_corrected_ttest_matches_hand_computation():
    a = np.array([0.10, 0.12, 0.08, 0.11, 0.09, 0.13])
    b = np.array([0.08, 0.11, 0.09, 0.07, 0.08, 0.10])
    d = a - b   # 0.02, 0.01, -0.01, 0.04, 0.01, 0.03
    mean, var = d.sum() / 6, np.sum((d - d.sum() / 6) ** 2) / 5
    t = mean / math.sqrt((1 / 6 + 20 / 80) * var)
    result = corrected_resampled_ttest(a, b, n_train=80, n_test=20)
    assert result.mean_difference == pytest.approx(0.01666666666, rel=1e-9)
    assert result.statistic == pytest.approx(t, rel=1e-12)
    assert result.df == 5
    assert result.p_value == pytest.approx(2 * stats.t.sf(abs(t), 5), rel=1e-12)
    # by hand: sum d^2 = 0.0032, (sum d)^2 / J = 0.01 / 6, s^2 = (0.0032 - 0.01/6) / 5 = 0.0046/15
    assert var == pytest.approx(0.0046 / 15, rel=1e-9)
    assert result.statistic == pytest.approx(
        (1 / 60) / math.sqrt((1 / 6 + 0.25) * 0.0046 / 15), rel=1e-9)
    assert result.statistic == pytest.approx(1.4744, abs=1e-4)


def test_corrected_ttest_without_correction_is_the_paired_ttest():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.1, 0.3, 10), rng.uniform(0.1, 0.3, 10)
    naive = stats.ttest_rel(a, b)
    result = corrected_resampled_ttest(a, b, n_train=90, n_test=0)
    assert result.statistic == pytest.approx(naive.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(naive.pvalue, rel=1e-10)


@pytest.mark.parametrize("ratio", [0.05, 0.25, 1.0])
def test_corrected_ttest_is_more_conservative_than_the_paired_ttest(ratio):
    rng = np.random.default_rng(7)
    a = rng.uniform(0.1, 0.3, 10)
    b = a - 0.02 + rng.normal(0, 0.01, 10)
    naive = stats.ttest_rel(a, b)
    result = corrected_resampled_ttest(a, b, n_train=100, n_test=100 * ratio)
    assert 0 < result.statistic < naive.statistic
    assert result.p_value > naive.pvalue
    # the variance is inflated by exactly (1/J + ratio) / (1/J)
    assert (naive.statistic / result.statistic) ** 2 == pytest.approx(1 + 10 * ratio)


def test_corrected_ttest_is_antisymmetric():
    a, b = [0.2, 0.25, 0.22, 0.3], [0.1, 0.2, 0.24, 0.2]
    ab = corrected_resampled_ttest(a, b, n_train=30, n_test=10)
    ba = corrected_resampled_ttest(b, a, n_train=30, n_test=10)
    assert ab.statistic == pytest.approx(-ba.statistic)
    assert ab.p_value == pytest.approx(ba.p_value)


def test_corrected_ttest_zero_variance():
    same = corrected_resampled_ttest([0.1, 0.2, 0.3], [0.1, 0.2, 0.3], n_train=20, n_test=10)
    assert (same.statistic, same.p_value, same.mean_difference) == (0.0, 1.0, 0.0)
    # a constant difference, with the rounding of 0.3 - 0.1 != 0.5 - 0.3 in floating point
    worse = corrected_resampled_ttest([0.3, 0.5, 0.4], [0.1, 0.3, 0.2], n_train=20, n_test=10)
    assert worse.statistic == math.inf and worse.p_value == 0.0
    assert worse.mean_difference == pytest.approx(0.2)
    better = corrected_resampled_ttest([0.1, 0.3, 0.2], [0.3, 0.5, 0.4], n_train=20, n_test=10)
    assert better.statistic == -math.inf and better.p_value == 0.0


@pytest.mark.parametrize("a, b, kwargs, match", [
    ([0.1], [0.2], {}, "at least 2 folds"),
    ([0.1, 0.2], [0.2, 0.3, 0.1], {}, "same length"),
    ([0.1, np.nan], [0.2, 0.3], {}, "finite"),
    ([[0.1, 0.2]], [[0.2, 0.3]], {}, "1-d"),
    ([0.1, 0.2], [0.2, 0.3], {"n_train": 0}, "n_train"),
    ([0.1, 0.2], [0.2, 0.3], {"n_test": -1}, "n_test"),
])
def test_corrected_ttest_rejects_bad_input(a, b, kwargs, match):
    sizes = {"n_train": 80, "n_test": 20} | kwargs
    with pytest.raises(ValueError, match=match):
        corrected_resampled_ttest(a, b, **sizes)


# ----------------------------------------------------------------------------------- Holm
def test_holm_hand_computation_in_input_order():
    p = [0.04, 0.01, 0.03, 0.5]
    # sorted 0.01, 0.03, 0.04, 0.5 -> 4*0.01, 3*0.03, 2*0.04, 1*0.5 = 0.04, 0.09, 0.08, 0.5
    # -> running maximum 0.04, 0.09, 0.09, 0.5
    np.testing.assert_allclose(holm(p), [0.09, 0.04, 0.09, 0.5])


def test_holm_on_demsar_example_and_cap():
    # Demšar (2006) 3.2.2: p = 0.016, 0.019, 0.607 against C4.5; Holm rejects the first two
    adjusted = holm([0.016, 0.019, 0.607])
    np.testing.assert_allclose(adjusted, [0.048, 0.048, 0.607])
    assert list(adjusted < 0.05) == [True, True, False]
    np.testing.assert_allclose(holm([0.6, 0.7]), [1.0, 1.0])
    assert holm([]).shape == (0,)


@pytest.mark.parametrize("p", [[0.1, 1.2], [-0.1, 0.5], [0.1, np.nan]])
def test_holm_rejects_bad_p_values(p):
    with pytest.raises(ValueError, match="p_values"):
        holm(p)


# ------------------------------------------------------------------ ranks, Friedman, Nemenyi
def test_average_ranks_reproduce_demsar_table_6():
    ranks, mean_ranks = average_ranks(1 - DEMSAR_AUC)
    np.testing.assert_array_equal(ranks, DEMSAR_RANKS)
    np.testing.assert_allclose(mean_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)


def test_friedman_reproduces_demsar_example():
    result = friedman_test(1 - DEMSAR_AUC)
    assert round(result.chi2, 2) == 9.28
    assert round(result.f_statistic, 2) == 3.69
    assert (result.df_numerator, result.df_denominator) == (3, 39)
    # F(3, 39) critical value 2.85 at 0.05: Demšar rejects the null hypothesis
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert result.f_p_value < 0.05
    assert result.chi2_p_value == pytest.approx(stats.chi2.sf(result.chi2, 3))


def test_friedman_from_published_mean_ranks_only():
    # chi2_F and F_F depend on the data through the mean ranks only: Demšar's own arithmetic
    R = np.array([3.143, 2.000, 2.893, 1.964])
    chi2 = 12 * 14 / (4 * 5) * (np.sum(R ** 2) - 4 * 5 ** 2 / 4)
    assert friedman_test(1 - DEMSAR_AUC).chi2 == pytest.approx(chi2, abs=0.01)


def test_friedman_chi2_equals_scipy_without_ties():
    rng = np.random.default_rng(11)
    errors = rng.uniform(0, 1, (9, 5))
    ours = friedman_test(errors)
    scipy_result = stats.friedmanchisquare(*errors.T)
    assert ours.chi2 == pytest.approx(scipy_result.statistic, rel=1e-12)
    assert ours.chi2_p_value == pytest.approx(scipy_result.pvalue, rel=1e-10)


def test_friedman_chi2_is_below_scipy_with_ties():
    # scipy divides by the tie correction 1 - sum(t^3 - t) / (N k (k^2 - 1)); Demšar does not
    errors = 1 - DEMSAR_AUC
    ours = friedman_test(errors).chi2
    theirs = stats.friedmanchisquare(*errors.T).statistic
    ties = 3 * (2 ** 3 - 2) + (4 ** 3 - 4)   # iris, lung cancer, primary tumor; mushroom
    assert theirs == pytest.approx(ours / (1 - ties / (14 * 4 * 15)), rel=1e-12)
    assert theirs > ours


def test_friedman_perfect_agreement_gives_infinite_f():
    errors = np.tile([0.1, 0.2, 0.3], (4, 1))
    result = friedman_test(errors)
    assert result.chi2 == pytest.approx(4 * 2)   # the maximum N (k - 1)
    assert result.f_statistic == math.inf and result.f_p_value == 0.0
    equal = friedman_test(np.full((3, 3), 0.2))
    assert equal.chi2 == 0.0 and equal.f_statistic == 0.0 and equal.f_p_value == 1.0


@pytest.mark.parametrize("errors, match", [
    (np.ones((1, 3)), "at least 2 data sets"),
    (np.ones((5, 1)), "at least 2 models"),
    (np.ones(5), "2-d"),
    (np.array([[0.1, np.nan], [0.2, 0.3]]), "finite"),
])
def test_friedman_rejects_bad_input(errors, match):
    with pytest.raises(ValueError, match=match):
        friedman_test(errors)


@pytest.mark.parametrize("significance_level", [0.05, 0.10])
def test_nemenyi_q_matches_demsar_table_5a(significance_level):
    # Demšar's third decimals are truncated or rounded inconsistently (2.343 for 2.3437,
    # 2.949 for 2.9483): they agree with the studentized range to 1e-3, not to rounding
    for k, q in zip(range(2, 11), DEMSAR_Q[significance_level]):
        cd = nemenyi_critical_difference(k, 6, significance_level)
        assert cd / math.sqrt(k * (k + 1) / 36) == pytest.approx(q, abs=1.0001e-3)


def test_nemenyi_cd_of_demsar_example():
    assert round(nemenyi_critical_difference(4, 14, 0.05), 2) == 1.25
    assert round(nemenyi_critical_difference(4, 14, 0.10), 2) == 1.12


@pytest.mark.parametrize("args, match", [((1, 5), "n_models"), ((3, 0), "n_datasets"),
                                         ((3, 5, 1.5), "significance_level"), ((2.5, 5), "n_models")])
def test_nemenyi_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        nemenyi_critical_difference(*args)


# ------------------------------------------------------------------------------- tables
def demsar_table() -> pd.DataFrame:
    names = [f"data{i:02d}" for i in range(len(DEMSAR_AUC))]
    return pd.DataFrame([{"dataset": d, "model": m, "error": 1 - auc}
                         for d, row in zip(names, DEMSAR_AUC)
                         for m, auc in zip(DEMSAR_MODELS, row)])


def test_rank_table_on_demsar_example():
    table = rank_table(demsar_table())
    assert list(table["model"]) == ["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]
    np.testing.assert_allclose(table["mean_rank"], [1.964, 2.000, 2.893, 3.143], atol=5e-4)
    first = table.iloc[0]
    assert (first["n_datasets"], first["n_models"]) == (14, 4)
    assert round(first["friedman_chi2"], 2) == 9.28
    assert round(first["iman_davenport_f"], 2) == 3.69
    assert round(first["critical_difference"], 2) == 1.25
    assert table["friedman_p"].nunique() == 1


def test_rank_table_averages_fold_rows_and_checks_cells():
    folds = pd.DataFrame({"dataset": ["x"] * 4 + ["y"] * 4,
                          "model": ["a", "a", "b", "b"] * 2,
                          "error": [0.1, 0.3, 0.3, 0.3, 0.5, 0.4, 0.2, 0.3]})
    table = rank_table(folds).set_index("model")
    # x: a 0.2 < b 0.3; y: b 0.25 < a 0.45 -> both mean rank 1.5
    assert table.loc["a", "mean_rank"] == table.loc["b", "mean_rank"] == 1.5
    with pytest.raises(ValueError, match=r"b on y"):
        rank_table(folds.iloc[:-2])
    with pytest.raises(ValueError, match="columns"):
        rank_table(folds.drop(columns="error"))


def fold_table(rng, n_repeats=2, n_folds=5) -> pd.DataFrame:
    rows = []
    for dataset, shift in (("wine", 0.0), ("splice", 0.05)):
        for repeat in range(n_repeats):
            for fold in range(n_folds):
                base = rng.uniform(0.1, 0.2)
                for model, offset in (("mlp", 0.0), ("mixture", 0.05 + shift), ("svm", 0.001)):
                    rows.append({"dataset": dataset, "model": model, "repeat": repeat,
                                 "fold": fold, "error": base + offset + rng.normal(0, 0.01)})
    return pd.DataFrame(rows)


def test_pairwise_tests_per_dataset():
    folds = fold_table(np.random.default_rng(5))
    table = pairwise_tests(folds, n_train=160, n_test=40)
    assert len(table) == 6
    assert list(table[["model_a", "model_b"]].drop_duplicates().itertuples(index=False)) == [
        ("mlp", "mixture"), ("mlp", "svm"), ("mixture", "svm")]
    wine = table[table["dataset"] == "wine"].set_index(["model_a", "model_b"])
    part = folds[folds["dataset"] == "wine"]
    a = part[part["model"] == "mlp"]["error"].to_numpy()
    b = part[part["model"] == "mixture"]["error"].to_numpy()
    direct = corrected_resampled_ttest(a, b, n_train=160, n_test=40)
    row = wine.loc[("mlp", "mixture")]
    assert row["t"] == pytest.approx(direct.statistic)
    assert row["p_value"] == pytest.approx(direct.p_value)
    assert row["mean_difference"] == pytest.approx(a.mean() - b.mean())
    assert row["n_folds"] == 10 and row["df"] == 9
    np.testing.assert_allclose(wine["p_holm"], holm(wine["p_value"]))
    # the mixture is 5 points worse: significant; mlp and svm differ by 0.1 point: not
    assert row["significant"] and row["mean_difference"] < 0
    assert not wine.loc[("mlp", "svm"), "significant"]


def test_pairwise_tests_pairs_folds_by_key_not_by_row_order():
    folds = fold_table(np.random.default_rng(6))
    # the folds of the second model ("mixture") in reverse order, the others' in order; data
    # sets and models still first seen in the same order (it decides which model is "a")
    code = pd.factorize(folds["model"])[0]
    position = 10 * folds["repeat"] + folds["fold"]
    reverse = folds.assign(d=pd.factorize(folds["dataset"])[0], m=code,
                           key=np.where(code == 1, -position, position))
    shuffled = reverse.sort_values(["d", "m", "key"], kind="stable")
    assert not shuffled.index.equals(folds.index)
    pd.testing.assert_frame_equal(pairwise_tests(folds, n_train=160, n_test=40),
                                  pairwise_tests(shuffled.drop(columns=["d", "m", "key"]),
                                                 n_train=160, n_test=40))


def test_pairwise_tests_sizes_per_dataset():
    folds = fold_table(np.random.default_rng(8))
    table = pairwise_tests(folds, n_train={"wine": 142, "splice": 2552},
                           n_test={"wine": 36, "splice": 638})
    assert set(zip(table["dataset"], table["n_train"])) == {("wine", 142), ("splice", 2552)}
    with pytest.raises(ValueError, match="no entry for data set 'splice'"):
        pairwise_tests(folds, n_train={"wine": 142}, n_test=36)


def test_pairwise_tests_rejects_bad_tables():
    folds = fold_table(np.random.default_rng(9))
    with pytest.raises(ValueError, match="lack some"):
        pairwise_tests(folds.iloc[1:], n_train=10, n_test=5)
    with pytest.raises(ValueError, match="several errors"):
        pairwise_tests(pd.concat([folds, folds.iloc[:1]]), n_train=10, n_test=5)
    with pytest.raises(ValueError, match="at least 2 models"):
        pairwise_tests(folds[folds["model"] == "mlp"], n_train=10, n_test=5)
    with pytest.raises(ValueError, match="NaN"):
        pairwise_tests(folds.assign(error=np.nan), n_train=10, n_test=5)
    with pytest.raises(ValueError, match="columns"):
        pairwise_tests(folds.drop(columns="repeat"), n_train=10, n_test=5)
    with pytest.raises(ValueError, match="no rows"):
        pairwise_tests(folds.iloc[:0], n_train=10, n_test=5)
