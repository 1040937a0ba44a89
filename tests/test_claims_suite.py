"""The chapter-6 claims across the data sets of a suite: hand-built error
tables whose verdicts are known, p-values against scipy, posteriors against the Bayesian
signed-rank test of the comparison's table, and when the pipeline builds the table."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from mixlib.core.seeding import generator
from mixlib.analysis.claims_suite import (
    ACCURACY, ACCURACY_BAND, MIXTURE_VS_MLP, PROBABILISTIC_WORSE, SUITE_CLAIM_COLUMNS, family_errors,
    suite_claims,
)
from mixlib.analysis.comparison_across import chapter6_pairs, comparison_bayes, dataset_errors
from mixlib.analysis.verdicts import CONTRADICTED, HOLDS, INCONCLUSIVE, row_verdict
from mixlib.model_selection.across_datasets import bayesian_signed_rank
from mixlib.pipeline.suite_claims import decides_claims_across_datasets, min_signed_rank_datasets
from tests.test_across_datasets import comparison_table

ROOT = Path(__file__).resolve().parents[1]
APPROACH = {"mixture": "probabilistic", "naive_bayes": "probabilistic", "mlp": "deterministic",
            "knn": "deterministic", "svm": "deterministic"}
SETTINGS = {"rope": 0.01, "prior_strength": 0.5, "n_samples": 20_000, "seed": 11}
N = 12


def _errors(mixture_minus_mlp: np.ndarray, *, probabilistic_offset: float = 0.0) -> dict[str, list[float]]:
    """Errors on N data sets: the MLP's spread over 10-30 %, the mixture at the given
    differences from it, the other models around them."""
    rng = np.random.default_rng(5)
    mlp = rng.uniform(0.10, 0.30, len(mixture_minus_mlp))
    return {"mixture": list(mlp + mixture_minus_mlp),
            "naive_bayes": list(mlp + probabilistic_offset + rng.uniform(-0.002, 0.002, len(mlp))),
            "mlp": list(mlp), "knn": list(mlp + 0.02), "svm": list(mlp + 0.01)}


def _claims(errors: dict[str, list[float]]) -> pd.DataFrame:
    return suite_claims(comparison_table(errors, APPROACH), **SETTINGS)


def _row(claims: pd.DataFrame, claim: str, test: str, reading: str = "") -> pd.Series:
    rows = claims[(claims.id == claim) & claims.test.str.startswith(test) & claims.reading.str.startswith(reading)]
    assert len(rows) == 1
    return rows.iloc[0]


WIN = np.linspace(0.05, 0.10, N)  # the mixture worse on every data set, by 5 to 10 points


def test_min_datasets_is_the_fewest_a_one_sided_signed_rank_test_can_reject_on():
    for significance_level in (0.05, 0.01, 0.1, 1 / 32, 0.2):
        n = min_signed_rank_datasets(significance_level)
        assert 0.5 ** n < significance_level / 2 <= 0.5 ** (n - 1)
    assert min_signed_rank_datasets(0.05) == 6
    with pytest.raises(ValueError, match="significance_level"):
        min_signed_rank_datasets(0.0)


def test_a_clear_loss_of_the_mixture_holds_with_scipy_p_values_and_the_comparison_posterior():
    errors = _errors(WIN)
    claims = _claims(errors)
    assert list(claims.columns) == SUITE_CLAIM_COLUMNS
    d = np.subtract(errors["mixture"], errors["mlp"])
    wilcoxon = _row(claims, MIXTURE_VS_MLP, "Wilcoxon")
    assert wilcoxon.n_datasets == N and wilcoxon.measured == pytest.approx(d.mean())
    assert wilcoxon.p_greater == pytest.approx(stats.wilcoxon(d, zero_method="zsplit", alternative="greater").pvalue,
                                               rel=1e-12)
    assert wilcoxon.p_less == pytest.approx(stats.wilcoxon(d, zero_method="zsplit", alternative="less").pvalue,
                                            rel=1e-12)
    assert wilcoxon.p_value == pytest.approx(stats.wilcoxon(d, zero_method="zsplit").pvalue, rel=1e-12)
    assert wilcoxon.p_greater == 0.5 ** N and wilcoxon.statistic == 0
    assert (wilcoxon.band_low, wilcoxon.band_high, wilcoxon.verdict) == (0.0, np.inf, HOLDS)
    bayes = _row(claims, MIXTURE_VS_MLP, "Bayesian")
    reference = bayesian_signed_rank(errors["mixture"], errors["mlp"], 0.01, prior_strength=0.5, n_samples=20_000,
                                     rng=generator(11, "comparison_bayes", "mixture", "mlp"))
    assert (bayes.p_a_better, bayes.p_equivalent, bayes.p_b_better) == (
        reference.p_a_better, reference.p_equivalent, reference.p_b_better)
    pairs, _ = comparison_bayes(comparison_table(errors, APPROACH), **SETTINGS)
    published = pairs[pairs.question == "mixture vs mlp"].iloc[0]
    assert bayes.p_b_better == published.p_b_better > 0.95
    assert (bayes.band_low, bayes.rope, bayes.verdict) == (0.01, 0.01, HOLDS)


def test_a_clear_win_of_the_mixture_contradicts_both_tests():
    claims = _claims(_errors(-WIN))
    assert _row(claims, MIXTURE_VS_MLP, "Wilcoxon").verdict == CONTRADICTED
    bayes = _row(claims, MIXTURE_VS_MLP, "Bayesian")
    assert bayes.p_a_better > 0.95 and bayes.verdict == CONTRADICTED


def test_a_tie_is_inconclusive_for_wilcoxon_and_equivalent_for_the_bayesian_test():
    tie = np.where(np.arange(N) % 2 == 0, 1.0, -1.0) * np.linspace(0.0005, 0.002, N)
    claims = _claims(_errors(tie))
    wilcoxon = _row(claims, MIXTURE_VS_MLP, "Wilcoxon")
    assert wilcoxon.p_greater > 0.05 and wilcoxon.p_less > 0.05 and wilcoxon.verdict == INCONCLUSIVE
    bayes = _row(claims, MIXTURE_VS_MLP, "Bayesian")
    assert bayes.p_equivalent > 0.95 and bayes.verdict == CONTRADICTED  # not worse by a rope


def test_below_min_datasets_a_clean_sweep_is_still_inconclusive():
    n = min_signed_rank_datasets(0.05)
    few = {model: values[:n - 1] for model, values in _errors(WIN).items()}
    enough = {model: values[:n] for model, values in _errors(WIN).items()}
    assert _row(_claims(few), MIXTURE_VS_MLP, "Wilcoxon").verdict == INCONCLUSIVE
    assert _row(_claims(enough), MIXTURE_VS_MLP, "Wilcoxon").verdict == HOLDS


def test_probabilistic_against_deterministic_under_every_reading():
    errors = _errors(WIN, probabilistic_offset=0.06)  # both probabilistic models far worse
    table = comparison_table(errors, APPROACH)
    claims = suite_claims(table, **SETTINGS)
    rows = claims[claims.id == PROBABILISTIC_WORSE]
    assert len(rows) == 6 and set(rows.verdict) == {HOLDS}
    assert list(rows.our_reading) == [True, True, False, False, False, False]
    wide, approach = dataset_errors(table)
    best = _row(claims, PROBABILISTIC_WORSE, "Wilcoxon", "best_by_rank")
    pair = chapter6_pairs(wide, approach)["best probabilistic vs best deterministic"]
    assert (best.model_a, best.model_b) == pair == ("naive_bayes", "mlp")
    for reading, reduce in (("per_dataset_best", np.min), ("family_mean", np.mean)):
        _, _, a, b = family_errors(wide, approach, reading)
        np.testing.assert_allclose(a, reduce([errors["mixture"], errors["naive_bayes"]], axis=0))
        np.testing.assert_allclose(b, reduce([errors["mlp"], errors["knn"], errors["svm"]], axis=0))
        row = _row(claims, PROBABILISTIC_WORSE, "Wilcoxon", reading)
        assert row.measured == pytest.approx(np.mean(a - b))
        assert row.p_greater == pytest.approx(stats.wilcoxon(a - b, zero_method="zsplit",
                                                             alternative="greater").pvalue)
    with pytest.raises(ValueError, match="reading must be one of"):
        family_errors(wide, approach, "best_by_name")


@pytest.mark.parametrize("accuracies, verdict", [
    (np.linspace(0.63, 0.67, N), HOLDS),           # inside 59-71 %
    (np.linspace(0.85, 0.95, N), CONTRADICTED),    # well above it
    (np.linspace(0.30, 0.99, N), INCONCLUSIVE),    # too spread to say
])
def test_sixty_to_seventy_percent_against_an_interval_across_data_sets(accuracies, verdict):
    errors = _errors(WIN)
    errors["mixture"] = list(1 - accuracies)
    claims = _claims(errors)
    mean = _row(claims, ACCURACY, "logit-scale Student-t")
    # the Student-t interval of the mean accuracy on the logit scale (delta method), mapped back
    m = accuracies.mean()
    logit_low, logit_high = stats.t.interval(0.95, N - 1, loc=np.log(m / (1 - m)),
                                             scale=stats.sem(accuracies) / (m * (1 - m)))
    low, high = 1 / (1 + np.exp(-logit_low)), 1 / (1 + np.exp(-logit_high))
    assert (mean.measured, mean.n_datasets, mean.our_reading) == (pytest.approx(accuracies.mean()), N, True)
    assert (mean.ci_low, mean.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert (mean.band_low, mean.band_high) == (ACCURACY_BAND.low, ACCURACY_BAND.high) == (
        pytest.approx(0.59), pytest.approx(0.71))
    assert mean.verdict == verdict
    median = _row(claims, ACCURACY, "order statistics")
    assert median.measured == pytest.approx(np.median(accuracies)) and not median.our_reading
    assert median.ci_low <= median.measured <= median.ci_high


def test_every_verdict_follows_from_its_own_row():
    for errors in (_errors(WIN), _errors(-WIN, probabilistic_offset=-0.05), _errors(WIN * 0.01)):
        claims = _claims(errors)
        assert len(claims) == 10
        assert [row_verdict(row) for _, row in claims.iterrows()] == list(claims.verdict)


def test_models_that_did_not_run_leave_their_claims_out():
    errors = {model: values for model, values in _errors(WIN).items() if model not in ("mlp",)}
    claims = _claims(errors)
    assert MIXTURE_VS_MLP not in set(claims.id)
    assert {PROBABILISTIC_WORSE, ACCURACY} <= set(claims.id)


def _config(name: str) -> dict:
    return yaml.safe_load((ROOT / "config" / name).read_text())


def test_the_suite_decides_the_claims_and_the_study_does_not():
    assert decides_claims_across_datasets(_config("suite.yaml"))
    assert not decides_claims_across_datasets(_config("config.yaml"))  # 3 data sets
    assert not decides_claims_across_datasets(_config("test.yaml"))
    assert not decides_claims_across_datasets({"seed": 1})
    five = {"comparison": {"datasets": list("abcde"), "significance_level": 0.05}}
    assert not decides_claims_across_datasets(five)  # 2 ** -5 > 0.025, the level of one side
    six = {"comparison": {"datasets": list("abcdef"), "significance_level": 0.05}}
    assert decides_claims_across_datasets(six)
    six["comparison"]["significance_level"] = 0.01  # needs 8
    assert not decides_claims_across_datasets(six)
