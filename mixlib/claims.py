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
