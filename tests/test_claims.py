"""The claims table: rules, measures on hand-made tables, and claims without a table left out."""

import re

import numpy as np
import pandas as pd
import pytest

from mixlib.experiments.claims import CLAIM_COLUMNS, CLAIMS, Claim, build_claims, sensitivity_verdicts, settings_of


def _rounds(late_flip=0.0):
    """Two repeats of both methods; the rule-dependent metrics under two rules."""
    rows = []
    for repeat in range(2):
        for method, extra in (("iterative", "unknown"), ("prior", "flips")):
            last = 3 if method == "iterative" else 5
            restart, finish = ("any", "argmax") if method == "iterative" else ("warm", "any")
            for r in range(last + 1):
                hard = 0.10 if r < last else (0.05 if method == "iterative" else 0.04)
                for rule, shift in (("confidence", 0.01), ("underflow", 0.0)):
                    rows += [(method, restart, finish, repeat, r, "hard_error", rule, hard + shift),
                             (method, restart, finish, repeat, r, "unknown_error", rule, shift)]
                flips = 0.02 if 1 <= r <= 3 else (late_flip if r == 4 else 0.0)
                rows.append((method, restart, finish, repeat, r, extra, "any", flips))
    table = pd.DataFrame(rows, columns=["method", "restart", "finish", "repeat", "round", "metric",
                                        "unclassifiable", "value"])
    return table.assign(split="s", threshold=0.75)


def test_claim_ids_are_unique_plain_names():
    ids = [claim.id for claim in CLAIMS]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9_]+", claim_id) for claim_id in ids), ids
    assert {"mixture_accuracy", "probabilistic_worse", "em_iterations"} <= set(ids)


def test_claim_rules():
    within = Claim("a", "f", "s", reported=0.2, table="t", measure=len, tolerance=0.05)
    assert within.holds(0.24) and not within.holds(0.26) and not within.holds(np.nan)
    at_most = Claim("b", "f", "s", reported=0.0, table="t", measure=len, tolerance=0.0, rule="at_most")
    assert at_most.holds(-0.01) and not at_most.holds(0.01)


def test_semisupervised_claims_measure_the_last_round_and_rounds():
    claims = build_claims({"semisupervised_rounds": _rounds()})
    assert list(claims.columns) == CLAIM_COLUMNS
    # Rule-dependent claims: one row per rule; the others one row.
    per_rule = claims[claims["id"] == "iterative_hard_error"].set_index("setting")
    assert per_rule.index.tolist() == ["split=s, finish=argmax, threshold=0.75, unclassifiable=confidence",
                                       "split=s, finish=argmax, threshold=0.75, unclassifiable=underflow"]
    assert per_rule["measured"].tolist() == pytest.approx([0.06, 0.05])
    claims = claims[~claims["setting"].str.contains("confidence")].set_index("id")
    assert claims.loc["prior_hard_error", "measured"] == pytest.approx(0.04)
    assert claims.loc["prior_hard_error", "setting"] == "split=s, restart=warm, threshold=0.75, unclassifiable=underflow"
    assert claims.loc["prior_vs_iterative_hard_error", "measured"] == pytest.approx(-0.01)
    assert claims.loc["prior_vs_iterative_hard_error", "holds"] == "yes"
    assert claims.loc["iterative_rounds", "measured"] == 3 and claims.loc["prior_rounds", "measured"] == 5
    assert claims.loc["prior_more_rounds", "measured"] == 2 and claims.loc["prior_more_rounds", "holds"] == "yes"
    assert claims.loc["prior_early_flips", "measured"] == pytest.approx(0.02)
    assert claims.loc["prior_late_flips", "measured"] == 0.0 and claims.loc["prior_late_flips", "holds"] == "yes"
    assert set(claims["table"]) == {"semisupervised_rounds"}
    late = build_claims({"semisupervised_rounds": _rounds(late_flip=0.03)}).set_index("id")
    assert late.loc["prior_late_flips", "measured"] == pytest.approx(0.03)
    assert late.loc["prior_late_flips", "holds"] == "no"


def test_settings_of_shares_rule_free_rows_with_every_setting():
    table = pd.DataFrame({"split": ["a", "a", "a", "b"], "unclassifiable": ["x", "y", "any", "x"],
                          "value": [1, 2, 3, 4]})
    settings = {label: rows["value"].tolist() for label, rows in settings_of(table, ("split", "unclassifiable"))}
    assert settings == {"split=a, unclassifiable=x": [1, 3], "split=a, unclassifiable=y": [2, 3],
                        "split=b, unclassifiable=x": [4]}
    assert [label for label, _ in settings_of(table, ("restart",))] == [""]


def test_sensitivity_verdicts_say_where_each_claim_holds():
    grid = []
    for threshold in (0.6, 0.9):
        for floor in (1e-6, 1e-2):
            rounds = _rounds()
            if threshold == 0.9:   # the iterative method's hard error rises out of tolerance
                rows = (rounds["method"] == "iterative") & (rounds["metric"] == "hard_error")
                rounds.loc[rows, "value"] += 0.2
            grid.append(rounds.assign(threshold=threshold, relative_min_variance=floor))
    verdicts = sensitivity_verdicts(pd.concat(grid, ignore_index=True)).set_index("claim")
    row = verdicts.loc["iterative_hard_error"]
    assert row["split"] == "s" and row["n_settings"] == 8 and row["n_hold"] == 4
    assert row["holds_everywhere"] == "no"
    assert "threshold=0.6, unclassifiable=underflow, relative_min_variance=1e-06" in row["holds_under"]
    assert "threshold=0.9" in row["flips_under"] and "threshold=0.9" not in row["holds_under"]
    assert verdicts.loc["prior_hard_error", "holds_everywhere"] == "yes"
    assert verdicts.loc["prior_hard_error", "flips_under"] == ""


def test_cross_table_claims_fig6_1_against_fig6_2():
    dna = pd.DataFrame({
        "n_components": [1, 2, 1, 2, 1, 2], "class": "all", "encoding": ["onehot"] * 4 + ["ordinal"] * 2,
        "metric": ["test_error"] * 2 + ["fit_seconds"] * 2 + ["test_error"] * 2,
        "value": [0.12, 0.10, 0.5, 0.7, 0.25, 0.22],
    })
    mlp = pd.DataFrame({"metric": ["test_error", "test_error", "fit_seconds"], "value": [0.07, 0.09, 2.0]})
    claims = build_claims({"dna_kernel_sweep": dna, "mlp_sweep": mlp}).set_index("id")
    assert claims.loc["dna_best_mixture_vs_mlp_onehot", "measured"] == pytest.approx(0.02)
    assert claims.loc["dna_best_mixture_vs_mlp_onehot", "holds"] == "yes"
    assert claims.loc["dna_best_mixture_vs_mlp_ordinal", "measured"] == pytest.approx(0.14)
    assert claims.loc["mixture_vs_mlp_fit_seconds", "measured"] == pytest.approx(0.3)
    assert claims.loc["mixture_vs_mlp_fit_seconds", "table"] == "dna_kernel_sweep+mlp_sweep"


def test_kernel_sweep_claims():
    rows = []
    for k, iterative, prior in [(4, 0.10, 0.09), (8, 0.03, 0.03), (32, 0.18, 0.06)]:
        rows += [("iterative", k, "train_error", iterative), ("prior", k, "train_error", prior),
                 ("iterative", k, "test_error", 0.2), ("prior", k, "test_error", 0.21)]
    table = pd.DataFrame(rows, columns=["method", "n_components", "metric", "value"])
    claims = build_claims({"kernel_sweep": table}).set_index("id")
    assert claims.loc["sweep_best_kernels", "measured"] == 8
    assert claims.loc["sweep_best_kernels", "holds"] == "yes"
    assert claims.loc["sweep_iterative_32", "measured"] == pytest.approx(0.18)
    assert claims.loc["sweep_test_equivalent", "measured"] == pytest.approx(0.01)
    assert claims.loc["sweep_equal_at_8", "measured"] == 0.0
    assert claims.loc["sweep_prior_not_above_iterative", "measured"] == pytest.approx(0.0)
    assert claims.loc["sweep_prior_not_above_iterative", "holds"] == "yes"
    assert (claims["setting"] == "").all()


def test_claims_without_their_table_are_left_out_and_ids_are_unique():
    assert build_claims({}).empty
    ids = [claim.id for claim in CLAIMS]
    assert len(ids) == len(set(ids))
