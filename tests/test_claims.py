"""The claims tables: the catalogue's bands, every measure on hand-made tables with two splits,
verdicts recomputed from the rows, absolute claims on the report's problems only, readings."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from mixlib.analysis.claims import ABSOLUTE, BEYOND, CLAIMS, HIGHER, LOWER, QUALITATIVE
from mixlib.analysis.claims_table import (
    CLAIM_COLUMNS,
    ROBUSTNESS_COLUMNS,
    build_claims,
    build_readings,
    claims_and_readings,
    evaluate,
    expand_any,
    with_robustness,
)
from mixlib.analysis.verdicts import VERDICTS, row_verdict
from mixlib.catalogue.settings import EMSettings

SPLITS = ("s", "t")
RULES = ("confidence", "underflow")
KERNELS = (1, 2, 4, 8, 16, 32)
#: The ids the table had before verdicts came from intervals (main at 60a65e2, chapters 3 to 5).
OLD_IDS = {"em_iterations", "kernel_map_iterations", "iterative_hard_error", "iterative_unknown_error",
           "iterative_unknown", "iterative_rounds", "prior_rounds", "prior_more_rounds", "prior_hard_error",
           "prior_vs_iterative_hard_error", "prior_early_flips", "prior_late_flips", "prior_unknown_error",
           "sweep_best_kernels", "sweep_equal_at_8", "sweep_prior_not_above_iterative", "sweep_iterative_32",
           "sweep_prior_32", "sweep_test_equivalent", "mlp_mean_test_error", "mixture_vs_mlp_fit_cpu_seconds",
           "mixture_accuracy", "mixture_worse_than_mlp", "mixture_worse_than_mlp_ranks", "probabilistic_worse"}


# --- hand-made tables: split "t" far from split "s", so any pooling shows -------------------

def _offset(split: str) -> float:
    return 0.0 if split == "s" else 0.3


def em_trace_table(splits=SPLITS, n_repeats=6) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for split in splits:
        for repeat in range(n_repeats):
            for label in (0, 1):
                n_iter = int(rng.integers(8, 16)) + (30 if split == "t" else 0)
                gap = 0.0 if rng.random() < 0.7 else 0.05
                for iteration in range(3):
                    rows.append({"split": split, "dataset": f"d_{split}", "repeat": repeat, "class": label,
                                 "iteration": iteration, "mean_log_likelihood": -1.0 + iteration,
                                 "n_iter": n_iter, "n_restarts": 3, "global_gap": gap,
                                 "collapsed": int(repeat == 0 and label == 1),
                                 "nondegenerate_gap": math.nan if repeat == 0 and label == 1 else gap})
    return pd.DataFrame(rows)


def rounds_table(splits=SPLITS, n_repeats=6, seed=2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []

    def add(split, method, restart, finish, repeat, r, metric, rule, value):
        rows.append({"split": split, "dataset": f"d_{split}", "method": method, "n_components": 4,
                     "restart": restart, "finish": finish, "threshold": 0.75, "round": r, "metric": metric,
                     "unclassifiable": rule, "value": value, "repeat": repeat})

    for split in splits:
        shift = _offset(split)
        for repeat in range(n_repeats):
            for method, restart, finish, last in (("iterative", "any", "argmax", 3), ("prior", "warm", "any", 5)):
                last += int(rng.integers(0, 2)) + (4 if split == "t" else 0)
                for r in range(last + 1):
                    for rule in RULES:
                        base = (0.10 if r == 0 else 0.05) + shift + 0.01 * rng.standard_normal()
                        add(split, method, restart, finish, repeat, r, "hard_error", rule, base)
                        add(split, method, restart, finish, repeat, r, "unknown_error", rule,
                            0.01 * r + shift + 0.005 * rng.random())
                        add(split, method, restart, finish, repeat, r, "test_error", rule,
                            0.12 - 0.002 * r + shift + 0.01 * rng.standard_normal())
                    if method == "prior" and r >= 1:
                        add(split, method, restart, finish, repeat, r, "flips", "any",
                            (0.02 if r <= 3 else 0.0) + shift + 0.005 * rng.random())
                add(split, method, restart, finish, repeat, last, "n_rounds", "any", float(last))
                if method == "iterative":
                    add(split, method, restart, finish, repeat, last, "unassigned_by_margin", "any",
                        shift + 0.01 * rng.random())
                else:
                    add(split, method, restart, finish, repeat, last, "migrant_margin", "any",
                        0.2 + shift + 0.05 * rng.random())
                    add(split, method, restart, finish, repeat, last, "resident_margin", "any",
                        0.8 - shift + 0.05 * rng.random())
    return pd.DataFrame(rows)


def sweep_table(splits=SPLITS, n_repeats=6) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for split in splits:
        shift = _offset(split)
        for repeat in range(n_repeats):
            for method, restart, finish in (("labelled_only", "any", "any"), ("iterative", "any", "argmax"),
                                            ("prior", "warm", "any")):
                for k in KERNELS:
                    def add(metric, rule, value):
                        rows.append({"split": split, "dataset": f"d_{split}", "method": method,
                                     "n_components": k, "restart": restart, "finish": finish,
                                     "threshold": 0.75, "metric": metric, "unclassifiable": rule,
                                     "value": value, "repeat": repeat})
                    for rule in RULES:
                        train = abs(math.log2(k) - 3) * 0.03 + shift + 0.01 * rng.random()
                        add("train_error", rule, train)
                        add("test_error", rule, 0.1 + shift + 0.01 * rng.random())
                    fitted = min(k, 12 if split == "s" else 3)
                    add("effective_components", "any", float(fitted))
                    for label in (0, 1):
                        add(f"effective_components:{label}", "any", float(fitted))
    return pd.DataFrame(rows)


def imputation_table(datasets=("d_s", "d_t"), n_repeats=5) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = []
    for dataset in datasets:
        for repeat in range(n_repeats):
            for rate in (0.05, 0.1):
                mean = 1.0 + rng.random()
                for method, value in (("mean", mean), ("kernel_mode:4", mean - (0.2 if dataset == "d_s" else -0.4))):
                    rows.append({"repeat": repeat, "missing_rate": rate, "method": method, "metric": "mae_train",
                                 "value": value + 0.01 * rng.standard_normal(), "n_hidden": 50,
                                 "dataset": dataset})
    return pd.DataFrame(rows)


def dna_table(splits=("dna_s", "dna_t"), n_repeats=5) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    for split in splits:
        for repeat in range(n_repeats):
            for k in (1, 2, 4):
                for metric, value in (("test_error", 0.2 + (0.3 if split == "dna_t" else 0.0)),
                                      ("fit_seconds", 0.5), ("fit_cpu_seconds", 0.4)):
                    rows.append({"n_components": k, "class": "all", "metric": metric,
                                 "value": value + 0.01 * rng.random(), "repeat": repeat, "split": split,
                                 "encoding": "onehot", "dataset": "splice"})
    return pd.DataFrame(rows)


def mlp_table(splits=("mlp_s", "mlp_t"), n_repeats=5) -> pd.DataFrame:
    rng = np.random.default_rng(6)
    return pd.DataFrame([{"regime": regime, "hidden_size": h, "repeat": r, "metric": metric,
                          "value": value + (0.2 if split == "mlp_t" else 0.0) + 0.01 * rng.random(),
                          "split": split, "encoding": "onehot", "dataset": "splice"}
                         for split in splits for regime in ("plain", "weight_decay") for h in (1, 4)
                         for r in range(n_repeats) for metric, value in (("test_error", 0.085), ("fit_seconds", 2.0),
                                                                                  ("fit_cpu_seconds", 1.9))])


def all_tables() -> dict[str, pd.DataFrame]:
    return {"em_trace": em_trace_table(), "semisupervised_rounds": rounds_table(), "kernel_sweep": sweep_table(),
            "imputation_study": imputation_table(), "dna_kernel_sweep": dna_table(), "mlp_sweep": mlp_table()}


EVERY_PROBLEM = {"chapter3": ["s", "t"], "chapter5": ["s", "t"], "chapter6": ["splice"]}


# --- the catalogue -------------------------------------------------------------------------

def test_claim_ids_are_unique_plain_names_and_five_are_new():
    ids = [claim.id for claim in CLAIMS]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9_]+", claim_id) for claim_id in ids), ids
    new = set(ids) - OLD_IDS
    assert {"em_global_maximum", "kernel_mode_beats_mean_imputation", "iterative_no_large_test_gain",
            "prior_unknown_error_grows", "migrants_near_boundary"} <= new


def test_every_band_is_open_and_claims_that_something_happens_exclude_zero():
    for claim in CLAIMS:
        assert claim.band.low < claim.band.high, claim.id
        assert claim.kind in (ABSOLUTE, QUALITATIVE, BEYOND) and claim.band.rule
    happens = {"iterative_unknown_error", "prior_unknown_error", "prior_early_flips", "prior_unknown_error_grows",
               "prior_more_rounds", "migrants_near_boundary", "prior_vs_iterative_hard_error",
               "kernel_mode_beats_mean_imputation", "dna_mixture_worse_than_mlp", "mixture_worse_than_mlp"}
    bands = {claim.id: claim.band for claim in CLAIMS}
    for claim_id in happens:
        band = bands[claim_id]
        assert not band.low < 0.0 < band.high, claim_id
    assert bands["prior_more_rounds"] == HIGHER and bands["migrants_near_boundary"] == LOWER
    # "4 itérations" is 4 +/- 1 round; "about 5 %" of 36 labelled examples: +/- one example
    assert (bands["prior_rounds"].low, bands["prior_rounds"].high) == (3, 5)
    assert bands["iterative_hard_error"].high - 0.05 == pytest.approx(1 / 36)


# --- every measure uses only its own split ---------------------------------------------------

def _own_rows(claim, tables, unit_value):
    rows = evaluate(claim, tables, problems={k.removeprefix("chapter"): frozenset(v)
                                             for k, v in EVERY_PROBLEM.items()}, seed=7)
    return {(r["data"], r["reading"]): r for r in rows if r["data"] == unit_value}


def _alone(tables, name, unit, value):
    """``tables`` with table ``name`` restricted to the rows of one split (or data set)."""
    return {**tables, name: tables[name][tables[name][unit] == value]}


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.unit is not None and c.tables[0] in all_tables()],
                         ids=lambda c: c.id)
def test_every_measure_uses_only_its_own_split(claim):
    tables = all_tables()
    first = tables[claim.tables[0]]
    values = sorted(first[claim.unit].unique())
    assert len(values) == 2
    for value in values:
        together = _own_rows(claim, tables, value)
        alone = _own_rows(claim, _alone(tables, claim.tables[0], claim.unit, value), value)
        assert together, (claim.id, value)
        assert together.keys() == alone.keys()
        for key, row in together.items():
            for column in ("measured", "ci_low", "ci_high", "n", "verdict"):
                assert row[column] == pytest.approx(alone[key][column], nan_ok=True), (claim.id, key, column)


def test_median_of_em_iterations_is_that_of_the_split_alone():
    table = em_trace_table()
    claims = build_claims({"em_trace": table}, problems=EVERY_PROBLEM, seed=0)
    for split in SPLITS:
        row = claims[(claims["id"] == "em_iterations") & (claims["data"] == split)].iloc[0]
        fits = table[table["split"] == split].drop_duplicates(["repeat", "class"])
        assert row["measured"] == np.median(fits["n_iter"]) and row["n"] == len(fits) == 12
        # order-statistic interval of the median of 12: the 3rd and 10th values (P(B <= 2) = 0.019)
        ordered = np.sort(fits["n_iter"])
        assert (row["ci_low"], row["ci_high"]) == (ordered[2], ordered[9])


def test_hand_computed_chapter_5_measures():
    table = rounds_table(splits=("s",))
    claims = build_claims({"semisupervised_rounds": table}, problems=EVERY_PROBLEM, seed=0)
    confidence = claims[~claims["reading"].str.contains("underflow")].set_index("id")
    own = table[table["unclassifiable"].isin(["confidence", "any"])]
    last = own.sort_values("round").groupby(["method", "metric", "repeat"])["value"].last()
    assert confidence.loc["iterative_hard_error", "measured"] == pytest.approx(last["iterative", "hard_error"].mean())
    gap = last["prior", "n_rounds"] - last["iterative", "n_rounds"]
    assert confidence.loc["prior_more_rounds", "measured"] == pytest.approx(gap.mean())
    t = 2.570581835636314  # Student-t quantile 0.975 with 5 degrees of freedom
    half = t * gap.std(ddof=1) / math.sqrt(len(gap))
    assert confidence.loc["prior_more_rounds", "ci_low"] == pytest.approx(gap.mean() - half)
    flips = own[(own["metric"] == "flips")].pivot_table(index="repeat", columns="round", values="value")
    assert confidence.loc["prior_early_flips", "measured"] == pytest.approx(flips[[1, 2, 3]].mean(axis=1).mean())
    late = flips[[c for c in flips.columns if c >= 4]].fillna(0).sum(axis=1).mean()
    assert confidence.loc["prior_late_flips", "measured"] == pytest.approx(late)
    assert confidence.loc["migrants_near_boundary", "verdict"] == "holds"
    assert confidence.loc["prior_unknown_error_grows", "verdict"] == "holds"


# --- verdicts, kinds and readings ----------------------------------------------------------

def test_every_verdict_follows_from_its_own_row_and_none_holds_outside_its_band():
    claims = build_claims(all_tables(), problems=EVERY_PROBLEM, seed=0)
    assert list(claims.columns) == CLAIM_COLUMNS
    assert set(claims["verdict"]) <= set(VERDICTS) and len(claims) > 40
    assert [row_verdict(row) for _, row in claims.iterrows()] == claims["verdict"].tolist()
    holds = claims[claims["verdict"] == "holds"]
    assert ((holds["band_low"] < holds["measured"]) & (holds["measured"] < holds["band_high"])).all()


def test_a_phenomenon_measured_as_zero_never_holds_and_zero_variance_decides_only_exactly():
    table = rounds_table(splits=("s",))
    table.loc[table["metric"].isin(["unknown_error", "flips"]), "value"] = 0.0
    claims = build_claims({"semisupervised_rounds": table}, problems=EVERY_PROBLEM, seed=0).set_index("id")
    for claim_id in ("iterative_unknown_error", "prior_unknown_error", "prior_early_flips",
                     "prior_unknown_error_grows"):
        rows = claims.loc[[claim_id]]
        assert (rows["verdict"] != "holds").all(), claim_id
        # every repeat 0: no Student-t interval [0, 0], but the exact bound over 6 repeats
        assert rows["interval"].str.startswith("exact").all(), claim_id
        q = 1 - 0.025 ** (1 / 6)
        assert np.allclose(rows["ci_high"] - rows["ci_low"], q * (2 if "grows" in claim_id else 1)), claim_id
    # six zeros cannot exclude 3 % (the bound reaches 46 %): inconclusive, not contradicted
    assert (claims.loc[["iterative_unknown_error"], "verdict"] == "inconclusive").all()


def test_absolute_claims_only_on_the_report_problem():
    claims = build_claims(all_tables(), problems={"chapter3": ["s"], "chapter5": ["s"]}, seed=0)
    absolute = claims[(claims["kind"] == ABSOLUTE) & claims["chapter"].isin(["3", "5"])]
    assert set(absolute["data"]) == {"s"}
    qualitative = claims[(claims["kind"] == QUALITATIVE) & (claims["id"] == "prior_more_rounds")]
    assert set(qualitative["data"]) == {"s", "t"}
    # a data set named stands for its splits (chapter 6: splice)
    chapter6 = build_claims(all_tables(), problems={"chapter6": ["splice"]}, seed=0)
    assert set(chapter6.loc[chapter6["id"] == "dna_mixture_error", "data"]) == {"dna_s", "dna_t"}
    assert chapter6.loc[chapter6["id"] == "iterative_hard_error"].empty


def test_readings_cover_every_setting_and_the_robustness_counts_add_up():
    rounds = rounds_table(splits=("s",))
    fresh = rounds[rounds["method"] == "prior"].assign(restart="fresh")
    stop = rounds[rounds["method"] == "iterative"].assign(finish="stop")
    grid = pd.concat([rounds, fresh, stop], ignore_index=True).assign(relative_min_variance=1e-6)
    readings = build_readings({"semisupervised_rounds": grid}, problems=EVERY_PROBLEM, seed=0)
    both = readings[readings["id"] == "prior_vs_iterative_hard_error"]["reading"].tolist()
    assert len(both) == 2 * 2 * 2  # restart x finish x rule
    assert "restart=fresh, finish=stop, threshold=0.75, unclassifiable=underflow, relative_min_variance=1e-06" in both
    assert len(readings[readings["id"] == "prior_rounds"]) == 2
    # finish x how rounds are counted (the measure's own reading)
    assert len(readings[readings["id"] == "iterative_rounds"]) == 2 * 2
    claims = build_claims({"semisupervised_rounds": rounds}, problems=EVERY_PROBLEM, seed=0, rule="confidence")
    assert not claims["reading"].str.contains("underflow").any()
    robust = with_robustness(claims, readings)
    assert list(robust.columns) == CLAIM_COLUMNS + ROBUSTNESS_COLUMNS
    counts = robust[["readings_holds", "readings_contradicted", "readings_inconclusive"]].sum(axis=1)
    assert (counts == robust["readings"]).all()
    row = robust.set_index("id").loc["prior_vs_iterative_hard_error"]
    # "fresh" and "stop" copy the rows of "warm" and "argmax": identical fits, one reading each
    assert row["readings"] == 2
    merged = readings[(readings["id"] == "prior_vs_iterative_hard_error") & (readings["same_as"] != "")]
    kept = readings[(readings["id"] == "prior_vs_iterative_hard_error") & (readings["same_as"] == "")]
    assert len(merged) == 6 and set(merged["same_as"]) == set(kept["reading"])
    # a setting that changes the fits stays a reading of its own
    shifted = pd.concat([rounds, fresh.assign(value=fresh["value"] + 0.01), stop],
                        ignore_index=True).assign(relative_min_variance=1e-6)
    apart = build_readings({"semisupervised_rounds": shifted}, problems=EVERY_PROBLEM, seed=0)
    assert with_robustness(claims, apart).set_index("id").loc["prior_vs_iterative_hard_error", "readings"] == 4


def test_claims_and_readings_split_the_run_from_the_grid():
    rounds = rounds_table(splits=("s",))
    tables = {"semisupervised_rounds": rounds,
              "readings_semisupervised_rounds": rounds.assign(relative_min_variance=0.25)}
    claims, readings = claims_and_readings(tables, problems=EVERY_PROBLEM, seed=0, rule="confidence",
                                           em=EMSettings(relative_min_variance=1e-6))
    assert claims["reading"].str.endswith("relative_min_variance=1e-06").all()
    assert readings["reading"].str.contains("relative_min_variance=0.25").all()
    assert (claims["readings"] > 0).all()


def test_expand_any_gives_each_row_one_setting():
    table = pd.DataFrame({"restart": ["any", "warm", "fresh"], "value": [1, 2, 3]})
    expanded = expand_any(table, ["restart"])
    assert sorted(expanded["restart"]) == ["fresh", "fresh", "warm", "warm"]
    assert sorted(expanded["value"]) == [1, 1, 2, 3]


def test_claims_without_their_tables_are_left_out():
    claims = build_claims({"em_trace": em_trace_table()}, problems=EVERY_PROBLEM, seed=0)
    assert set(claims["id"]) == {"em_iterations", "em_global_maximum", "kernel_map_iterations"}
    assert build_claims({}, problems=None, seed=0).empty
