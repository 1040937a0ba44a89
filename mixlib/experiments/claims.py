"""The claims of the report, checked against what this run measured.

Each :class:`Claim` names the table it is measured from and how: ``build_claims`` evaluates
every claim whose table the run produced, so stages add their claims here and the claims
table grows with the pipeline. A claim measured under several settings (splits, unclassifiable
rules, restarts; the :attr:`Claim.by` columns of its table) gives one row per setting, and the
``setting`` column names it. :func:`sensitivity_verdicts` evaluates the chapter-5 claims at
every point of the sensitivity grid.
"""

from __future__ import annotations

import itertools

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mixlib.experiments import claims_measures as measures

CLAIM_COLUMNS = ["id", "figure", "setting", "statement", "reported", "measured", "tolerance", "rule",
                 "holds", "table", "test", "p_value"]
#: Value of a setting column on rows that do not depend on that setting (e.g. the iterative
#: method's ``restart``, or rule-free metrics' ``unclassifiable``).
ANY = "any"


@dataclass(frozen=True)
class Claim:
    """One numeric statement of the report.

    Attributes
    ----------
    id, figure, statement : str
        A stable identifier, the report figure and the report's words (in English).
    reported : float
        The report's number (errors as fractions).
    table : str or tuple of str
        Name of the pipeline table the claim is measured from (e.g. ``"em_trace"``), or
        several names: ``measure`` then receives a dict name -> table.
    measure : callable
        ``measure(table) -> float``: the quantity this run measured; or a
        :class:`~mixlib.experiments.claims_measures.Tested`, whose test decides ``holds``
        (then ``tolerance`` and ``rule`` are not used and the row states the test and its
        p-value); or None: nothing to measure under that setting (no row).
    tolerance : float
        How far the measurement may be from ``reported`` for the claim to hold
        (``rule="within"``: ``|measured - reported| <= tolerance``); with ``rule="at_most"``
        or ``"at_least"`` the measurement must be at most / at least ``reported + tolerance``
        / ``reported - tolerance``.
    rule : {"within", "at_most", "at_least"}
    by : tuple of str
        Setting columns of the table (single-table claims): one claims row per combination
        of their values (see :func:`settings_of`).
    """

    id: str
    figure: str
    statement: str
    reported: float
    table: str | tuple[str, ...]
    measure: Callable[[pd.DataFrame], float]
    tolerance: float
    rule: str = "within"
    by: tuple[str, ...] = ()

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


# Setting columns of the chapter-5 claims (see Claim.by).
ITERATIVE_SETTING = ("split", "finish", "threshold")
ITERATIVE_RULE_SETTING = ITERATIVE_SETTING + ("unclassifiable",)
PRIOR_SETTING = ("split", "restart", "threshold")
PRIOR_RULE_SETTING = PRIOR_SETTING + ("unclassifiable",)
BOTH_SETTING = ("split", "restart", "finish", "threshold")
BOTH_RULE_SETTING = BOTH_SETTING + ("unclassifiable",)
#: Extra setting columns of the sensitivity grid.
SENSITIVITY_SETTING = ("relative_min_variance",)

CLAIMS: list[Claim] = [
    Claim(
        "em_iterations", "fig3_3",
        "The EM log-likelihood converges in about 20 iterations (median over classes and repeats).",
        reported=20, table="em_trace", measure=measures.median_em_iterations, tolerance=10,
    ),
    Claim(
        "kernel_map_iterations", "fig3_4",
        "With 4 kernels per class and 36 labelled examples, EM runs about 30 iterations.",
        reported=30, table="kernel_map", measure=measures.median_kernel_map_iterations, tolerance=15,
    ),
    Claim(
        "mlp_mean_test_error", "fig6_2",
        "The MLP's mean test error on the DNA data is about 8.5 % (mean over regimes, hidden "
        "sizes and repeats).",
        reported=0.085, table="mlp_sweep", measure=measures.mean_mlp_test_error, tolerance=0.03,
    ),
    Claim("iterative_hard_error", "fig5_1",
          "Iterative classification: the hard error settles at about 5 %.",
          reported=0.05, table="semisupervised_rounds",
          measure=measures.final_round_metric("iterative", "hard_error"), tolerance=0.03,
          by=ITERATIVE_RULE_SETTING),
    Claim("iterative_unknown_error", "fig5_1",
          "Iterative classification: the unknown error settles at about 3 %.",
          reported=0.03, table="semisupervised_rounds",
          measure=measures.final_round_metric("iterative", "unknown_error"), tolerance=0.03,
          by=ITERATIVE_RULE_SETTING),
    Claim("iterative_unknown", "fig5_1",
          "Iterative classification: every unlabelled example ends up classified (0 % unknown).",
          reported=0.0, table="semisupervised_rounds",
          measure=measures.final_round_metric("iterative", "unknown"), tolerance=0.01,
          by=ITERATIVE_SETTING),
    Claim("iterative_rounds", "fig5_1",
          "Iterative classification settles after 2 to 3 iterations.",
          reported=2.5, table="semisupervised_rounds", measure=measures.mean_rounds("iterative"),
          tolerance=1.0, by=ITERATIVE_SETTING),
    Claim("prior_rounds", "fig5_3",
          "The prior-probability method needs 4 iterations to reach constant rates.",
          reported=4, table="semisupervised_rounds", measure=measures.mean_rounds("prior"),
          tolerance=1.0, by=PRIOR_SETTING),
    Claim("prior_more_rounds", "fig5_3",
          "The prior-probability method needs more rounds than the iterative one (4 vs 2-3): "
          "mean rounds of the prior method minus those of the iterative method, at least 0.5.",
          reported=1.5, table="semisupervised_rounds", measure=measures.rounds_gap, tolerance=1.0,
          rule="at_least", by=BOTH_SETTING),
    Claim("prior_hard_error", "fig5_3",
          "The prior-probability method's hard error settles at about 4 %.",
          reported=0.04, table="semisupervised_rounds",
          measure=measures.final_round_metric("prior", "hard_error"), tolerance=0.03,
          by=PRIOR_RULE_SETTING),
    Claim("prior_vs_iterative_hard_error", "fig5_3",
          "The prior-probability method's hard error is lower than the iterative method's "
          "(4 % vs 5 %): measured as prior minus iterative.",
          reported=0.0, table="semisupervised_rounds", measure=measures.hard_error_gap, tolerance=0.0,
          rule="at_most", by=BOTH_RULE_SETTING),
    Claim("prior_early_flips", "fig5_3",
          "About 2 % of the examples change class in each of the first 3 iterations.",
          reported=0.02, table="semisupervised_rounds", measure=measures.early_flips, tolerance=0.02,
          by=PRIOR_SETTING),
    Claim("prior_late_flips", "fig5_3",
          "From the 4th iteration on no example changes class: flips summed over rounds >= 4, "
          "mean over repeats (at most one example in 100).",
          reported=0.0, table="semisupervised_rounds", measure=measures.late_flips, tolerance=0.01,
          rule="at_most", by=PRIOR_SETTING),
    Claim("prior_unknown_error", "fig5_3",
          "The prior-probability method's unknown error grows to about 3 %.",
          reported=0.03, table="semisupervised_rounds",
          measure=measures.final_round_metric("prior", "unknown_error"), tolerance=0.03,
          by=PRIOR_RULE_SETTING),
    Claim("sweep_best_kernels", "fig5_4",
          "The training error is lowest at 8 kernels per class, for both methods.",
          reported=8, table="kernel_sweep", measure=measures.argmin_train_error, tolerance=0,
          by=BOTH_RULE_SETTING),
    Claim("sweep_equal_at_8", "fig5_4",
          "At 8 kernels the training errors of the two methods are equal (absolute gap of the "
          "means).",
          reported=0.0, table="kernel_sweep", measure=measures.train_error_gap_at(8), tolerance=0.02,
          by=BOTH_RULE_SETTING),
    Claim("sweep_prior_not_above_iterative", "fig5_4",
          "The prior-probability method's training error is at most the iterative method's at "
          "every kernel count: largest prior minus iterative gap of the means.",
          reported=0.0, table="kernel_sweep", measure=measures.prior_minus_iterative_train_error,
          tolerance=0.0, rule="at_most", by=BOTH_RULE_SETTING),
    Claim("sweep_iterative_32", "fig5_4",
          "At 32 kernels the iterative method's training error reaches about 18 %.",
          reported=0.18, table="kernel_sweep",
          measure=measures.sweep_value("iterative", "train_error", 32), tolerance=0.05,
          by=ITERATIVE_RULE_SETTING),
    Claim("sweep_prior_32", "fig5_4",
          "At 32 kernels the prior-probability method's training error stays near 6 %.",
          reported=0.06, table="kernel_sweep", measure=measures.sweep_value("prior", "train_error", 32),
          tolerance=0.03, by=PRIOR_RULE_SETTING),
    Claim("sweep_test_equivalent", "fig5_5",
          "The test errors of the two methods are equivalent (mean absolute gap over kernel counts).",
          reported=0.0, table="kernel_sweep", measure=measures.mean_test_error_gap, tolerance=0.02,
          by=BOTH_RULE_SETTING),
    Claim("dna_mixture_error_onehot", "fig6_1",
          "The mixture classifier's mean test error on DNA is about 20 % (one-hot coding).",
          reported=0.20, table="dna_kernel_sweep", measure=measures.dna_mean_test_error("onehot"),
          tolerance=0.05),
    Claim("dna_mixture_error_ordinal", "fig6_1",
          "The mixture classifier's mean test error on DNA is about 20 % (ordinal coding).",
          reported=0.20, table="dna_kernel_sweep", measure=measures.dna_mean_test_error("ordinal"),
          tolerance=0.05),
    *[Claim(f"dna_best_mixture_vs_mlp_{encoding}", "fig6_1 vs fig6_2",
            "On DNA the mixture classifier is worse than the MLP (20 % vs 8.5 %): lowest mean test "
            f"error of the mixture over kernel counts ({encoding} coding, 1000 training sequences) "
            "minus the MLP's mean test error (one-hot, 600 training sequences).",
            reported=0.115, table=("dna_kernel_sweep", "mlp_sweep"),
            measure=measures.best_mixture_minus_mlp(encoding), tolerance=0.115, rule="at_least")
      for encoding in ("onehot", "ordinal")],
    Claim("mixture_vs_mlp_fit_seconds", "ch6",
          "Training the mixture classifier is faster than training the MLP: mean fit time of the "
          "DNA mixtures (every kernel count and coding) over the MLPs' mean fit time (every "
          "size and regime), at most 1. A wall-clock measurement of this run's machine.",
          reported=1.0, table=("dna_kernel_sweep", "mlp_sweep"),
          measure=measures.mixture_over_mlp_fit_seconds, tolerance=0.0, rule="at_most"),
    Claim("mixture_accuracy", "conclusion",
          "The mixture classifier is 60-70 % correct on the test problems (mean cross-validated "
          "accuracy over the data sets).",
          reported=0.65, table="comparison", measure=measures.mixture_accuracy, tolerance=0.05),
    Claim("mixture_worse_than_mlp", "ch6",
          "The mixture classifier generalises worse than the MLP (20 % vs 8.5 % on DNA): on "
          "each cross-validated data set, mixture minus MLP mean fold error; holds when it is "
          "positive and the Holm-adjusted corrected resampled t-test rejects equality.",
          reported=0.0, table="comparison_pairs", measure=measures.mixture_minus_mlp_tested,
          tolerance=0.0, rule="at_least", by=("dataset",)),
    Claim("mixture_worse_than_mlp_ranks", "ch6",
          "The mixture classifier generalises worse than the MLP, across data sets: mean rank "
          "of the mixture minus the MLP's; holds when it is positive and the Nemenyi test "
          "rejects equality.",
          reported=0.0, table="comparison_ranks", measure=measures.mixture_minus_mlp_rank,
          tolerance=0.0, rule="at_least"),
    Claim("probabilistic_worse", "conclusion",
          "Deterministic methods generalise better than probabilistic ones: mean rank of the "
          "probabilistic models minus that of the deterministic ones, across data sets; holds "
          "when it is positive and the permutation test of the approach labels rejects "
          "exchangeability.",
          reported=0.0, table="comparison_ranks",
          measure=measures.probabilistic_minus_deterministic_rank, tolerance=0.0,
          rule="at_least"),
]


def _setting_value(value) -> str:
    return format(value, "g") if isinstance(value, (float, np.floating)) else str(value)


def settings_of(table: pd.DataFrame, by: tuple[str, ...]) -> Iterator[tuple[str, pd.DataFrame]]:
    """The settings of ``table`` along the columns ``by``, and the rows measured under each.

    A setting is one combination of values of the ``by`` columns (those the table has),
    each value other than :data:`ANY`; its rows are those whose value in every such column is
    the setting's or ``"any"`` (so a rule-free metric, or the iterative method's rows under a
    prior-only setting, belong to every setting). Combinations without a row of their own
    values are skipped; columns holding only "any" are ignored.

    Yields
    ------
    label : str
        ``"col=value, ..."`` ("" when there is no setting column).
    rows : pandas.DataFrame
    """
    is_any = {c: (table[c].astype(str) == ANY).to_numpy() for c in by if c in table.columns}
    columns = [c for c in is_any if not is_any[c].all()]
    if not columns:
        yield "", table
        return
    values = [sorted(table.loc[~is_any[c], c].unique()) for c in columns]
    # each column's row masks, computed once: a grid of settings has many combinations
    exact_rows = {c: {value: (table[c] == value).to_numpy() for value in column_values}
                  for c, column_values in zip(columns, values)}
    for combination in itertools.product(*values):
        keep = np.ones(len(table), dtype=bool)
        own = np.zeros(len(table), dtype=bool)
        for column, value in zip(columns, combination):
            exact = exact_rows[column][value]
            keep &= exact | is_any[column]
            own |= exact
        if not (keep & own).any():
            continue
        label = ", ".join(f"{c}={_setting_value(v)}" for c, v in zip(columns, combination))
        yield label, table[keep]


def build_claims(tables: Mapping[str, pd.DataFrame], claims: list[Claim] | None = None,
                 extra_settings: tuple[str, ...] = ()) -> pd.DataFrame:
    """The claims table: one row per claim whose tables are in ``tables``, and setting.

    Parameters
    ----------
    tables : mapping name -> DataFrame
        The run's tables by name (claims naming an absent table are left out).
    claims : list of Claim, optional
        Defaults to :data:`CLAIMS`.
    extra_settings : tuple of str
        Setting columns added to every single-table claim's ``by`` (the sensitivity grid's).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CLAIM_COLUMNS`; ``holds`` is ``yes`` or ``no``; ``setting`` names the
        setting the row was measured under ("" for claims without settings); ``test`` and
        ``p_value`` name the significance test that decided ``holds`` and its p-value (empty
        and NaN for claims decided by ``rule`` and ``tolerance``).
    """
    rows = []
    for claim in CLAIMS if claims is None else claims:
        names = (claim.table,) if isinstance(claim.table, str) else claim.table
        if any(name not in tables for name in names):
            continue
        if isinstance(claim.table, str):
            measured = [(label, claim.measure(subset))
                        for label, subset in settings_of(tables[claim.table], claim.by + extra_settings)]
        else:
            measured = [("", claim.measure({name: tables[name] for name in names}))]
        for label, value in measured:
            if value is None:
                continue
            if isinstance(value, measures.Tested):
                number, holds, test, p_value = value.value, value.holds, value.test, value.p_value
            else:
                number, test, p_value = float(value), "", np.nan
                holds = claim.holds(number)
            rows.append([
                claim.id, claim.figure, label, claim.statement, claim.reported, number, claim.tolerance,
                claim.rule, "yes" if holds else "no", "+".join(names), test, p_value,
            ])
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def _varying_parts(labels: pd.Series) -> pd.Series:
    """Setting labels ``"a=1, b=2"`` without the ``key=value`` parts common to all of them."""
    parts = labels.str.split(", ")
    common = set.intersection(*(set(p) for p in parts)) if len(parts) else set()
    return parts.map(lambda p: ", ".join(x for x in p if x not in common))


def sensitivity_verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """The chapter-5 round claims at every point of the sensitivity grid.

    Parameters
    ----------
    table : pandas.DataFrame
        The ``semisupervised_sensitivity`` table (rows of
        :func:`mixlib.experiments.semisupervised.semisupervised_rounds` with ``split``,
        ``relative_min_variance`` and ``repeat`` columns).

    Returns
    -------
    pandas.DataFrame
        One row per (claim, split): ``claim``, ``split``, ``n_settings`` (grid points
        measured), ``n_hold``, ``holds_everywhere`` (``yes``/``no``), ``holds_under`` and
        ``flips_under`` (the settings where it holds / fails, ``;``-separated, naming only
        the settings that vary over the claim's grid points), so a reader sees which
        verdicts the unstated settings decide.
    """
    claims = [claim for claim in CLAIMS if claim.table == "semisupervised_rounds"]
    long = build_claims({"semisupervised_rounds": table}, claims, extra_settings=SENSITIVITY_SETTING)
    long["split"] = long["setting"].str.extract(r"split=([^,]+)", expand=False)
    long["grid_point"] = long["setting"].str.replace(r"split=[^,]+(, )?", "", regex=True)
    rows = []
    for (claim, split), group in long.groupby(["id", "split"], sort=False):
        holds = group["holds"] == "yes"
        group = group.assign(grid_point=_varying_parts(group["grid_point"]))
        rows.append({
            "claim": claim, "split": split, "n_settings": len(group), "n_hold": int(holds.sum()),
            "holds_everywhere": "yes" if holds.all() else "no",
            "holds_under": "; ".join(group.loc[holds, "grid_point"]),
            "flips_under": "; ".join(group.loc[~holds, "grid_point"]),
        })
    return pd.DataFrame(rows)
