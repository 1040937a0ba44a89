"""Every row of the claims table decides from its own columns: the verdict, the interval of a
mean, the prediction interval of one run and whether the report's value lies in it."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import stdtrit

from mixlib.analysis.claims_replicate import row_replicate_verdict, stability
from mixlib.analysis.claims_table import build_claims
from mixlib.analysis.intervals import mean_interval, prediction_interval
from mixlib.analysis.verdicts import report_in_prediction, row_verdict
from tests.test_claims import EVERY_PROBLEM, all_tables

#: The claims table of a finished default run (seed 20061), recomputed from that run's tables
#: and frozen: every row kind the study makes (absolute, qualitative, rank, comparison across
#: data sets, beyond the report), most with a replicate.
DEFAULT_RUN = Path(__file__).parent / "data" / "claims_default_run.tsv"
#: Intervals made from values the row does not carry (the class fits of a median, the repeats
#: of a bootstrap, the assignments of a permutation test): the row gives its verdict only.
FROM_THE_VALUES = ("order statistics of the median", "bootstrap over repeats", "exact permutation test")


def _bounds(row) -> tuple[float, float] | None:
    return None if math.isnan(row["range_low"]) else (row["range_low"], row["range_high"])


def recompute(row: pd.Series) -> dict:
    """What the row's own columns say its verdict, intervals, report flag and replicate are.

    A mean over repeats: its interval and prediction interval from ``measured``, ``sd``, ``n``,
    ``alpha`` and the range; the corrected t over folds: ``measured +/- t sqrt(1/n + n_test /
    n_train) sd``, the ratio in the ``interval`` text; the Nemenyi rank gap: ``measured +/-
    CD``, CD in the text (3 digits). The replicate's verdict from its interval, and the flag.
    """
    found = {"verdict": row_verdict(row),
             "report_in_pi": report_in_prediction(row["report_low"], row["report_high"], row["pi_low"],
                                                  row["pi_high"])}
    method = row["interval"]
    if method.startswith("corrected t"):
        ratio = float(re.search(r"n_test / n_train = ([0-9.e+-]+)\)", method).group(1))
        half = stdtrit(row["n"] - 1, 1 - row["alpha"] / 2) * math.sqrt(1 / row["n"] + ratio) * row["sd"]
        found.update(ci_low=row["measured"] - half, ci_high=row["measured"] + half)
    elif method.startswith("Nemenyi"):
        cd = float(re.search(r"critical difference ([0-9.]+)", method).group(1))
        found.update(ci_low=pytest.approx(row["measured"] - cd, abs=0.05),
                     ci_high=pytest.approx(row["measured"] + cd, abs=0.05))
    elif not math.isnan(row["sd"]) and row["n"] >= 2:
        (low,), (high,), _ = mean_interval(row["measured"], row["sd"], row["n"], row["alpha"], _bounds(row))
        (pi_low,), (pi_high,) = prediction_interval(row["measured"], row["sd"], row["n"], row["alpha"],
                                                    _bounds(row))
        widening = re.search(r", widened x([0-9.]+) \(", method)
        if widening:  # each end moved away from the estimate by the factor
            f = float(widening.group(1))
            low, pi_low = (min(end / f, end * f) for end in (low, pi_low))
            high, pi_high = (max(end * f, end / f) for end in (high, pi_high))
        found.update(ci_low=low, ci_high=high, pi_low=pi_low, pi_high=pi_high)
    else:
        assert method.startswith(FROM_THE_VALUES) or "bootstrap over repeats" in method, (row["id"], method)
    if "replicate_verdict" in row.index:
        found.update(replicate_verdict=row_replicate_verdict(row),
                     stability=stability(row["verdict"], row["replicate_verdict"]))
    return found


def read_claims(path: Path) -> pd.DataFrame:
    """A claims.tsv as the study writes it: numbers as floats, empty text cells as ``""``."""
    table = pd.read_csv(path, sep="\t")
    text = table.select_dtypes(exclude="number").columns
    return table.assign(**{c: table[c].fillna("").astype(str) for c in text})


def _check_rows(claims: pd.DataFrame) -> int:
    recomputed = 0
    for _, row in claims.iterrows():
        for column, value in recompute(row).items():
            if isinstance(value, str):
                assert value == row[column], (row["id"], row["data"], column)
            else:
                expected = value if hasattr(value, "expected") else pytest.approx(value, nan_ok=True)
                assert row[column] == expected, (row["id"], row["data"], column)
                recomputed += 1
    return recomputed


@pytest.fixture(scope="module")
def claims() -> pd.DataFrame:
    return build_claims(all_tables(), problems=EVERY_PROBLEM, seed=0)


def test_every_verdict_interval_and_prediction_interval_follows_from_its_row(claims):
    assert claims["interval"].str.contains(", widened x").any()  # the timing ratio's
    assert _check_rows(claims) >= 4 * 20


def test_every_row_of_a_default_run_follows_from_its_own_columns():
    claims = read_claims(DEFAULT_RUN)
    kinds = set(claims["kind"])
    assert {"absolute", "qualitative", "beyond the report"} <= kinds
    assert claims["interval"].str.startswith("Nemenyi").any() and claims["p_holds"].notna().any()
    assert (claims["replicate_verdict"] != "").sum() >= 30
    assert _check_rows(claims) >= 4 * 30


def test_the_row_checks_catch_a_wrong_verdict_interval_or_flag():
    claims = read_claims(DEFAULT_RUN)
    first = claims.index[(claims["replicate_verdict"] != "") & claims["pi_high"].notna()
                         & claims["sd"].notna()][0]
    for column, value in (("verdict", "holds" if claims.loc[first, "verdict"] != "holds" else "contradicted"),
                          ("pi_high", claims.loc[first, "pi_high"] + 0.01),
                          ("stability", "unstable" if claims.loc[first, "stability"] == "stable" else "stable"),
                          ("replicate_verdict", "contradicted" if claims.loc[first, "replicate_verdict"] != "contradicted"
                           else "holds")):
        broken = claims.loc[[first]].copy()
        broken[column] = value
        with pytest.raises(AssertionError):
            _check_rows(broken)


def test_shares_and_rates_stay_in_their_range_and_absolute_rows_answer_both_questions(claims):
    bounded = claims[claims["range_low"].notna()]
    assert len(bounded) > 10
    for column in ("ci_low", "ci_high", "pi_low", "pi_high"):
        values = bounded[column].dropna()
        assert ((values >= bounded.loc[values.index, "range_low"])
                & (values <= bounded.loc[values.index, "range_high"])).all(), column
    rates = claims[claims["id"].isin(["iterative_hard_error", "prior_unknown_error", "dna_mixture_error"])]
    assert (rates["range_low"] == 0).all() and (rates["range_high"] == 1).all()
    absolute = claims[(claims["kind"] == "absolute") & claims["pi_low"].notna()]
    assert set(absolute["report_in_pi"]) <= {"yes", "no"} and len(absolute) > 5
    qualitative = claims[claims["kind"] == "qualitative"]
    assert (qualitative["report_in_pi"].fillna("") == "").all()


def test_report_in_prediction_reads_a_value_or_a_range():
    assert report_in_prediction(0.05, 0.05, 0.01, 0.09) == "yes"
    assert report_in_prediction(0.05, 0.05, 0.06, 0.09) == "no"
    assert report_in_prediction(2, 3, 3.5, 6) == "no" and report_in_prediction(2, 3, 2.5, 6) == "yes"
    assert report_in_prediction(np.nan, np.nan, 0.0, 1.0) == ""
    assert report_in_prediction(0.05, 0.05, np.nan, np.nan) == ""


def test_the_replicate_is_judged_on_its_own_rows_and_a_disagreement_is_unstable():
    from mixlib.analysis.claims_replicate import REPLICATE_COLUMNS, row_replicate_verdict, stability
    from mixlib.analysis.claims_table import claims_and_readings
    from mixlib.catalogue.settings import EMSettings
    from tests.test_claims import rounds_table

    rounds = rounds_table(splits=("s",))
    other = rounds_table(splits=("s",), seed=9)
    other["split"] = "s_replicate"
    tables = {"semisupervised_rounds": rounds, "replicate_semisupervised_rounds": other}
    claims, _ = claims_and_readings(tables, problems=EVERY_PROBLEM, seed=0, rule="confidence",
                                    em=EMSettings(relative_min_variance=1e-6))
    assert list(claims.columns[-len(REPLICATE_COLUMNS):]) == REPLICATE_COLUMNS
    alone = build_claims({"semisupervised_rounds": other.assign(split="s")}, problems=EVERY_PROBLEM, seed=0,
                         rule="confidence", floor="relative_min_variance=1e-06").set_index(["id", "reading"])
    for _, row in claims.iterrows():
        assert row_replicate_verdict(row) == row["replicate_verdict"]
        assert row["stability"] == stability(row["verdict"], row["replicate_verdict"]) != ""
        mirror = alone.loc[(row["id"], row["reading"])]
        assert row["replicate_measured"] == pytest.approx(mirror["measured"])
    # the same draws twice agree everywhere; no replicate, no flag
    same = {"semisupervised_rounds": rounds, "replicate_semisupervised_rounds": rounds.assign(split="s_replicate")}
    twice, _ = claims_and_readings(same, problems=EVERY_PROBLEM, seed=0, rule="confidence", em=EMSettings())
    assert (twice["stability"] == "stable").all()
    once, _ = claims_and_readings({"semisupervised_rounds": rounds}, problems=EVERY_PROBLEM, seed=0,
                                  rule="confidence", em=EMSettings())
    assert (once["stability"] == "").all() and (once["replicate_verdict"] == "").all()
    assert stability("holds", "inconclusive") == "unstable" and stability("holds", "") == ""


def test_a_chapter_3_or_5_row_short_of_min_n_says_so_and_no_other_does():
    from mixlib.analysis.claims_table import short_of_min_n

    rows = pd.DataFrame({"chapter": ["3", "5", "5", "6"], "n": [21, 30, 35, 10],
                         "replicate_n": pd.array([30, 26, pd.NA, pd.NA], dtype="Int64"),
                         "detail": ["12 % of the fits collapsed", "", "", ""]})
    noted = short_of_min_n(rows, 30)["detail"].tolist()
    assert noted[0] == ("12 % of the fits collapsed; n = 21 below claims.min_n = 30: too few repeats count "
                        "for this measure even at claims.max_repeats")
    assert noted[1].startswith("replicate n = 26 below claims.min_n = 30")
    assert noted[2:] == ["", ""]  # enough repeats; chapter 6 has no min_n
    assert rows["detail"].tolist()[1] == ""  # the input is left alone


def test_in_a_default_run_every_chapter_3_and_5_row_has_min_n_repeats_or_says_why():
    claims = read_claims(DEFAULT_RUN)
    read = claims[claims["chapter"].astype(str).isin(["3", "5"])]
    assert len(read) >= 30
    for _, row in read.iterrows():
        short = row["n"] < 30 or (row["replicate_n"] != "" and float(row["replicate_n"]) < 30)
        assert short == ("below claims.min_n = 30" in row["detail"]), (row["id"], row["data"])
    assert (read["n"] >= 30).all()  # the default run reaches it: em_trace and the prior rounds ran on
