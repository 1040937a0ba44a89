"""Every pair of models across the cross-validated data sets of the comparison: the Wilcoxon
signed-rank test, Holm-adjusted over the pairs (Demšar 2006, section 3.1.3), and the
Bayesian signed-rank test with a region of practical equivalence (Benavoli et al. 2017), from
the stacked comparison table (:mod:`mixlib.experiments.comparison`); no estimator is fitted.

A verdict needs the estimate, the p-value or posterior probabilities and the number of data
sets: every row carries them (``n_datasets``, ``mean_difference``, ``p_value``/``p_holm``,
``p_a_better``/``p_equivalent``/``p_b_better``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from mixlib.core.seeding import generator
from mixlib.analysis.comparison_stats import table_significance_level
from mixlib.analysis.comparison_summary import split_as_text
from mixlib.model_selection.across_datasets import bayesian_signed_rank, wilcoxon_signed_rank
from mixlib.model_selection.significance import average_ranks, holm

#: Rows of the posterior table kept per chapter-6 pair (the first draws; they are random).
POSTERIOR_DRAWS_KEPT = 3000


def dataset_errors(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """The CV error of every model on every cross-validated data set, and each model's
    approach.

    Returns
    -------
    errors : pandas.DataFrame of shape (N, k)
        Index ``dataset``, one column per model (in table order): the ``cv_error`` rows.
    approach : pandas.Series
        ``probabilistic`` or ``deterministic`` per model.

    Raises
    ------
    ValueError
        If a model lacks a data set (the tests pair models by data set), or fewer than two
        data sets or models were cross-validated.
    """
    rows = split_as_text(table)
    rows = rows[(rows["protocol"] == "cv") & (rows["metric"] == "cv_error")]
    wide = rows.pivot_table(index="dataset", columns="model", values="value", sort=False)
    wide = wide.loc[pd.unique(rows["dataset"]), pd.unique(rows["model"])]
    if wide.isna().any().any():
        missing = [f"{wide.columns[j]} on {wide.index[i]}"
                   for i, j in zip(*np.nonzero(wide.isna().to_numpy()))]
        raise ValueError(f"the comparison table lacks cv_error for {missing}.")
    if wide.shape[0] < 2 or wide.shape[1] < 2:
        raise ValueError(f"the tests across data sets need 2 data sets and 2 models; the table "
                         f"has {wide.shape[0]} and {wide.shape[1]}.")
    approach = rows.drop_duplicates("model").set_index("model")["approach"]
    return wide, approach.loc[wide.columns]


def _pairs(errors: pd.DataFrame):
    return itertools.combinations(errors.columns, 2)


def comparison_wilcoxon(table: pd.DataFrame) -> pd.DataFrame:
    """The Wilcoxon signed-rank test of every pair of models across the data sets.

    Returns
    -------
    pandas.DataFrame
        One row per pair ``(model_a, model_b)`` in table order: ``approach_a``,
        ``approach_b``, ``n_datasets``, ``error_a``, ``error_b`` (mean over the data sets),
        ``mean_difference`` and ``median_difference`` of ``a - b``, ``wins_a``, ``wins_b``,
        ``ties``, ``rank_sum_a``, ``rank_sum_b``, ``statistic`` (``T``), ``p_value``
        (:func:`mixlib.model_selection.across_datasets.wilcoxon_signed_rank`), ``p_holm``
        (Holm over all pairs), ``significance_level`` and ``significant`` (``p_holm <= alpha``).
    """
    significance_level = table_significance_level(table)
    errors, approach = dataset_errors(table)
    rows = []
    for a, b in _pairs(errors):
        d = errors[a].to_numpy() - errors[b].to_numpy()
        result = wilcoxon_signed_rank(errors[a].to_numpy(), errors[b].to_numpy())
        rows.append({"model_a": a, "model_b": b, "approach_a": approach[a],
                     "approach_b": approach[b], "n_datasets": result.n_datasets,
                     "error_a": float(errors[a].mean()), "error_b": float(errors[b].mean()),
                     "mean_difference": float(d.mean()), "median_difference": float(np.median(d)),
                     "wins_a": result.wins, "wins_b": result.losses, "ties": result.ties,
                     "rank_sum_a": result.rank_sum_a, "rank_sum_b": result.rank_sum_b,
                     "statistic": result.statistic, "p_value": result.p_value})
    pairs = pd.DataFrame(rows)
    pairs["p_holm"] = holm(pairs["p_value"].to_numpy())
    pairs["alpha"] = significance_level
    pairs["significant"] = pairs["p_holm"] <= significance_level
    return pairs


def chapter6_pairs(errors: pd.DataFrame, approach: pd.Series) -> dict[str, tuple[str, str]]:
    """The report's chapter-6 questions as pairs of models: ``mixture vs mlp`` (when both
    ran) and the probabilistic model of best mean rank against the deterministic one of
    best mean rank (``best probabilistic vs best deterministic``; mean ranks over the same
    data sets, ties by name)."""
    _, mean_ranks = average_ranks(errors.to_numpy())
    ranks = pd.Series(mean_ranks, index=errors.columns)
    pairs = {}
    if {"mixture", "mlp"} <= set(errors.columns):
        pairs["mixture vs mlp"] = ("mixture", "mlp")
    best = {}
    for kind in ("probabilistic", "deterministic"):
        members = ranks[approach.to_numpy() == kind]
        if len(members):
            best[kind] = sorted(members.items(), key=lambda item: (item[1], item[0]))[0][0]
    if len(best) == 2:
        pairs["best probabilistic vs best deterministic"] = (best["probabilistic"],
                                                             best["deterministic"])
    return pairs


def comparison_bayes(table: pd.DataFrame, *, rope: float, prior_strength: float,
                     n_samples: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Bayesian signed-rank test of every pair of models across the data sets.

    Each pair draws its posterior from the generator of ``(seed, "comparison_bayes",
    model_a, model_b)``, so a pair's result does not depend on the other models.

    Returns
    -------
    pairs : pandas.DataFrame
        One row per pair in table order: ``model_a``, ``model_b``, ``approach_a``,
        ``approach_b``, ``n_datasets``, ``mean_difference`` (``a - b``), ``rope``,
        ``prior_strength``, ``n_samples``, ``p_a_better``, ``p_equivalent``, ``p_b_better``
        (:func:`mixlib.model_selection.across_datasets.bayesian_signed_rank`) and the
        posterior means ``theta_a``, ``theta_rope``, ``theta_b``; ``question`` names the
        chapter-6 pair a row answers (:func:`chapter6_pairs`), empty otherwise.
    posterior : pandas.DataFrame
        For each chapter-6 pair, its first :data:`POSTERIOR_DRAWS_KEPT` draws: ``question``,
        ``model_a``, ``model_b``, ``draw``, ``theta_a``, ``theta_rope``, ``theta_b``.
    """
    errors, approach = dataset_errors(table)
    questions = {pair: question for question, pair in chapter6_pairs(errors, approach).items()}
    rows, draws = [], []
    for a, b in _pairs(errors):
        flipped = (b, a) in questions
        first, second = (b, a) if flipped else (a, b)
        result = bayesian_signed_rank(errors[first].to_numpy(), errors[second].to_numpy(), rope,
                                      prior_strength=prior_strength, n_samples=n_samples,
                                      rng=generator(seed, "comparison_bayes", first, second))
        means = result.samples.mean(axis=0)
        question = questions.get((first, second), "")
        rows.append({"model_a": first, "model_b": second, "approach_a": approach[first],
                     "approach_b": approach[second], "n_datasets": result.n_datasets,
                     "mean_difference": float((errors[first] - errors[second]).mean()),
                     "rope": rope, "prior_strength": prior_strength, "n_samples": n_samples,
                     "p_a_better": result.p_a_better, "p_equivalent": result.p_equivalent,
                     "p_b_better": result.p_b_better, "theta_a": float(means[0]),
                     "theta_rope": float(means[1]), "theta_b": float(means[2]),
                     "question": question})
        if question:
            kept = result.samples[:POSTERIOR_DRAWS_KEPT]
            draws.append(pd.DataFrame({"question": question, "model_a": first,
                                       "model_b": second, "draw": np.arange(len(kept)),
                                       "theta_a": kept[:, 0], "theta_rope": kept[:, 1],
                                       "theta_b": kept[:, 2]}))
    posterior = (pd.concat(draws, ignore_index=True) if draws else pd.DataFrame(
        columns=["question", "model_a", "model_b", "draw", "theta_a", "theta_rope", "theta_b"]))
    return pd.DataFrame(rows), posterior
