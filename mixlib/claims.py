"""The claims of the report, checked against what this run measured.

Each :class:`Claim` names the table it is measured from and how: ``build_claims`` evaluates
every claim whose table the run produced, so stages add their claims here and the claims
table grows with the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

CLAIM_COLUMNS = ["id", "figure", "statement", "reported", "measured", "tolerance", "rule", "holds", "table"]


@dataclass(frozen=True)
class Claim:
    """One numeric statement of the report.

    Attributes
    ----------
    id, figure, statement : str
        A stable identifier, the report figure and the report's words (in English).
    reported : float
        The report's number (errors as fractions).
    table : str
        Name of the pipeline table the claim is measured from (e.g. ``"em_trace"``).
    measure : callable
        ``measure(table) -> float``: the quantity this run measured.
    tolerance : float
        How far the measurement may be from ``reported`` for the claim to hold
        (``rule="within"``: ``|measured - reported| <= tolerance``); with ``rule="at_most"``
        or ``"at_least"`` the measurement must be at most / at least ``reported + tolerance``
        / ``reported - tolerance``.
    rule : {"within", "at_most", "at_least"}
    """

    id: str
    figure: str
    statement: str
    reported: float
    table: str
    measure: Callable[[pd.DataFrame], float]
    tolerance: float
    rule: str = "within"

    def holds(self, measured: float) -> bool:
        if not np.isfinite(measured):
            return False
        if self.rule == "within":
            return abs(measured - self.reported) <= self.tolerance
        if self.rule == "at_most":
            return measured <= self.reported + self.tolerance
        if self.rule == "at_least":
            return measured >= self.reported - self.tolerance
        raise ValueError(f"Unknown claim rule {self.rule!r}.")


def _median_em_iterations(table: pd.DataFrame) -> float:
    per_fit = table.drop_duplicates(["repeat", "class"])
    return float(per_fit["n_iter"].median())


def _median_kernel_map_iterations(table: pd.DataFrame) -> float:
    kernels = table[table["kind"] == "kernel"].drop_duplicates("class")
    return float(kernels["n_iter"].median())


def _mean_mlp_test_error(table: pd.DataFrame) -> float:
    return float(table.loc[table["metric"] == "test_error", "value"].mean())


def _final_round_metric(method: str, metric: str) -> Callable[[pd.DataFrame], float]:
    """Mean over repeats of ``metric`` at the last round of each run of ``method``."""

    def measure(table: pd.DataFrame) -> float:
        rows = table[(table["method"] == method) & (table["metric"] == metric)]
        last = rows.loc[rows.groupby("repeat")["round"].idxmax()]
        return float(last["value"].mean())

    return measure


def _mean_rounds(method: str) -> Callable[[pd.DataFrame], float]:
    """Mean over repeats of the rounds a method ran after its labelled-only start."""

    def measure(table: pd.DataFrame) -> float:
        rows = table[table["method"] == method]
        return float(rows.groupby("repeat")["round"].max().mean())

    return measure


def _early_flips(table: pd.DataFrame) -> float:
    """Mean share of flips over rounds 1-3 of the prior-probability method."""
    rows = table[(table["method"] == "prior") & (table["metric"] == "flips") & table["round"].between(1, 3)]
    return float(rows["value"].mean())


def _hard_error_gap(table: pd.DataFrame) -> float:
    """Final hard error of the prior method minus that of the iterative method."""
    return (_final_round_metric("prior", "hard_error")(table)
            - _final_round_metric("iterative", "hard_error")(table))


def _sweep_curve(table: pd.DataFrame, method: str, metric: str) -> pd.Series:
    rows = table[(table["method"] == method) & (table["metric"] == metric)]
    return rows.groupby("n_components")["value"].mean()


def _argmin_train_error(table: pd.DataFrame) -> float:
    """Kernels per class at which the mean training error of both methods is lowest."""
    both = _sweep_curve(table, "iterative", "train_error") + _sweep_curve(table, "prior", "train_error")
    return float(both.idxmin())


def _sweep_value(method: str, metric: str, kernels: int) -> Callable[[pd.DataFrame], float]:
    def measure(table: pd.DataFrame) -> float:
        curve = _sweep_curve(table, method, metric)
        return float(curve.get(kernels, np.nan))

    return measure


def _test_error_gap(table: pd.DataFrame) -> float:
    """Mean over kernel counts of |test error iterative - test error prior|."""
    gap = _sweep_curve(table, "iterative", "test_error") - _sweep_curve(table, "prior", "test_error")
    return float(gap.abs().mean())


def _dna_mean_test_error(encoding: str) -> Callable[[pd.DataFrame], float]:
    def measure(table: pd.DataFrame) -> float:
        rows = table[(table["encoding"] == encoding) & (table["class"] == "all")
                     & (table["metric"] == "test_error")]
        return float(rows["value"].mean()) if len(rows) else float("nan")

    return measure


def _model_cv_errors(table: pd.DataFrame, model: str) -> pd.Series:
    rows = table[(table["model"] == model) & (table["metric"] == "cv_error")]
    return rows.groupby("dataset")["value"].mean()


def _mixture_accuracy(table: pd.DataFrame) -> float:
    """Mean over data sets of the mixture classifier's cross-validated accuracy."""
    return float(1.0 - _model_cv_errors(table, "mixture").mean())


def _mixture_minus_mlp(table: pd.DataFrame) -> float:
    """Mean over data sets of (mixture CV error - MLP CV error)."""
    return float((_model_cv_errors(table, "mixture") - _model_cv_errors(table, "mlp")).mean())


def _probabilistic_minus_deterministic(table: pd.DataFrame) -> float:
    """Mean over data sets of (mean CV error of probabilistic models - of deterministic ones)."""
    from mixlib.experiments.comparison import probabilistic_vs_deterministic

    return float(probabilistic_vs_deterministic(table).drop_duplicates("dataset")["gap"].mean())


CLAIMS: list[Claim] = [
    Claim(
        "em_iterations", "fig3_3",
        "The EM log-likelihood converges in about 20 iterations (median over classes and repeats).",
        reported=20, table="em_trace", measure=_median_em_iterations, tolerance=10,
    ),
    Claim(
        "kernel_map_iterations", "fig3_4",
        "With 4 kernels per class and 36 labelled examples, EM runs about 30 iterations.",
        reported=30, table="kernel_map", measure=_median_kernel_map_iterations, tolerance=15,
    ),
    Claim(
        "mlp_mean_test_error", "fig6_2",
        "The MLP's mean test error on the DNA data is about 8.5 % (mean over regimes, hidden "
        "sizes and repeats).",
        reported=0.085, table="mlp_sweep", measure=_mean_mlp_test_error, tolerance=0.03,
    ),
    Claim("iterative_hard_error", "fig5_1",
          "Iterative classification: the hard error settles at about 5 %.",
          reported=0.05, table="semisupervised_rounds",
          measure=_final_round_metric("iterative", "hard_error"), tolerance=0.03),
    Claim("iterative_unknown_error", "fig5_1",
          "Iterative classification: the unknown error settles at about 3 %.",
          reported=0.03, table="semisupervised_rounds",
          measure=_final_round_metric("iterative", "unknown_error"), tolerance=0.03),
    Claim("iterative_unknown", "fig5_1",
          "Iterative classification: every unlabelled example ends up classified (0 % unknown).",
          reported=0.0, table="semisupervised_rounds",
          measure=_final_round_metric("iterative", "unknown"), tolerance=0.01),
    Claim("iterative_rounds", "fig5_1",
          "Iterative classification settles after 2 to 3 iterations.",
          reported=2.5, table="semisupervised_rounds", measure=_mean_rounds("iterative"),
          tolerance=1.0),
    Claim("prior_rounds", "fig5_3",
          "The prior-probability method needs 4 iterations to reach constant rates.",
          reported=4, table="semisupervised_rounds", measure=_mean_rounds("prior"), tolerance=1.0),
    Claim("prior_hard_error", "fig5_3",
          "The prior-probability method's hard error settles at about 4 %.",
          reported=0.04, table="semisupervised_rounds",
          measure=_final_round_metric("prior", "hard_error"), tolerance=0.03),
    Claim("prior_vs_iterative_hard_error", "fig5_3",
          "The prior-probability method's hard error is lower than the iterative method's "
          "(4 % vs 5 %): measured as prior minus iterative.",
          reported=0.0, table="semisupervised_rounds", measure=_hard_error_gap, tolerance=0.0,
          rule="at_most"),
    Claim("prior_early_flips", "fig5_3",
          "About 2 % of the examples change class in each of the first 3 iterations.",
          reported=0.02, table="semisupervised_rounds", measure=_early_flips, tolerance=0.02),
    Claim("prior_unknown_error", "fig5_3",
          "The prior-probability method's unknown error grows to about 3 %.",
          reported=0.03, table="semisupervised_rounds",
          measure=_final_round_metric("prior", "unknown_error"), tolerance=0.03),
    Claim("sweep_best_kernels", "fig5_4",
          "The training error is lowest at 8 kernels per class, for both methods.",
          reported=8, table="kernel_sweep", measure=_argmin_train_error, tolerance=0),
    Claim("sweep_iterative_32", "fig5_4",
          "At 32 kernels the iterative method's training error reaches about 18 %.",
          reported=0.18, table="kernel_sweep", measure=_sweep_value("iterative", "train_error", 32),
          tolerance=0.05),
    Claim("sweep_prior_32", "fig5_4",
          "At 32 kernels the prior-probability method's training error stays near 6 %.",
          reported=0.06, table="kernel_sweep", measure=_sweep_value("prior", "train_error", 32),
          tolerance=0.03),
    Claim("sweep_test_equivalent", "fig5_5",
          "The test errors of the two methods are equivalent (mean absolute gap over kernel counts).",
          reported=0.0, table="kernel_sweep", measure=_test_error_gap, tolerance=0.02),
    Claim("dna_mixture_error_onehot", "fig6_1",
          "The mixture classifier's mean test error on DNA is about 20 % (one-hot coding).",
          reported=0.20, table="dna_kernel_sweep", measure=_dna_mean_test_error("onehot"),
          tolerance=0.05),
    Claim("dna_mixture_error_ordinal", "fig6_1",
          "The mixture classifier's mean test error on DNA is about 20 % (ordinal coding).",
          reported=0.20, table="dna_kernel_sweep", measure=_dna_mean_test_error("ordinal"),
          tolerance=0.05),
    Claim("mixture_accuracy", "conclusion",
          "The mixture classifier is 60-70 % correct on the test problems (mean cross-validated "
          "accuracy over the data sets).",
          reported=0.65, table="comparison", measure=_mixture_accuracy, tolerance=0.05),
    Claim("mixture_worse_than_mlp", "ch6",
          "The mixture classifier generalises worse than the MLP (20 % vs 8.5 % on DNA): "
          "mean over data sets of mixture minus MLP cross-validated error.",
          reported=0.0, table="comparison", measure=_mixture_minus_mlp, tolerance=0.0,
          rule="at_least"),
    Claim("probabilistic_worse", "conclusion",
          "Deterministic methods generalise better than probabilistic ones: mean over data sets "
          "of (probabilistic minus deterministic mean cross-validated error).",
          reported=0.0, table="comparison", measure=_probabilistic_minus_deterministic,
          tolerance=0.0, rule="at_least"),
]


def build_claims(tables: Mapping[str, pd.DataFrame], claims: list[Claim] | None = None) -> pd.DataFrame:
    """The claims table: one row per claim whose table is in ``tables``.

    Parameters
    ----------
    tables : mapping name -> DataFrame
        The run's tables by name (claims naming an absent table are left out).
    claims : list of Claim, optional
        Defaults to :data:`CLAIMS`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CLAIM_COLUMNS`; ``holds`` is ``yes`` or ``no``.
    """
    rows = []
    for claim in CLAIMS if claims is None else claims:
        if claim.table not in tables:
            continue
        measured = float(claim.measure(tables[claim.table]))
        rows.append([
            claim.id, claim.figure, claim.statement, claim.reported, measured, claim.tolerance,
            claim.rule, "yes" if claim.holds(measured) else "no", claim.table,
        ])
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)
