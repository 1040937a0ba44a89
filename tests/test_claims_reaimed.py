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
