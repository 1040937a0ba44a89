"""The report's chapter-6 claims decided across the data sets of a suite.

The claims table (:mod:`mixlib.analysis.claims_table`) decides the chapter-6 claims on the
study's own problems; with a comparison over enough data sets, the same questions get a test
across data sets (Demšar 2006; Benavoli et al. 2017), one row per claim, test and reading:

- ``suite_mixture_worse_than_mlp``: "the mixture generalises worse than the MLP". ``theta``
  is the difference of cross-validated error, mixture minus MLP, on a data set.
- ``suite_probabilistic_worse``: "deterministic methods generalise better than probabilistic
  ones" (the report's conclusion), ``theta`` the error of the probabilistic side minus the
  deterministic side. Which error stands for a family is a reading (:data:`FAMILY_READINGS`);
  every reading gets its rows and ``our_reading`` marks ours.
- ``suite_mixture_accuracy``: the mixture is "60 %, 70 %" correct "on its test problems",
  read as a statement about classification problems at large, the suite's data sets standing
  for them: the band of :data:`ACCURACY_BAND` (the claims module's rule) against the interval
  of the mixture's typical accuracy across data sets (the mean with its Student-t interval,
  ours; the median with its order-statistic interval).

The two comparisons are decided twice. The Wilcoxon signed-rank test
(:func:`mixlib.model_selection.across_datasets.wilcoxon_signed_rank`, one-sided both ways) on
the band ``(0, inf)``: holds when ``p_greater < alpha / 2``, contradicted when
``p_less < alpha / 2`` (each one-sided test at half the level, as each side of a ``1 - alpha``
interval)
(:func:`mixlib.analysis.verdicts.from_one_sided_p`). The Bayesian signed-rank test
(:func:`~mixlib.model_selection.across_datasets.bayesian_signed_rank`) on the band ``(rope,
inf)``, "worse by more than the rope": holds when ``P(b better) > 1 - alpha / 2``,
contradicted when ``P(b better) < alpha / 2`` (:func:`~mixlib.analysis.verdicts.from_posterior`), so
practical equivalence (``P(rope)`` near 1) contradicts the claim. The claims are the report's
own, stated before the suite ran: their p-values are not adjusted over the pairs of models.
``significance_level`` is the comparison's significance level, and every verdict follows from its row
(:func:`mixlib.analysis.verdicts.row_verdict`).

**When.** A one-sided signed-rank test over ``n`` data sets cannot go below ``2 ** -n`` (every
data set on one side): on fewer data sets than it takes to go below ``alpha / 2``, its verdict is
``inconclusive`` whatever the errors, so the pipeline builds this table only from that many
data sets on (:func:`mixlib.pipeline.suite_claims.min_signed_rank_datasets`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator
from mixlib.analysis.claims import HIGHER, POINT, Band, counted
from mixlib.analysis.comparison_across import chapter6_pairs, dataset_errors
from mixlib.analysis.comparison_stats import table_significance_level
from mixlib.analysis.intervals import SHARE
from mixlib.analysis.verdicts import (
    Evidence, decide, from_one_sided_p, from_posterior, median_evidence, t_evidence,
)
from mixlib.model_selection.across_datasets import bayesian_signed_rank, wilcoxon_signed_rank

MIXTURE_VS_MLP, PROBABILISTIC_WORSE, ACCURACY = (
    "suite_mixture_worse_than_mlp", "suite_probabilistic_worse", "suite_mixture_accuracy")
STATEMENTS = {
    MIXTURE_VS_MLP: "The mixture generalises worse than the MLP: mixture minus MLP cross-validated "
                    "error, paired by data set.",
    PROBABILISTIC_WORSE: "Deterministic methods generalise better than probabilistic ones: the "
                         "probabilistic family's cross-validated error minus the deterministic "
                         "family's, paired by data set.",
    ACCURACY: "The mixture is '60 %, 70 %' correct on its test problems: its cross-validated "
              "accuracy across the data sets.",
}
#: The claims module's band of "60 %, 70 %" (rule 1-2: the range widened by one point).
ACCURACY_BAND = counted(0.60, 0.70, POINT, "'60 %, 70 %'")
#: How a family's error on a data set is read, ours first.
FAMILY_READINGS = {
    "best_by_rank": "each family's model of best mean rank over these data sets (ties by name); "
                    "the selection uses the data the test reads, and is part of this reading",
    "per_dataset_best": "on each data set, the lowest error among the family's models (an oracle "
                        "choice per data set, which favours the family with more models)",
    "family_mean": "on each data set, the mean error of the family's models (no selection)",
}
ACCURACY_READINGS = {"mean": "mean accuracy over the data sets, Student-t interval",
                     "median": "median accuracy over the data sets, order-statistic interval"}
SUITE_CLAIM_COLUMNS = [
    "id", "statement", "test", "reading", "our_reading", "model_a", "model_b", "n_datasets",
    "measured", "statistic", "p_value", "p_greater", "p_less", "p_a_better", "p_equivalent",
    "p_b_better", "rope", "ci_low", "ci_high", "band_low", "band_high", "band_rule", "alpha",
    "p_holds", "p_contradicted", "verdict",
]


def family_errors(errors: pd.DataFrame, approach: pd.Series,
                  reading: str) -> tuple[str, str, pd.Series, pd.Series] | None:
    """The probabilistic and the deterministic family's error per data set under ``reading``.

    Returns
    -------
    (name_a, name_b, errors_a, errors_b) or None
        The probabilistic side first; None unless both families ran.
    """
    members = {kind: list(errors.columns[approach.to_numpy() == kind])
               for kind in ("probabilistic", "deterministic")}
    if not all(members.values()):
        return None
    if reading == "best_by_rank":
        a, b = chapter6_pairs(errors, approach)["best probabilistic vs best deterministic"]
        return a, b, errors[a], errors[b]
    if reading not in FAMILY_READINGS:
        raise ValueError(f"reading must be one of {list(FAMILY_READINGS)}, got {reading!r}.")
    reduce = "min" if reading == "per_dataset_best" else "mean"
    sides = [errors[members[kind]].agg(reduce, axis=1) for kind in ("probabilistic", "deterministic")]
    names = [f"{kind} ({reading}, {len(members[kind])} models)" for kind in ("probabilistic", "deterministic")]
    return names[0], names[1], sides[0], sides[1]


def _row(claim: str, test: str, reading: str, ours: bool, band: Band, evidence: Evidence,
         **values) -> dict:
    return {"id": claim, "statement": STATEMENTS[claim], "test": test, "reading": reading,
            "our_reading": ours, "n_datasets": evidence.n, "measured": evidence.measured,
            "ci_low": evidence.ci_low, "ci_high": evidence.ci_high, "band_low": band.low,
            "band_high": band.high, "band_rule": band.rule, "alpha": evidence.significance_level,
            "p_holds": evidence.p_holds, "p_contradicted": evidence.p_contradicted,
            "verdict": decide(evidence, band.low, band.high), **values}


def paired_rows(claim: str, pair: tuple[str, str, pd.Series, pd.Series], reading: str, ours: bool, *,
                significance_level: float, rope: float, prior_strength: float, n_samples: int, seed: int) -> list[dict]:
    """The Wilcoxon and the Bayesian signed-rank rows of the claim "``a`` is worse than ``b``".

    The Bayesian draws come from the generator ``(seed, "comparison_bayes", a, b)``, that of
    the pair's row in ``comparison_bayes.tsv``, so a pair of models gets the same posterior.
    """
    name_a, name_b, errors_a, errors_b = pair
    a, b = errors_a.to_numpy(dtype=float), errors_b.to_numpy(dtype=float)
    difference = float(np.mean(a - b))
    greater = wilcoxon_signed_rank(a, b, alternative="greater")
    less = wilcoxon_signed_rank(a, b, alternative="less")
    test = "Wilcoxon signed-rank across data sets, one-sided both ways (scipy, zero differences split)"
    wilcoxon = from_one_sided_p(difference, greater.n_datasets, p_greater=greater.p_value, p_less=less.p_value,
                                band_low=HIGHER.low, band_high=HIGHER.high, significance_level=significance_level, test=test)
    models = {"model_a": name_a, "model_b": name_b}
    rows = [_row(claim, test, reading, ours, HIGHER, wilcoxon, **models, statistic=greater.statistic,
                 p_value=wilcoxon_signed_rank(a, b).p_value, p_greater=greater.p_value, p_less=less.p_value)]
    result = bayesian_signed_rank(a, b, rope, prior_strength=prior_strength, n_samples=n_samples,
                                  rng=generator(seed, "comparison_bayes", name_a, name_b))
    test = (f"Bayesian signed-rank across data sets (rope +/- {rope:g} error, prior strength "
            f"{prior_strength:g}, {n_samples} draws)")
    bayes = from_posterior(difference, result.n_datasets, p_in_band=result.p_b_better, significance_level=significance_level, test=test)
    band = Band(rope, math.inf, f"worse by more than the rope ({rope:g})")
    rows.append(_row(claim, test, reading, ours, band, bayes, **models, p_a_better=result.p_a_better,
                     p_equivalent=result.p_equivalent, p_b_better=result.p_b_better, rope=rope))
    return rows


def accuracy_rows(errors: pd.Series, significance_level: float) -> list[dict]:
    """The "60 %, 70 %" claim on the mixture's accuracy per data set, under both readings."""
    accuracy = 1.0 - errors.to_numpy(dtype=float)
    found = {"mean": t_evidence(accuracy, significance_level=significance_level, what="data sets", bounds=SHARE),
             "median": median_evidence(accuracy, significance_level=significance_level, what="data sets")}
    return [_row(ACCURACY, evidence.method, f"{reading}: {ACCURACY_READINGS[reading]}", reading == "mean",
                 ACCURACY_BAND, evidence, model_a="mixture", model_b="")
            for reading, evidence in found.items()]


def suite_claims(table: pd.DataFrame, *, rope: float, prior_strength: float, n_samples: int,
                 seed: int) -> pd.DataFrame:
    """The chapter-6 claims across the cross-validated data sets of a comparison table.

    Parameters
    ----------
    table : pandas.DataFrame
        The stacked comparison table (``comparison.tsv``); its ``cv_error`` rows, one per
        model and data set (:func:`mixlib.analysis.comparison_across.dataset_errors`).
    rope, prior_strength, n_samples, seed
        The Bayesian signed-rank test's settings (``comparison.rope``, ...).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUITE_CLAIM_COLUMNS`: per claim, test and reading, the models compared
        (``a`` minus ``b``), ``n_datasets``, ``measured`` (the mean difference of error, or
        the accuracy), the Wilcoxon ``statistic`` (``T``), two-sided ``p_value`` and one-sided
        ``p_greater``/``p_less``, the posterior ``p_a_better``/``p_equivalent``/``p_b_better``,
        the interval of the accuracy, the band, ``p_holds``/``p_contradicted`` and the verdict.
        Claims whose models did not run are left out.
    """
    significance_level = table_significance_level(table)
    errors, approach = dataset_errors(table)
    test = {"significance_level": significance_level, "rope": rope, "prior_strength": prior_strength,
            "n_samples": n_samples, "seed": seed}
    rows = []
    if {"mixture", "mlp"} <= set(errors.columns):
        pair = ("mixture", "mlp", errors["mixture"], errors["mlp"])
        rows += paired_rows(MIXTURE_VS_MLP, pair, "the two models", True, **test)
    for number, (reading, words) in enumerate(FAMILY_READINGS.items()):
        pair = family_errors(errors, approach, reading)
        if pair is not None:
            rows += paired_rows(PROBABILISTIC_WORSE, pair, f"{reading}: {words}", number == 0, **test)
    if "mixture" in errors.columns:
        rows += accuracy_rows(errors["mixture"], significance_level)
    return pd.DataFrame(rows).reindex(columns=SUITE_CLAIM_COLUMNS)
