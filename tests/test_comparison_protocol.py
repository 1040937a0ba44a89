"""Repeated cross-validation, the hold-out protocol, the significance tables of the comparison
and the claims they decide, on tiny synthetic problems and hand-made tables."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.comparison_runs import models_on_one_dataset
from mixlib.core.seeding import generator
from mixlib.analysis.claims_table import CLAIM_COLUMNS, build_claims
from mixlib.experiments.comparison import (
    comparison_holdout_job, comparison_point, error_rows,
)
from mixlib.analysis.comparison_stats import comparison_pairs, comparison_ranks, fold_errors
from mixlib.analysis.comparison_summary import comparison_summary
from mixlib.experiments.contract import RepeatData
from mixlib.catalogue.settings import ComparisonProtocol, EMSettings
from mixlib.figures.comparison import best_per_family, comparison_figure
from mixlib.figures.critical_difference import critical_difference_figure
from mixlib.model_selection.evaluation import stratified_folds, t_interval
from mixlib.model_selection.rank_tests import group_rank_test, nemenyi_p_value
from mixlib.core.statistics import corrected_t_interval
from mixlib.model_selection.significance import (
    nemenyi_critical_difference,
    pairwise_tests,
)
from mixlib.neighbors import KNeighborsClassifier
from tests.test_experiments_comparison import EM, LIGHT, blobs, one_hot

MODELS = ["mixture", "naive_bayes", "knn", "tree_unpruned"]
#: The hold-out protocol's settings here: only the significance level matters to it.
PROTOCOL = ComparisonProtocol(n_folds=3, cv_repeats=1, group_duplicates=False,
                              significance_level=0.05)


def fold_rows(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["metric"] == "fold_error"]


def value(table: pd.DataFrame, name: str) -> float:
    return float(table.loc[table["metric"] == name, "value"].iloc[0])


# --- repeated cross-validation ---------------------------------------------------------------

def test_one_repeat_is_the_single_cv_and_repeat_zero_of_more():
    X, y = blobs(5, n=45)
    single = comparison_point(X, y, "toy", "knn", None, 3, 0.05, generator(1, "comparison", "toy")).scores
    repeated = comparison_point(X, y, "toy", "knn", None, 3, 0.05,
                                generator(1, "comparison", "toy"), n_repeats=3).scores
    # repeat 0's folds are the first draw of the generator, as in the single CV
    first = fold_rows(repeated)[fold_rows(repeated)["repeat"] == 0]
    np.testing.assert_array_equal(first["value"], fold_rows(single)["value"])
    assert fold_rows(single)["repeat"].tolist() == [0, 0, 0]
    assert fold_rows(repeated)["repeat"].tolist() == [0] * 3 + [1] * 3 + [2] * 3
    assert (repeated["n_repeats"] == 3).all() and (repeated["protocol"] == "cv").all()
    errors = fold_rows(repeated)["value"].to_numpy()
    assert value(repeated, "cv_error") == pytest.approx(errors.mean())
    assert value(repeated, "cv_std") == pytest.approx(errors.std(ddof=1))
    # fold sizes: train + test = n on every fold; the test folds of a repeat cover every row
    rows = fold_rows(repeated)
    assert ((rows["n_train"] + rows["n_test"]) == 45).all()
    assert rows.groupby("repeat")["n_test"].sum().tolist() == [45, 45, 45]
    confusion = repeated[repeated["metric"] == "confusion"]["value"].sum()
    assert confusion == 3 * 45


def test_repeats_draw_their_own_folds_shared_by_every_model():
    X, y = blobs(6, n=60)
    rng = generator(3, "comparison", "toy")
    table = models_on_one_dataset(X, y, "toy", ["knn", "tree_unpruned"], None, 3, 0.05, rng,
                                  n_repeats=2).scores
    # the repeat-1 folds: child K of the generator's SeedSequence, drawn like repeat 0's
    stream = generator(3, "comparison", "toy")
    stratified_folds(y, 3, stream)
    stream.spawn(3)
    second = stream.spawn(1)[0]
    folds = stratified_folds(y, 3, second)
    sizes = fold_rows(table)
    sizes = sizes[(sizes["model"] == "knn") & (sizes["repeat"] == 1)]["n_test"].tolist()
    assert sizes == np.bincount(folds).tolist()
    first = stratified_folds(y, 3, generator(3, "comparison", "toy"))
    assert not np.array_equal(first, folds)
    # every model has the same (repeat, fold, n_test) keys
    keys = fold_rows(table).groupby("model")[["repeat", "fold", "n_test"]].apply(
        lambda part: part.to_numpy().tolist())
    assert keys["knn"] == keys["tree_unpruned"]


def test_error_rows_plain_and_corrected_intervals_by_hand():
    errors = np.array([0.10, 0.20, 0.15, 0.05, 0.25, 0.10])
    rows = {row["metric"]: row["value"] for row in error_rows(errors, 80.0, 40.0, 0.05)}
    J, mean, var = 6, errors.mean(), errors.var(ddof=1)
    t = stats.t.ppf(0.975, J - 1)
    assert rows["ci_high"] == pytest.approx(mean + t * math.sqrt(var / J))
    assert rows["ci_corrected_high"] == pytest.approx(mean + t * math.sqrt((1 / J + 0.5) * var))
    assert rows["ci_corrected_low"] == pytest.approx(mean - t * math.sqrt((1 / J + 0.5) * var))
    single = {row["metric"]: row["value"] for row in error_rows(np.array([0.2]), 80, 40, 0.05)}
    assert single["cv_error"] == 0.2 and all(np.isnan(single[m]) for m in (
        "cv_std", "ci_low", "ci_high", "ci_corrected_low", "ci_corrected_high"))


def test_corrected_interval_without_correction_is_the_t_interval():
    errors = np.array([0.3, 0.1, 0.2, 0.25])
    plain = t_interval(errors, 0.1)
    assert corrected_t_interval(errors, n_train=10, n_test=0, significance_level=0.1) == pytest.approx(
        (plain.low, plain.high))
    wide = corrected_t_interval(errors, n_train=10, n_test=5, significance_level=0.1)
    assert wide[0] < plain.low and wide[1] > plain.high
    with pytest.raises(ValueError, match="at least 2 errors"):
        corrected_t_interval([0.1], n_train=10, n_test=5)
    with pytest.raises(ValueError, match="n_train must be a positive number"):
        corrected_t_interval(errors, n_train=0, n_test=5)


# --- hold-out protocol ------------------------------------------------------------------------

def holdout_repeats(n_repeats: int) -> list[RepeatData]:
    repeats = []
    for repeat in range(n_repeats):
        X, y = blobs(20 + repeat, n=60, spread=2.0)
        repeats.append(RepeatData.of(repeat, train=(X[:40], y[:40]), test=(X[40:], y[40:])))
    return repeats


def test_holdout_errors_are_the_test_errors_of_each_repeat():
    repeats = holdout_repeats(3)
    table = comparison_holdout_job(repeats, split="s", dataset="d", model="knn",
                                   params={"n_neighbors": 3}, protocol=PROTOCOL, seed=1,
                                   standardise=False, em=None).scores
    expected = []
    for data in repeats:
        (X, y), (X_t, y_t) = data["train"], data["test"]
        expected.append(np.mean(KNeighborsClassifier(n_neighbors=3).fit(X, y).predict(X_t) != y_t))
    rows = fold_rows(table)
    np.testing.assert_allclose(rows["value"], expected)
    assert rows["repeat"].tolist() == [0, 1, 2] and (rows["fold"] == 0).all()
    assert (rows["n_train"] == 40).all() and (rows["n_test"] == 20).all()
    assert set(table["protocol"]) == {"holdout"} and set(table["split"]) == {"s"}
    assert (table["n_folds"] == 1).all() and (table["n_repeats"] == 3).all()
    low, high = corrected_t_interval(expected, n_train=40, n_test=20)
    assert value(table, "ci_corrected_low") == pytest.approx(low)
    assert value(table, "ci_corrected_high") == pytest.approx(high)
    assert table.loc[table["metric"] == "confusion", "value"].sum() == 3 * 20


def test_holdout_is_seeded_and_one_repeat_has_no_interval():
    repeats = holdout_repeats(1)
    run = [comparison_holdout_job(repeats, split="s", dataset="d", model="tree_unpruned",
                                  params={"max_train_rows": 20}, protocol=PROTOCOL, seed=4,
                                  standardise=False, em=None).scores
           for _ in range(2)]
    timing = run[0]["metric"].isin(["fit_seconds", "predict_seconds"])
    pd.testing.assert_frame_equal(run[0][~timing], run[1][~timing])
    assert (fold_rows(run[0])["n_train"] == 20).all()
    assert np.isnan(value(run[0], "cv_std")) and np.isnan(value(run[0], "ci_corrected_low"))
    with pytest.raises(ValueError, match="needs the EM settings"):
        comparison_holdout_job(repeats, split="s", dataset="d", model="mixture", params=None,
                               protocol=PROTOCOL, seed=4, standardise=False, em=None)


def test_holdout_standardises_each_repeat_from_its_training_rows():
    """With ``standardise`` the hold-out units are rescaled by their training rows' statistics,
    as the CV folds are: a change of a feature's units changes nothing."""
    repeats = holdout_repeats(2)
    scaled = [RepeatData.of(data.repeat,
                            train=(data["train"].X * 1000.0 + 5.0, data["train"].y),
                            test=(data["test"].X * 1000.0 + 5.0, data["test"].y))
              for data in repeats]
    tables = [comparison_holdout_job(arrays, split="s", dataset="d", model="knn", params=None,
                                     protocol=PROTOCOL, seed=1, standardise=True, em=None).scores
              for arrays in (repeats, scaled)]
    timing = tables[0]["metric"].isin(["fit_seconds", "predict_seconds"])
    pd.testing.assert_frame_equal(tables[0][~timing], tables[1][~timing])


def test_cv_and_holdout_give_the_same_table_shape():
    X, y = blobs(3, n=45)
    cv = comparison_point(X, y, "toy", "knn", None, 3, 0.05, 0)
    holdout = comparison_holdout_job(holdout_repeats(2), split="s", dataset="d", model="knn",
                                     params=None, protocol=PROTOCOL, seed=1, standardise=False,
                                     em=None)
    for part in ("scores", "settings"):
        left, right = getattr(cv, part), getattr(holdout, part)
        assert list(left.columns) == list(right.columns)
        assert left.dtypes.to_dict() == right.dtypes.to_dict()
    assert set(cv.settings["parameter"]) == set(holdout.settings["parameter"])


# --- summary, significance and figures ----------------------------------------------------------

@pytest.fixture(scope="module")
def study() -> pd.DataFrame:
    X, y = blobs(16, n=45, spread=2.0)
    H, z = one_hot(16, n=45)
    params = {"mixture": LIGHT["mixture"]}
    em = EMSettings(init="report", tol=1e-6, max_iter=100, min_variance=1e-6)
    holdout = [comparison_holdout_job(holdout_repeats(r), split=f"s{r}", dataset="blobs",
                                      model=model, params=params.get(model), protocol=PROTOCOL,
                                      seed=2, standardise=False, em=em).scores
               for r in (1, 3) for model in MODELS]
    return pd.concat([models_on_one_dataset(X, y, "blobs", MODELS, params, 3, 0.05, 1,
                                            n_repeats=2, em=em).scores,
                      models_on_one_dataset(H, z, "dna", MODELS, params, 3, 0.05, 1,
                                            n_repeats=2, em=em).scores,
                      *holdout], ignore_index=True)


def test_summary_has_one_row_per_protocol_data_set_split_and_model(study):
    summary = comparison_summary(study)
    assert len(summary) == 4 * 4
    assert summary["protocol"].tolist() == ["cv"] * 8 + ["holdout"] * 8
    assert summary.loc[summary["protocol"] == "cv", "split"].eq("").all()
    assert set(summary.loc[summary["protocol"] == "holdout", "split"]) == {"s1", "s3"}
    best = best_per_family(summary, "blobs")
    assert len(best) == 4 and set(best["protocol"]) == {"cv"}


def test_pairs_are_pairwise_tests_per_data_set_with_fold_sizes(study):
    pairs = comparison_pairs(study)
    # the one-repeat split has no variance to test: left out
    assert set(zip(pairs["protocol"], pairs["dataset"], pairs["split"])) == {
        ("cv", "blobs", ""), ("cv", "dna", ""), ("holdout", "blobs", "s3")}
    assert (pairs.groupby(["dataset", "split"]).size() == 6).all()
    folds = fold_errors(study)
    dna = folds[folds["dataset"] == "dna"]
    expected = pairwise_tests(dna, n_train=dna["n_train"].mean(), n_test=dna["n_test"].mean())
    got = pairs[pairs["dataset"] == "dna"].reset_index(drop=True)
    np.testing.assert_allclose(got["p_holm"], expected["p_holm"])
    assert (got["n_folds"] == 6).all() and got["n_train"].iloc[0] == pytest.approx(30.0)
    held = pairs[pairs["split"] == "s3"]
    assert (held["n_folds"] == 3).all() and (held["n_test"] == 20).all()


def test_tables_record_whether_the_folds_kept_duplicates_together(study, tmp_path):
    X, y = blobs(6, n=45)
    # rows of one class in threes, as identical rows would be
    codes = np.unique(y, return_inverse=True)[1]
    rank_in_class = np.array([np.sum(codes[:i] == codes[i]) for i in range(len(y))])
    groups = codes * len(y) + rank_in_class // 3
    rng = generator(1, "comparison", "toy")
    grouped = comparison_point(X, y, "toy", "knn", None, 3, 0.05, rng, groups=groups).scores
    assert set(grouped["group_duplicates"]) == {"yes"}
    assert set(study.loc[study["protocol"] == "cv", "group_duplicates"]) == {"no"}
    assert set(study.loc[study["protocol"] == "holdout", "group_duplicates"]) == {"any"}
    # keeping the groups together changes the folds, so the setting matters to the errors
    plain = comparison_point(X, y, "toy", "knn", None, 3, 0.05, generator(1, "comparison", "toy")).scores
    assert not fold_rows(grouped)["value"].equals(fold_rows(plain)["value"])
    # the summary and the pairs carry the setting, also when the table is read back from a file
    path = tmp_path / "comparison.tsv"
    study.to_csv(path, sep="\t", index=False)
    read_back = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
    for table in (study, read_back):
        summary = comparison_summary(table)
        assert dict(zip(summary["protocol"], summary["group_duplicates"])) == {"cv": "no",
                                                                                "holdout": "any"}
        pairs = comparison_pairs(table)
        assert set(zip(pairs["protocol"], pairs["group_duplicates"])) == {("cv", "no"),
                                                                           ("holdout", "any")}
    # the figure's CV panels say when the folds kept identical rows together
    titles = [ax.get_title() for ax in comparison_figure(comparison_summary(grouped)).axes
              if ax.get_title()]
    assert titles and all(title.endswith("identical rows kept in one fold") for title in titles)
    assert not any("identical rows" in ax.get_title()
                   for ax in comparison_figure(comparison_summary(study)).axes)
    # every comparison table records the setting: one without it is refused, by name
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['group_duplicates'\]"):
        comparison_summary(study.drop(columns="group_duplicates"))


def test_ranks_across_cv_data_sets_with_approach(study):
    ranks = comparison_ranks(study)
    assert sorted(ranks["model"]) == sorted(MODELS) and (ranks["n_datasets"] == 2).all()
    approach = dict(zip(ranks["model"], ranks["approach"]))
    assert approach["mixture"] == "probabilistic" and approach["tree_unpruned"] == "deterministic"
    assert ranks["critical_difference"].iloc[0] == pytest.approx(nemenyi_critical_difference(4, 2))
    one = comparison_ranks(study[study["dataset"] == "dna"])
    assert (one["n_datasets"] == 1).all() and one["friedman_p"].isna().all()
    assert one["mean_rank"].tolist() == sorted(one["mean_rank"])
    # 4 models on 2 data sets: CD 3.3 exceeds any spread of mean ranks (at most 3), so the
    # figure is the one-line note, which names the settings
    fig = critical_difference_figure(ranks)
    assert "N = 2 data sets" in fig.axes[0].texts[0].get_text()


def test_figure_has_one_panel_per_data_set_and_split(study):
    fig = comparison_figure(comparison_summary(study))
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert len(titles) == 4
    assert titles[0] == "blobs\n2 x 3-fold CV, 95 % corrected t-interval"
    assert titles[2] == "s1 (blobs)\nhold-out, 1 repeat"
    assert titles[3] == "s3 (blobs)\nhold-out, 3 repeats, 95 % corrected t-interval"


# --- tests on ranks -----------------------------------------------------------------------------

def test_group_rank_test_hand_example():
    # ranks 1..4, group {3, 4}: of the C(4, 2) = 6 groups only {3, 4} has D >= 2
    result = group_rank_test([1.0, 2.0, 3.0, 4.0], np.array([False, False, True, True]))
    assert result.difference == 2.0 and result.n_assignments == 6
    assert result.p_value == pytest.approx(1 / 6)
    assert group_rank_test([1.0, 2.0, 3.0, 4.0], np.array([False, False, True, True]),
                           "two-sided").p_value == pytest.approx(2 / 6)
    assert group_rank_test([1.0, 2.0, 3.0, 4.0], np.array([False, False, True, True]),
                           "less").p_value == 1.0


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_group_rank_test_matches_scipy_exact_permutation_test(alternative):
    ranks = np.array([2.3, 5.1, 7.7, 1.2, 9.9, 4.4, 6.0, 3.5])
    group = np.array([1, 0, 1, 0, 1, 0, 0, 1], dtype=bool)
    reference = stats.permutation_test(
        (ranks[group], ranks[~group]), lambda a, b: a.mean() - b.mean(),
        permutation_type="independent", alternative=alternative, n_resamples=np.inf)
    assert group_rank_test(ranks, group, alternative).p_value == pytest.approx(reference.pvalue)


def test_group_rank_test_rejects_bad_input():
    with pytest.raises(ValueError, match="between 1 and 2"):
        group_rank_test([1.0, 2.0, 3.0], np.array([True, True, True]))
    with pytest.raises(ValueError, match="in_group must be booleans"):
        group_rank_test([1.0, 2.0, 3.0], [1, 0, 0])


@pytest.mark.parametrize("significance_level", [0.05, 0.1])
def test_nemenyi_p_value_is_alpha_at_the_critical_difference(significance_level):
    cd = nemenyi_critical_difference(5, 4, significance_level)
    assert nemenyi_p_value(cd, 5, 4) == pytest.approx(significance_level)
    assert nemenyi_p_value(-cd, 5, 4) == pytest.approx(significance_level)
    assert nemenyi_p_value(0.0, 5, 4) == 1.0
    assert nemenyi_p_value(cd * 1.2, 5, 4) < significance_level < nemenyi_p_value(cd * 0.8, 5, 4)


# --- claims decided by the tests ------------------------------------------------------------------

def hand_folds(gap: float, noise: float, n_folds: int = 5, n_repeats: int = 2) -> pd.DataFrame:
    """Fold errors of the mixture and the MLP on two data sets, the mixture ``gap`` worse on d1."""
    rng = np.random.default_rng(0)
    rows = []
    for dataset, shift in (("d1", gap), ("d2", 0.0)):
        for repeat in range(n_repeats):
            for fold in range(n_folds):
                base = 0.2 + noise * rng.standard_normal()
                for model, value in (("mixture", base + shift), ("mlp", base)):
                    rows.append({"protocol": "cv", "dataset": dataset, "model": model, "metric": "fold_error",
                                 "repeat": repeat, "fold": fold, "n_train": 80, "n_test": 20, "value": value})
    return pd.DataFrame(rows)


def hand_ranks(cd: float = 1.5) -> pd.DataFrame:
    # probabilistic models ranked 3, 4, 5 of 5; deterministic 1, 2: C(5, 3) = 10 assignments
    return pd.DataFrame({"model": ["svm", "mlp", "mixture", "naive_bayes", "gaussian_shared"],
                         "approach": ["deterministic"] * 2 + ["probabilistic"] * 3,
                         "mean_rank": [1.0, 2.0, 3.0, 4.0, 5.0], "n_datasets": 3, "n_models": 5,
                         "alpha": 0.05, "critical_difference": cd})


def test_fold_claims_use_the_corrected_interval_per_data_set():
    claims = build_claims({"comparison": hand_folds(0.05, 0.01)}, problems=None, seed=0)
    assert list(claims.columns) == CLAIM_COLUMNS
    rows = claims[claims["id"] == "mixture_worse_than_mlp"].set_index("data")
    assert rows.index.tolist() == ["d1", "d2"]
    assert rows.loc["d1", "measured"] == pytest.approx(0.05)
    assert rows.loc["d1", "verdict"] == "holds" and rows.loc["d1", "n"] == 10
    # the differences on d2 are exactly 0: a zero-width interval on the band's edge
    assert rows.loc["d2", "measured"] == pytest.approx(0.0) and rows.loc["d2", "verdict"] == "contradicted"
    assert rows["interval"].str.contains("Nadeau-Bengio").all()
    # the corrected interval is wider than the naive t-interval of the same differences
    d1 = rows.loc["d1"]
    differences = np.full(10, 0.05)
    assert d1["ci_low"] <= differences.mean() <= d1["ci_high"]


def test_rank_claims_are_inconclusive_when_the_gap_is_below_the_critical_difference():
    weak = build_claims({"comparison_ranks": hand_ranks(cd=11.45)}, problems=None, seed=0).set_index("id")
    ranks = weak.loc["mixture_worse_than_mlp_ranks"]
    assert ranks["measured"] == 1.0
    assert (ranks["ci_low"], ranks["ci_high"]) == pytest.approx((1.0 - 11.45, 1.0 + 11.45))
    assert ranks["verdict"] == "inconclusive" and "critical difference 11.4" in ranks["interval"]
    strong = build_claims({"comparison_ranks": hand_ranks(cd=0.5)}, problems=None, seed=0).set_index("id")
    assert strong.loc["mixture_worse_than_mlp_ranks", "verdict"] == "holds"
    groups = weak.loc["probabilistic_worse"]
    assert groups["measured"] == pytest.approx(4.0 - 1.5)
    assert groups["p_holds"] == pytest.approx(1 / 10) and groups["verdict"] == "inconclusive"
    assert "10 assignments" in groups["interval"]
