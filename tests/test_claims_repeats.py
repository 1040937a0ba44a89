"""Which splits the claims' repeats and replicate apply to (mixlib.pipeline.replicates), and
the stages that run on until enough repeats count (mixlib.experiments.contract)."""

import numpy as np
import pandas as pd
import pytest

from mixlib.experiments.contract import RepeatData, run_repeats
from mixlib.pipeline.config_checks import check_claim_repeats
from mixlib.pipeline.replicates import (
    claim_min_n, claim_repeats, claim_splits, original_of, repeats_of, replicate_of,
    replicated_outputs, split_and_replicate, with_replicate_splits,
)

CONFIG = {
    "repeats": 10,
    "splits": {"bacteria": {"dataset": "h", "roles": {"labelled": 36}}, "wine": {"dataset": "w", "roles": {"train": 9}},
               "dna": {"dataset": "s", "roles": {"train": 9}}, "fixed": {"dataset": "s", "role_column": "r"}},
    "mixture": {"splits": ["bacteria"]}, "semisupervised": {"splits": ["bacteria", "wine"]},
    "kernel_sweep": {"splits": ["bacteria"]},
    "claims": {"repeats": 30, "replicate": True},
}


def test_chapter_3_and_5_splits_get_the_claims_repeats_and_a_replicate():
    assert claim_splits(CONFIG) == ["bacteria", "wine"]
    splits = with_replicate_splits(CONFIG)
    assert set(splits) == {"bacteria", "wine", "dna", "fixed", "bacteria_replicate", "wine_replicate"}
    assert splits["bacteria_replicate"] == CONFIG["splits"]["bacteria"]
    assert [repeats_of(CONFIG, s) for s in ("bacteria", "bacteria_replicate", "wine", "dna", "fixed")] == [
        30, 30, 30, 10, 1]
    assert original_of(replicate_of("wine")) == "wine" and original_of("dna") == "dna"


def test_without_the_keys_nothing_changes():
    plain = {k: v for k, v in CONFIG.items() if k != "claims"}
    assert with_replicate_splits(plain) == CONFIG["splits"]
    assert repeats_of(plain, "bacteria") == 10
    assert set(with_replicate_splits({**CONFIG, "claims": {"replicate": False}})) == set(CONFIG["splits"])


def test_one_job_runs_a_split_and_its_replicate_and_writes_both_tables():
    assert split_and_replicate(CONFIG, "wine") == ["wine", "wine_replicate"]
    assert replicated_outputs(CONFIG, "results/x/{split}.em.tsv") == [
        "results/x/{split}.em.tsv", "results/x/{split}_replicate.em.tsv"]
    single = {**CONFIG, "claims": {"repeats": 30, "replicate": False}}
    assert split_and_replicate(single, "wine") == ["wine"]
    assert replicated_outputs(single, "results/x/{split}.em.tsv") == ["results/x/{split}.em.tsv"]
    with pytest.raises(ValueError, match="no {split} wildcard"):
        replicated_outputs(CONFIG, "results/x/all.tsv")


def test_the_claim_splits_hold_max_repeats_and_the_stages_start_from_claims_repeats():
    config = {**CONFIG, "claims": {"repeats": 30, "min_n": 30, "max_repeats": 90, "replicate": True}}
    assert [repeats_of(config, s) for s in ("bacteria", "wine_replicate", "dna", "fixed")] == [90, 90, 10, 1]
    assert (claim_repeats(config), claim_min_n(config)) == (30, 30)
    assert (claim_repeats({"repeats": 10}), claim_min_n({"repeats": 10})) == (10, 10)
    check_claim_repeats(config)
    check_claim_repeats({"splits": {}})  # neither key (nor repeats): nothing to check
    with pytest.raises(ValueError, match=r"claims.max_repeats: 20 is below claims.repeats \(30\)"):
        check_claim_repeats({**CONFIG, "claims": {"repeats": 30, "max_repeats": 20}})
    with pytest.raises(ValueError, match=r"claims.min_n: 40 is above claims.repeats \(30\)"):
        check_claim_repeats({**CONFIG, "claims": {"repeats": 30, "min_n": 40, "max_repeats": 90}})


def _draw(data: RepeatData, *, rng) -> pd.DataFrame:
    """One uniform draw per repeat: the repeat counts when it is below 0.4."""
    return pd.DataFrame({"value": [rng.uniform()]})


def _repeats(n: int) -> list[RepeatData]:
    return [RepeatData.of(r, train=(np.zeros((1, 1)), np.array(["a"]))) for r in range(n)]


def test_a_stage_runs_on_until_enough_repeats_count_in_order_and_from_the_seed():
    def run(n, **until):
        return run_repeats(_draw, _repeats(n), seed=3, keys=("draw",), **until)

    every = run(200)
    counts = (every["value"] < 0.4).cumsum().to_numpy()
    table = run(200, first=10, needed=20, counts=lambda t: bool(t["value"].iloc[0] < 0.4))
    # the first k repeats, k the first count at which 20 of them count: the same draws as every repeat's
    k = int(np.argmax(counts >= 20)) + 1
    assert k > 20 and table["repeat"].tolist() == list(range(k))
    assert table.equals(every.iloc[:k].reset_index(drop=True)) and list(table.columns) == ["value", "repeat"]
    # at least `first`, even when fewer are needed; at most every repeat there is
    assert run(200, first=15, needed=1, counts=lambda t: True)["repeat"].max() == 14
    assert len(run(25, first=10, needed=20, counts=lambda t: False)) == 25
    # a split with fewer repeats than `first` (a fixed split has one) runs all it has
    assert run(1, first=6, needed=3, counts=lambda t: True).equals(run(1))
    with pytest.raises(ValueError, match="first must be at least 1"):
        run(5, first=0, needed=1, counts=lambda t: True)
