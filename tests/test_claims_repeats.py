"""Which splits the claims' repeats and replicate apply to (mixlib.pipeline.replicates)."""

from mixlib.pipeline.replicates import claim_splits, original_of, repeats_of, replicate_of, with_replicate_splits

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
