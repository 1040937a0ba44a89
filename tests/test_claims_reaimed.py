"""The rows aimed at what the report says: its test problems, its two models, sound maxima."""

import math

import numpy as np
import pandas as pd
import pytest

from mixlib.analysis.claims import CLAIMS
from mixlib.analysis.claims_comparison import FAMILY_LEFT_OUT, probabilistic_minus_deterministic_rank
from mixlib.analysis.claims_measures import Context
from mixlib.analysis.claims_table import build_claims
from tests.test_claims import EVERY_PROBLEM, all_tables


@pytest.fixture(scope="module")
def claims() -> pd.DataFrame:
    return build_claims(all_tables(), problems=EVERY_PROBLEM, seed=0).set_index("id")


def test_mixture_accuracy_is_the_bacteria_test_accuracy_and_dna_not_splice_cv(claims):
    by_id = {c.id: c for c in CLAIMS}
    assert by_id["mixture_accuracy"].tables == ("semisupervised_rounds",)
    assert by_id["mixture_accuracy_dna"].tables == ("dna_kernel_sweep",)
    assert all("comparison" not in c.tables for c in CLAIMS if c.id.startswith("mixture_accuracy"))
    rounds = all_tables()["semisupervised_rounds"]
    start = rounds[(rounds["method"] == "iterative") & (rounds["metric"] == "test_error") & (rounds["round"] == 0)
                   & (rounds["split"] == "s")]
    per_repeat = 1 - start.groupby("repeat")["value"].mean()
    row = claims.loc["mixture_accuracy"].set_index("data").loc["s"]
    assert row["measured"] == pytest.approx(per_repeat.mean()) and row["n"] == len(per_repeat)
    dna = claims.loc[["mixture_accuracy_dna"]].set_index("data")
    error = claims.loc[["dna_mixture_error"]].set_index("data")
    assert np.allclose(dna["measured"], 1 - error.loc[dna.index, "measured"])


def test_global_maximum_counts_sound_fits_only():
    trace = all_tables()["em_trace"]
    claim = next(c for c in CLAIMS if c.id == "em_global_maximum")
    row = build_claims({"em_trace": trace}, problems=EVERY_PROBLEM, seed=0, claims=[claim]).set_index("data").loc["s"]
    fits = trace[trace["split"] == "s"].drop_duplicates(["repeat", "class"])
    sound = fits[fits["collapsed"] == 0]
    expected = (sound["nondegenerate_gap"] <= 1e-3).groupby(sound["repeat"]).mean().mean()
    assert row["measured"] == pytest.approx(expected) and "left out" in row["detail"]
    assert 0 <= row["ci_low"] <= row["ci_high"] <= 1


def test_the_family_comparison_keeps_one_tree_and_leaves_logistic_regression_out():
    models = {"mixture": "probabilistic", "gaussian_per_class": "probabilistic", "naive_bayes": "probabilistic",
              "logistic_regression": "probabilistic", "mlp": "deterministic", "svm": "deterministic",
              "knn": "deterministic", "cart": "deterministic", "tree_unpruned": "deterministic",
              "id3": "deterministic"}
    ranks = pd.DataFrame({"model": list(models), "approach": list(models.values()),
                          "mean_rank": np.arange(1.0, 11.0)[::-1], "n_datasets": 3, "alpha": 0.05})
    evidence = probabilistic_minus_deterministic_rank.function(ranks, Context(band=(0.0, math.inf)))
    kept = ranks[~ranks["model"].isin(FAMILY_LEFT_OUT)]
    prob = kept.loc[kept["approach"] == "probabilistic", "mean_rank"].mean()
    det = kept.loc[kept["approach"] == "deterministic", "mean_rank"].mean()
    assert evidence.measured == pytest.approx(prob - det)
    assert "tree_unpruned" not in evidence.detail and "cart" in evidence.detail


def test_em_iterations_at_a_looser_tolerance_read_off_the_trace():
    from mixlib.analysis.claims_em import iterations_at
    from mixlib.experiments.mixture import em_trace
    from mixlib.catalogue.settings import EMSettings
    from tests.test_experiments_mixture import _labelled

    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (40, 3)), rng.normal(3, 1, (40, 3))])
    y = np.repeat([0, 1], 40)
    trace = em_trace(_labelled(X, y), n_restarts=0, n_components=3, em=EMSettings(tol=1e-6), rng=1).assign(repeat=0)
    n_iter = trace.groupby(["repeat", "class"])["n_iter"].first()
    pd.testing.assert_series_equal(iterations_at(trace, 1e-6), n_iter, check_names=False)
    loose = iterations_at(trace, 1e-3)
    assert (loose <= n_iter).all() and (loose < n_iter).any()
    # refitting at 1e-3 stops where the trace says
    refit = em_trace(_labelled(X, y), n_restarts=0, n_components=3, em=EMSettings(tol=1e-3), rng=1)
    assert refit.groupby("class")["n_iter"].first().tolist() == loose.tolist()


def test_rounds_until_the_rates_settle_and_every_round_run():
    from mixlib.analysis.claims_measures import iterative_rounds

    rows = []
    for repeat, values in enumerate(([0.1, 0.05, 0.05, 0.05], [0.2, 0.1, 0.08, 0.08])):
        for r, v in enumerate(values):
            for metric in ("hard_error", "unknown_error", "unassigned_by_margin"):
                rows.append({"split": "s", "method": "iterative", "round": r, "metric": metric, "value": v,
                             "repeat": repeat})
            rows.append({"split": "s", "method": "iterative", "round": r, "metric": "n_rounds", "value": 3,
                         "repeat": repeat})
    table = pd.DataFrame(rows)
    ours = iterative_rounds(table, ["split"], Context())
    assert ours["measured"].tolist() == [1.5] and ours.index.get_level_values(-1).tolist() == ["until the rates settle"]
    both = iterative_rounds(table, ["split"], Context(every_reading=True))
    assert both["measured"].tolist() == [3.0, 1.5]


def test_the_repeats_the_stages_count_are_those_the_claims_count():
    """em_trace and the prior method's rounds run on until claims.min_n repeats count
    (has_sound_fit, has_migrants): the same repeats the two measures' n counts."""
    from mixlib.experiments.mixture import has_sound_fit
    from mixlib.experiments.semisupervised import counted_repeats, has_migrants

    tables = all_tables()
    trace = tables["em_trace"].copy()
    trace.loc[trace["repeat"].isin([1, 4]), "collapsed"] = 2  # every fit of two repeats collapsed
    rounds = tables["semisupervised_rounds"].copy()
    last = rounds.groupby(["split", "method", "repeat"])["round"].transform("max")
    gone = (rounds["metric"] == "migrant_margin") & rounds["repeat"].isin([0, 3, 5]) & (rounds["round"] == last)
    rounds.loc[gone & (rounds["split"] == "s"), "value"] = np.nan  # no migrant in three repeats
    claims = build_claims({"em_trace": trace, "semisupervised_rounds": rounds}, problems=EVERY_PROBLEM, seed=0,
                          claims=[c for c in CLAIMS if c.id in ("em_global_maximum", "migrants_near_boundary")])
    n = claims.set_index(["id", "data"])["n"]
    for split in ("s", "t"):
        own = trace[trace["split"] == split]
        assert n[("em_global_maximum", split)] == sum(has_sound_fit(t) for _, t in own.groupby("repeat")) == 4
        prior = rounds[(rounds["split"] == split) & (rounds["method"] == "prior")]
        assert n[("migrants_near_boundary", split)] == sum(has_migrants(t) for _, t in prior.groupby("repeat"))
    assert n[("migrants_near_boundary", "s")] == 3 and n[("migrants_near_boundary", "t")] == 6
    assert counted_repeats("prior") is has_migrants and counted_repeats("iterative")(rounds)
