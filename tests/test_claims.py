"""The claims table: rules, measures on hand-made tables, and claims without a table left out."""

import numpy as np
import pandas as pd
import pytest

from mixlib.claims import CLAIM_COLUMNS, CLAIMS, Claim, build_claims


def _rounds():
    rows = []
    for repeat in range(2):
        for method, extra in (("iterative", "unknown"), ("prior", "flips")):
            last = 3 if method == "iterative" else 4
            for r in range(last + 1):
                hard = 0.10 if r < last else (0.05 if method == "iterative" else 0.04)
                rows += [(method, repeat, r, "hard_error", hard),
                         (method, repeat, r, "unknown_error", 0.0),
                         (method, repeat, r, extra, 0.02 if 1 <= r <= 3 else 0.0)]
    return pd.DataFrame(rows, columns=["method", "repeat", "round", "metric", "value"])


def test_claim_rules():
    within = Claim("a", "f", "s", reported=0.2, table="t", measure=len, tolerance=0.05)
    assert within.holds(0.24) and not within.holds(0.26) and not within.holds(np.nan)
    at_most = Claim("b", "f", "s", reported=0.0, table="t", measure=len, tolerance=0.0, rule="at_most")
    assert at_most.holds(-0.01) and not at_most.holds(0.01)


def test_semisupervised_claims_measure_the_last_round_and_rounds():
    claims = build_claims({"semisupervised_rounds": _rounds()}).set_index("id")
    assert list(claims.columns) == CLAIM_COLUMNS[1:]
    assert claims.loc["iterative_hard_error", "measured"] == pytest.approx(0.05)
    assert claims.loc["prior_hard_error", "measured"] == pytest.approx(0.04)
    assert claims.loc["prior_vs_iterative_hard_error", "measured"] == pytest.approx(-0.01)
    assert claims.loc["prior_vs_iterative_hard_error", "holds"] == "yes"
    assert claims.loc["iterative_rounds", "measured"] == 3 and claims.loc["prior_rounds", "measured"] == 4
    assert claims.loc["prior_early_flips", "measured"] == pytest.approx(0.02)
    assert set(claims["table"]) == {"semisupervised_rounds"}


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


def test_claims_without_their_table_are_left_out_and_ids_are_unique():
    assert build_claims({}).empty
    ids = [claim.id for claim in CLAIMS]
    assert len(ids) == len(set(ids))
