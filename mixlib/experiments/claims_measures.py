"""How each claim of the report is measured from a pipeline table.

Every function here is a ``measure`` of :class:`mixlib.experiments.claims.Claim`: a table (or a
dict name -> table for claims on several tables) in, one float out, or a :class:`Tested` when
a significance test decides the claim (None: nothing to measure under that setting).
Factories such as :func:`final_round_metric` return such a function for one method and metric.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mixlib.model_selection.rank_tests import group_rank_test, nemenyi_p_value


@dataclass(frozen=True)
class Tested:
    """A measurement decided by a test: ``holds`` iff the effect has the claimed sign
    (``value > 0``) and ``p_value < alpha``; ``test`` names the test."""

    value: float
    p_value: float
    alpha: float
    test: str

    @property
    def holds(self) -> bool:
        return bool(np.isfinite(self.value) and self.value > 0 and self.p_value < self.alpha)


def median_em_iterations(table: pd.DataFrame) -> float:
    """Median over (repeat, class) fits of the EM iterations (``em_trace`` table)."""
    per_fit = table.drop_duplicates(["repeat", "class"])
    return float(per_fit["n_iter"].median())


def median_kernel_map_iterations(table: pd.DataFrame) -> float:
    """Median over classes of the EM iterations of the kernel fits (``kernel_map`` table)."""
    kernels = table[table["kind"] == "kernel"].drop_duplicates("class")
    return float(kernels["n_iter"].median())


def mean_mlp_test_error(table: pd.DataFrame) -> float:
    """Mean test error of the MLPs over every regime, size and repeat (``mlp_sweep`` table)."""
    return float(table.loc[table["metric"] == "test_error", "value"].mean())


def final_round_metric(method: str, metric: str) -> Callable[[pd.DataFrame], float]:
    """Mean over repeats of ``metric`` at the last round of each run of ``method``."""

    def measure(table: pd.DataFrame) -> float:
        rows = table[(table["method"] == method) & (table["metric"] == metric)]
        last = rows.loc[rows.groupby("repeat")["round"].idxmax()]
        return float(last["value"].mean())

    return measure


def mean_rounds(method: str) -> Callable[[pd.DataFrame], float]:
    """Mean over repeats of the rounds a method ran after its labelled-only start."""

    def measure(table: pd.DataFrame) -> float:
        rows = table[table["method"] == method]
        return float(rows.groupby("repeat")["round"].max().mean())

    return measure


def early_flips(table: pd.DataFrame) -> float:
    """Mean share of flips over rounds 1-3 of the prior-probability method."""
    rows = table[(table["method"] == "prior") & (table["metric"] == "flips") & table["round"].between(1, 3)]
    return float(rows["value"].mean())


def hard_error_gap(table: pd.DataFrame) -> float:
    """Final hard error of the prior method minus that of the iterative method."""
    return (final_round_metric("prior", "hard_error")(table)
            - final_round_metric("iterative", "hard_error")(table))


def _sweep_curve(table: pd.DataFrame, method: str, metric: str) -> pd.Series:
    """Mean of ``metric`` of ``method`` per kernel count (``n_components``)."""
    rows = table[(table["method"] == method) & (table["metric"] == metric)]
    return rows.groupby("n_components")["value"].mean()


def argmin_train_error(table: pd.DataFrame) -> float:
    """Kernels per class at which the mean training error of both methods is lowest."""
    both = _sweep_curve(table, "iterative", "train_error") + _sweep_curve(table, "prior", "train_error")
    return float(both.idxmin())


def sweep_value(method: str, metric: str, kernels: int) -> Callable[[pd.DataFrame], float]:
    """Mean ``metric`` of ``method`` at ``kernels`` kernels per class (NaN if not swept)."""

    def measure(table: pd.DataFrame) -> float:
        curve = _sweep_curve(table, method, metric)
        return float(curve.get(kernels, np.nan))

    return measure


def mean_test_error_gap(table: pd.DataFrame) -> float:
    """Mean over kernel counts of |test error iterative - test error prior|."""
    gap = _sweep_curve(table, "iterative", "test_error") - _sweep_curve(table, "prior", "test_error")
    return float(gap.abs().mean())


def dna_mean_test_error(encoding: str) -> Callable[[pd.DataFrame], float]:
    """Mean test error of the DNA mixtures of ``encoding`` over kernel counts and repeats."""

    def measure(table: pd.DataFrame) -> float:
        rows = table[(table["encoding"] == encoding) & (table["class"] == "all")
                     & (table["metric"] == "test_error")]
        return float(rows["value"].mean()) if len(rows) else float("nan")

    return measure


def _model_cv_errors(table: pd.DataFrame, model: str) -> pd.Series:
    """Cross-validated error of ``model`` per data set (``comparison`` table, CV rows)."""
    rows = table[(table["model"] == model) & (table["metric"] == "cv_error")]
    if "protocol" in rows.columns:
        rows = rows[rows["protocol"].fillna("cv") == "cv"]
    return rows.groupby("dataset")["value"].mean()


def mixture_accuracy(table: pd.DataFrame) -> float:
    """Mean over data sets of the mixture classifier's cross-validated accuracy."""
    return float(1.0 - _model_cv_errors(table, "mixture").mean())


def mixture_minus_mlp_tested(pairs: pd.DataFrame) -> Tested | None:
    """Mixture minus MLP mean fold error on one data set's cross-validation
    (``comparison_pairs`` rows of one data set), decided by the corrected resampled t-test
    with Holm's adjustment over the data set's pairs; None without that pair."""
    rows = pairs[pairs["protocol"] == "cv"]
    for a, b, sign in (("mixture", "mlp", 1.0), ("mlp", "mixture", -1.0)):
        pair = rows[(rows["model_a"] == a) & (rows["model_b"] == b)]
        if len(pair):
            row = pair.iloc[0]
            return Tested(sign * float(row["mean_difference"]), float(row["p_holm"]),
                          float(row["alpha"]),
                          "corrected resampled t-test (Nadeau-Bengio), Holm-adjusted")
    return None


def mixture_minus_mlp_rank(ranks: pd.DataFrame) -> Tested | None:
    """Mean rank of the mixture minus that of the MLP (``comparison_ranks``), decided by the
    Nemenyi test (p < alpha iff the difference reaches the critical difference)."""
    mean_rank = ranks.set_index("model")["mean_rank"]
    if not {"mixture", "mlp"} <= set(mean_rank.index):
        return None
    difference = float(mean_rank["mixture"] - mean_rank["mlp"])
    p = nemenyi_p_value(difference, int(ranks["n_models"].iloc[0]),
                        int(ranks["n_datasets"].iloc[0]))
    return Tested(difference, p, float(ranks["alpha"].iloc[0]), "Nemenyi test on mean ranks")


def probabilistic_minus_deterministic_rank(ranks: pd.DataFrame) -> Tested | None:
    """Mean over the probabilistic models of their mean rank minus that of the deterministic
    ones (``comparison_ranks``), with the exact one-sided permutation test of the assignment
    of models to the two approaches (:func:`mixlib.model_selection.rank_tests.group_rank_test`)."""
    approaches = set(ranks["approach"])
    if not {"probabilistic", "deterministic"} <= approaches or approaches - {
            "probabilistic", "deterministic"}:
        return None
    result = group_rank_test(ranks["mean_rank"].to_numpy(),
                             (ranks["approach"] == "probabilistic").to_numpy())
    return Tested(result.difference, result.p_value, float(ranks["alpha"].iloc[0]),
                  f"exact permutation test of the approach labels over the models' mean "
                  f"ranks ({result.n_assignments} assignments, one-sided)")


def train_error_gap_at(kernels: int) -> Callable[[pd.DataFrame], float]:
    """|iterative - prior| mean training error at ``kernels`` kernels per class."""

    def measure(table: pd.DataFrame) -> float:
        gap = _sweep_curve(table, "iterative", "train_error") - _sweep_curve(table, "prior", "train_error")
        return float(abs(gap.get(kernels, np.nan)))

    return measure


def prior_minus_iterative_train_error(table: pd.DataFrame) -> float:
    """Largest, over kernel counts, of the prior minus the iterative mean training error."""
    gap = _sweep_curve(table, "prior", "train_error") - _sweep_curve(table, "iterative", "train_error")
    return float(gap.max())


def rounds_gap(table: pd.DataFrame) -> float:
    """Mean rounds of the prior method minus mean rounds of the iterative method."""
    return mean_rounds("prior")(table) - mean_rounds("iterative")(table)


def late_flips(table: pd.DataFrame) -> float:
    """Mean over repeats of the share of flips summed over the prior method's rounds >= 4.

    A repeat that settled before round 4 has no such rounds and counts 0.
    """
    prior = table[table["method"] == "prior"]
    late = prior[(prior["metric"] == "flips") & (prior["round"] >= 4)]
    per_repeat = late.groupby("repeat")["value"].sum().reindex(prior["repeat"].unique(), fill_value=0.0)
    return float(per_repeat.mean())


def best_mixture_minus_mlp(encoding: str) -> Callable[[Mapping[str, pd.DataFrame]], float]:
    """Lowest mean test error of the mixture over kernel counts minus the MLP's mean test error."""

    def measure(tables: Mapping[str, pd.DataFrame]) -> float:
        dna, mlp = tables["dna_kernel_sweep"], tables["mlp_sweep"]
        rows = dna[(dna["encoding"] == encoding) & (dna["class"] == "all") & (dna["metric"] == "test_error")]
        if rows.empty:
            return float("nan")
        best = rows.groupby("n_components")["value"].mean().min()
        return float(best - mlp.loc[mlp["metric"] == "test_error", "value"].mean())

    return measure


def mixture_over_mlp_fit_seconds(tables: Mapping[str, pd.DataFrame]) -> float:
    """Mean fit time of the DNA mixture classifiers over the mean fit time of the MLPs."""
    dna, mlp = tables["dna_kernel_sweep"], tables["mlp_sweep"]
    mixture = dna.loc[(dna["class"] == "all") & (dna["metric"] == "fit_seconds"), "value"].mean()
    return float(mixture / mlp.loc[mlp["metric"] == "fit_seconds", "value"].mean())
