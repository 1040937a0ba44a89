"""The DNA coding as a reading of chapter 6: the mixture and the MLP compared on one coding."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from mixlib.analysis.claims_comparison import OUR_CODING
from mixlib.analysis.claims_table import build_claims
from mixlib.datasets.sources import dataset_encoding

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = {"chapter6": ["splice", "splice_ordinal"]}
DATASET = {"onehot": "splice", "ordinal": "splice_ordinal"}
#: Each model's fit times: CPU time, and a wall clock (the mixture's inflated, as a fit that
#: waited for a CPU) that the timing claim must not read.
FIT_SECONDS = {"mixture": {"fit_cpu_seconds": 1.0, "fit_seconds": 50.0},
               "mlp": {"fit_cpu_seconds": 4.0, "fit_seconds": 5.0}}


def _dna(errors: dict[str, float], n_repeats: int = 6) -> pd.DataFrame:
    """The mixture sweep: split ``dna_<coding>``, test error ``errors[coding] + r / 1000``."""
    return pd.DataFrame([{"n_components": k, "class": "all", "metric": metric,
                          "value": {"test_error": errors[coding], **FIT_SECONDS["mixture"]}[metric] + r / 1000,
                          "repeat": r, "split": f"dna_{coding}", "encoding": coding, "dataset": DATASET[coding]}
                         for coding in errors for r in range(n_repeats) for k in (1, 4)
                         for metric in ("test_error", *FIT_SECONDS["mixture"])])


def _mlp(errors: dict[str, float], n_repeats: int = 6) -> pd.DataFrame:
    """The MLP sweep: split ``mlp_<coding>``, test error ``errors[coding] + 2 r / 1000``."""
    return pd.DataFrame([{"regime": regime, "hidden_size": h, "repeat": r, "metric": metric,
                          "value": {"test_error": errors[coding], **FIT_SECONDS["mlp"]}[metric] + 2 * r / 1000,
                          "split": f"mlp_{coding}", "encoding": coding, "dataset": DATASET[coding]}
                         for coding in errors for r in range(n_repeats) for regime in ("plain", "weight_decay")
                         for h in (2, 8) for metric in ("test_error", *FIT_SECONDS["mlp"])])


def _claims(dna: pd.DataFrame, mlp: pd.DataFrame) -> pd.DataFrame:
    return build_claims({"dna_kernel_sweep": dna, "mlp_sweep": mlp}, problems=PROBLEMS, seed=0)


def test_the_mixture_is_compared_with_the_mlp_of_its_own_coding():
    claims = _claims(_dna({"onehot": 0.07, "ordinal": 0.22}), _mlp({"onehot": 0.05, "ordinal": 0.15}))
    gap = claims[claims["id"] == "dna_mixture_worse_than_mlp"].set_index("data")
    assert sorted(gap.index) == ["dna_onehot", "dna_ordinal"]  # two pairs, none across codings
    assert gap.loc["dna_onehot", "reading"] == "encoding=onehot, mlp_split=mlp_onehot"
    assert gap.loc["dna_ordinal", "reading"] == "encoding=ordinal, mlp_split=mlp_ordinal"
    # per repeat r: (e_dna + r/1000) - (e_mlp + 2r/1000); mean over r = 0..5 is e_dna - e_mlp - 2.5/1000
    assert gap.loc["dna_onehot", "measured"] == pytest.approx(0.07 - 0.05 - 0.0025)
    assert gap.loc["dna_ordinal", "measured"] == pytest.approx(0.22 - 0.15 - 0.0025)
    assert gap.loc["dna_ordinal", "n"] == 6
    assert gap.loc["dna_ordinal", "detail"] == "ordinal coding: our reading"
    assert gap.loc["dna_onehot", "detail"] == "onehot coding: the alternative"
    seconds = claims[claims["id"] == "mixture_vs_mlp_fit_cpu_seconds"].set_index("data")
    assert seconds.loc["dna_ordinal", "reading"].endswith("mlp_split=mlp_ordinal")
    ratios = [(1.0 + r / 1000) / (4.0 + 2 * r / 1000) for r in range(6)]
    assert seconds.loc["dna_ordinal", "measured"] == pytest.approx(np.mean(ratios))


def test_an_mlp_row_exists_on_the_ordinal_coding_and_says_it_is_our_reading():
    claims = _claims(_dna({"onehot": 0.07, "ordinal": 0.22}), _mlp({"onehot": 0.05, "ordinal": 0.085}))
    mlp = claims[claims["id"] == "mlp_mean_test_error"].set_index("reading")
    assert sorted(mlp.index) == ["encoding=onehot", "encoding=ordinal"]
    ordinal = mlp.loc[f"encoding={OUR_CODING}"]
    assert ordinal["data"] == "mlp_ordinal"
    assert ordinal["measured"] == pytest.approx(0.085 + 0.005)  # + mean of 2r/1000 over r = 0..5
    assert ordinal["detail"].endswith("ordinal coding: our reading")
    assert mlp.loc["encoding=onehot", "detail"].endswith("onehot coding: the alternative")


def test_a_coding_without_an_mlp_of_its_own_gives_no_comparison():
    claims = _claims(_dna({"onehot": 0.07, "ordinal": 0.22}), _mlp({"onehot": 0.05}))
    gap = claims[claims["id"] == "dna_mixture_worse_than_mlp"]
    assert gap["data"].tolist() == ["dna_onehot"]


def test_an_mlp_table_without_its_coding_is_refused():
    with pytest.raises(ValueError, match="mlp_sweep.tsv has no column 'encoding'"):
        _claims(_dna({"ordinal": 0.22}), _mlp({"ordinal": 0.15}).drop(columns="encoding"))


@pytest.mark.parametrize("name", ["config.yaml", "test.yaml"])
def test_the_shipped_configs_run_both_sweeps_on_the_same_codings(name):
    config = yaml.safe_load((ROOT / "config" / name).read_text())

    def codings(splits):
        return sorted(dataset_encoding(config["datasets"][config["splits"][s]["dataset"]]) for s in splits)

    assert codings(config["mlp"]["splits"]) == codings(config["dna_kernel_sweep"]["splits"]) == ["onehot", "ordinal"]


def test_the_timing_ratio_is_widened_by_the_configured_tolerance():
    """claims.timing_tolerance widens the fit-time ratio's interval (each end by the factor);
    1 leaves the repeats' t-interval as it is."""
    dna, mlp = _dna({"ordinal": 0.22}), _mlp({"ordinal": 0.15})
    rows = {f: build_claims({"dna_kernel_sweep": dna, "mlp_sweep": mlp}, problems=PROBLEMS, seed=0,
                            timing_tolerance=f).set_index("id").loc["mixture_vs_mlp_fit_cpu_seconds"]
            for f in (1.0, 1.25, 2.0)}
    bare = rows[1.0]
    assert bare["interval"] == "Student-t over repeats"
    for f in (1.25, 2.0):
        assert rows[f]["measured"] == bare["measured"]
        assert rows[f]["ci_low"] == pytest.approx(bare["ci_low"] / f)
        assert rows[f]["ci_high"] == pytest.approx(bare["ci_high"] * f)
        assert f"widened x{f:g} (" in rows[f]["interval"]
    # the default reading is the config's default
    default = _claims(dna, mlp).set_index("id").loc["mixture_vs_mlp_fit_cpu_seconds"]
    assert default["ci_low"] == pytest.approx(rows[1.25]["ci_low"])
