"""How the chapter-6 claims (mixture against MLP, probabilistic against deterministic) are
measured: estimates with an interval, or a test result mapped to the same verdicts.

Measures as in :mod:`mixlib.analysis.claims_measures`. The DNA sweeps (figs. 6.1, 6.2)
give means over repeats with Student-t intervals; the cross-validated comparison gives fold
errors, whose interval is Nadeau and Bengio's corrected one
(:func:`mixlib.core.statistics.corrected_t_interval`); the tests across data sets give an
interval (Nemenyi: the rank gap plus or minus the critical difference) or one-sided p-values
(the permutation test), read by :func:`mixlib.analysis.verdicts.decide` like any interval.
A later test (a signed-rank test, a Bayesian test) enters the same way, through
:func:`~mixlib.analysis.verdicts.from_one_sided_p` or
:func:`~mixlib.analysis.verdicts.from_posterior`.

**The DNA coding is a reading.** The report does not say how it coded the bases; the sweeps
run under each coding the config lists (``dna_kernel_sweep.splits``, ``mlp.splits``), each
row of a DNA claim says its coding, and the ordinal coding is our reading
(:data:`OUR_CODING`). A comparison of the mixture with the MLP pairs the two sweeps' splits by
their data set's coding (:func:`paired_by_coding`), never across codings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from mixlib.core.statistics import corrected_t_interval
from mixlib.analysis.claims_measures import Context, evidence_frame, per_group
from mixlib.analysis.intervals import SHARE, SHARE_GAP
from mixlib.analysis.verdicts import Evidence, from_one_sided_p, t_evidence, widened
from mixlib.model_selection.rank_tests import group_rank_test


def _per_repeat_mean(rows: pd.DataFrame) -> pd.Series:
    return rows.groupby("repeat")["value"].mean().sort_index()


def _dna_test_errors(dna: pd.DataFrame) -> pd.Series:
    """Per repeat, the mixture's test error averaged over the kernel counts (fig. 6.1)."""
    return _per_repeat_mean(dna[(dna["class"] == "all") & (dna["metric"] == "test_error")])


def _mlp_test_errors(mlp: pd.DataFrame) -> pd.Series:
    """Per repeat, the MLP's test error averaged over regimes and hidden sizes (fig. 6.2)."""
    return _per_repeat_mean(mlp[mlp["metric"] == "test_error"])


def _coding(table: pd.DataFrame) -> str:
    """``; <coding>: our reading`` (or ``the alternative``) for a table with an ``encoding``."""
    return f"; {coding_role(str(table['encoding'].iloc[0]))}" if "encoding" in table.columns else ""


def _averaged(table: pd.DataFrame, column: str) -> str:
    """The values of ``column`` a mean runs over, said in the row (the report never says which
    kernel counts or hidden sizes its 20 % and 8.5 % average)."""
    if column not in table.columns:
        return ""
    values = sorted(pd.unique(table[column].dropna()))
    return f"mean over {column} {', '.join(format(v, 'g') for v in values)}"


@per_group
def dna_mean_test_error(table: pd.DataFrame, context: Context) -> Evidence | None:
    """Mean test error of the DNA mixture over kernel counts: t-interval over repeats."""
    errors = _dna_test_errors(table)
    return t_evidence(errors, significance_level=context.significance_level, bounds=SHARE).with_detail(
        _averaged(table, "n_components") + _coding(table)) \
        if len(errors) else None


@per_group
def mlp_mean_test_error(table: pd.DataFrame, context: Context) -> Evidence | None:
    """Mean test error of the MLP over regimes and sizes on one split (one DNA coding, said in
    the detail): t-interval over repeats."""
    errors = _mlp_test_errors(table)
    return t_evidence(errors, significance_level=context.significance_level, bounds=SHARE).with_detail(
        _averaged(table, "hidden_size") + f", {table['regime'].nunique()} regimes{_coding(table)}") if len(errors) else None


@per_group
def dna_mean_accuracy(table: pd.DataFrame, context: Context) -> Evidence | None:
    """``1 -`` the DNA mixture's test error averaged over kernel counts, per repeat;
    logit-scale interval over repeats."""
    errors = _dna_test_errors(table)
    return t_evidence(1.0 - errors, significance_level=context.significance_level, bounds=SHARE).with_detail(
        _coding(table).removeprefix("; ")) if len(errors) else None


def _by_repeat_index(first: pd.Series, second: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Two independent samples of per-repeat values, matched by position: ``d_r = a_r - b_r``
    are independent with mean ``E a - E b``, so their t-interval is valid."""
    n = min(len(first), len(second))
    return first.to_numpy()[:n], second.to_numpy()[:n]


#: The DNA coding of our reading of chapter 6: the report's 3175 sequences are the UCI file's
#: less those with ambiguity codes (its author coded the letters himself), and only the ordinal
#: coding (A, C, G, T = 0..3) reproduces its 20 %; one-hot is the alternative.
OUR_CODING = "ordinal"
#: The reading column a chapter-6 comparison adds: the MLP split paired with the mixture's.
MLP_SPLIT = "mlp_split"


def coding_role(encoding: str) -> str:
    """What a DNA coding is to chapter 6: ``our reading`` (:data:`OUR_CODING`) or ``the
    alternative``, said in the ``detail`` of a row."""
    return f"{encoding} coding: {'our reading' if encoding == OUR_CODING else 'the alternative'}"


def same_coding(mlp: pd.DataFrame, encoding: str) -> dict[str, pd.DataFrame]:
    """The MLP sweep's rows by split, for the splits whose data set has the coding ``encoding``
    (the table's ``encoding`` column: the data set's ``encoding`` in the config)."""
    if "encoding" not in mlp.columns:
        raise ValueError("mlp_sweep.tsv has no column 'encoding' (a table of an older run): "
                         "rerun the mlp stage so that each MLP split carries its data set's coding.")
    rows = mlp[mlp["encoding"].astype(str) == str(encoding)]
    return {str(split): part for split, part in rows.groupby("split", sort=True)}


def paired_by_coding(function: Callable[[pd.DataFrame, pd.DataFrame, Context], Evidence | None]
                     ) -> Callable[[pd.DataFrame, list, Context], pd.DataFrame]:
    """A chapter-6 measure setting the DNA mixture and the MLP on the same input.

    ``function(mixture_rows, mlp_rows, context) -> Evidence | None`` is called, for each
    setting of the mixture's table (``keys``, its ``encoding`` among them), once per MLP
    split of the same coding (:func:`same_coding`); the rows are indexed by ``keys`` and
    :data:`MLP_SPLIT`, so the table says which two splits were set side by side. A mixture
    coding with no MLP split of its coding gives no row: a comparison across codings would
    measure the coding, not the models.
    """

    def measure(rows: pd.DataFrame, keys: list[str], context: Context) -> pd.DataFrame:
        mlp = context.others["mlp_sweep"]
        found = {}
        for key, mixture in rows.groupby(keys, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            encoding = str(mixture["encoding"].iloc[0])
            for split, network in same_coding(mlp, encoding).items():
                evidence = function(mixture, network, context)
                if evidence is not None:
                    found[key + (split,)] = evidence.with_detail(coding_role(encoding))
        return evidence_frame(found, keys + [MLP_SPLIT])

    measure.function = function
    return measure


@paired_by_coding
def mixture_minus_mlp_test_error(dna: pd.DataFrame, mlp: pd.DataFrame, context: Context) -> Evidence | None:
    """Mixture (mean over kernel counts) minus MLP (mean over regimes and sizes) test error on
    DNA under one coding, the report's two means (20 % against 8.5 %), matched by repeat index."""
    mixture, network = _by_repeat_index(_dna_test_errors(dna), _mlp_test_errors(mlp))
    return t_evidence(mixture - network, significance_level=context.significance_level, what="repeats (independent splits)",
                      bounds=SHARE_GAP) if len(mixture) else None


@paired_by_coding
def mixture_over_mlp_fit_cpu_seconds(dna: pd.DataFrame, mlp: pd.DataFrame, context: Context) -> Evidence | None:
    """Mean CPU time of the DNA mixtures' fits (every kernel count) over that of the MLPs'
    (every size and regime) under one coding, per repeat index: the t-interval of the ratios,
    widened by the context's ``timing_tolerance`` (``claims.timing_tolerance``, by default
    :data:`~mixlib.analysis.claims_measures.TIMING_TOLERANCE`).

    CPU time (``fit_cpu_seconds``, :class:`~mixlib.core.timing.Stopwatch`), not the wall
    clock: the two stages run in different jobs, and a wall-clock fit also counts the time it
    waited for a CPU, which depends on what else ran then (on two CPUs one run's ratio was
    1.38, the next one's 0.75).
    """
    mixture = _per_repeat_mean(dna[(dna["class"] == "all") & (dna["metric"] == "fit_cpu_seconds")])
    network = _per_repeat_mean(mlp[mlp["metric"] == "fit_cpu_seconds"])
    mixture, network = _by_repeat_index(mixture, network)
    if not len(mixture):
        return None
    return widened(t_evidence(mixture / network, significance_level=context.significance_level, what="repeats"),
                   context.timing_tolerance, "CPU times of fits in different jobs")


def _fold_errors(table: pd.DataFrame, model: str) -> pd.DataFrame:
    rows = table[(table["model"] == model) & (table["metric"] == "fold_error")]
    if "protocol" in rows.columns:
        rows = rows[rows["protocol"].fillna("cv") == "cv"]
    return rows


def _corrected(values: np.ndarray, folds: pd.DataFrame, significance_level: float, what: str) -> Evidence | None:
    if len(values) < 2:
        return None
    n_train, n_test = float(folds["n_train"].mean()), float(folds["n_test"].mean())
    low, high = corrected_t_interval(values, n_train=n_train, n_test=n_test, significance_level=significance_level)
    # sd and the size ratio in the row: its interval follows from its own columns again
    return Evidence(float(np.mean(values)), len(values), low, high, significance_level,
                    f"corrected t over {len(values)} folds (Nadeau-Bengio, n_test / n_train = "
                    f"{n_test / n_train:.6g}), {what}", sd=float(np.std(values, ddof=1)))


@per_group
def mixture_minus_mlp_folds(table: pd.DataFrame, context: Context) -> Evidence | None:
    """Mixture minus MLP fold error on one data set, paired by (repeat, fold); corrected
    interval. The one comparison the report makes, so not adjusted for the other pairs."""
    keys = ["repeat", "fold"]
    mixture, mlp = _fold_errors(table, "mixture"), _fold_errors(table, "mlp")
    paired = mixture.merge(mlp[keys + ["value"]], on=keys, suffixes=("", "_mlp"))
    difference = (paired["value"] - paired["value_mlp"]).to_numpy()
    return _corrected(difference, paired, context.significance_level, "mixture minus MLP")


@per_group
def mixture_minus_mlp_rank(ranks: pd.DataFrame, context: Context) -> Evidence | None:
    """Mean rank of the mixture minus the MLP's across data sets, with the Nemenyi interval
    ``d +/- CD`` (CD: the table's critical difference at its alpha): the rank gap against
    the gap the test could detect."""
    mean_rank = ranks.set_index("model")["mean_rank"]
    if not {"mixture", "mlp"} <= set(mean_rank.index):
        return None
    gap = float(mean_rank["mixture"] - mean_rank["mlp"])
    cd = float(ranks["critical_difference"].iloc[0])
    n = int(ranks["n_datasets"].iloc[0])
    return Evidence(gap, n, gap - cd, gap + cd, float(ranks["alpha"].iloc[0]),
                    f"Nemenyi: rank gap +/- critical difference {cd:.3g} ({int(ranks['n_models'].iloc[0])} "
                    f"models, {n} data sets)")


#: Which models the beyond-the-report family comparison counts, and why. Probabilistic: the
#: models of the class densities ``p(x | c)`` (the report's sense of a probabilistic model);
#: deterministic: those giving a decision function. Left out: logistic regression, which models
#: ``p(c | x)`` (probabilistic output, no density of ``x``), and two of the three single-tree
#: variants (``tree_unpruned``, ``id3``), so that one tree (``cart``) counts once.
FAMILY_RULE = ("generative (p(x | c)) against decision functions; logistic regression left out "
               "(it models p(c | x)); one single tree (cart), not three")
FAMILY_LEFT_OUT = frozenset({"logistic_regression", "tree_unpruned", "id3"})


@per_group
def probabilistic_minus_deterministic_rank(ranks: pd.DataFrame, context: Context) -> Evidence | None:
    """Mean rank of the probabilistic models minus that of the deterministic ones, models by
    :data:`FAMILY_RULE` (the ranks over every model of the comparison, the labels permuted over
    the models kept), decided by the exact permutation test of the approach labels in both
    directions (:func:`mixlib.model_selection.rank_tests.group_rank_test`)."""
    ranks = ranks[~ranks["model"].isin(FAMILY_LEFT_OUT)]
    approaches = set(ranks["approach"])
    if approaches != {"probabilistic", "deterministic"}:
        return None
    mean_ranks = ranks["mean_rank"].to_numpy()
    group = (ranks["approach"] == "probabilistic").to_numpy()
    greater = group_rank_test(mean_ranks, group, "greater")
    less = group_rank_test(mean_ranks, group, "less")
    band_low, band_high = context.band
    if band_low != 0 or band_high != math.inf:
        raise ValueError("the approach test decides the band (0, inf).")
    evidence = from_one_sided_p(greater.difference, int(ranks["n_datasets"].iloc[0]), p_greater=greater.p_value,
                                p_less=less.p_value, band_low=band_low, band_high=band_high,
                                significance_level=float(ranks["alpha"].iloc[0]),
                                test=f"exact permutation test of the approach labels ({greater.n_assignments} "
                                     "assignments), one-sided both ways")
    kept = ", ".join(f"{m} ({a[:5]}.)" for m, a in zip(ranks["model"], ranks["approach"]))
    return evidence.with_detail(f"{FAMILY_RULE}: {kept}")
