"""Tests on mean ranks across data sets beyond the Friedman test: the Nemenyi p-value of one
pair of models, and an exact permutation test of two groups of models (Demšar 2006, JMLR 7).

Ranks are "1 = best" as in :func:`mixlib.model_selection.significance.average_ranks`.
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import stats

#: Largest number of group assignments :func:`group_rank_test` enumerates.
MAX_ASSIGNMENTS = 2_000_000


def nemenyi_p_value(rank_difference: float, n_models: int, n_datasets: int) -> float:
    """p-value of the Nemenyi test for one pair of mean ranks (Demšar 2006, section 3.2.2).

    Parameters
    ----------
    rank_difference : float
        ``R_i - R_j``, difference of the two models' mean ranks over ``N`` data sets.
    n_models, n_datasets : int
        ``k >= 2`` models ranked, ``N >= 1`` data sets.

    Returns
    -------
    float
        ``P(Q_{k, inf} >= sqrt(2) |R_i - R_j| / sqrt(k (k + 1) / (6 N)))`` with ``Q`` the
        studentized range (:data:`scipy.stats.studentized_range`): at ``|R_i - R_j|`` equal to
        the critical difference of level ``significance_level``
        (:func:`mixlib.model_selection.significance.nemenyi_critical_difference`) it is
        ``significance_level``; smaller differences give larger p-values. Family-wise over all ``k (k - 1)
        / 2`` pairs, like the critical difference.
    """
    for name, value, low in (("n_models", n_models, 2), ("n_datasets", n_datasets, 1)):
        if not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    if not math.isfinite(rank_difference):
        raise ValueError(f"rank_difference must be finite, got {rank_difference!r}.")
    z = abs(rank_difference) / math.sqrt(n_models * (n_models + 1) / (6 * n_datasets))
    if z == 0:
        return 1.0
    return float(min(1.0, stats.studentized_range.sf(math.sqrt(2) * z, n_models, np.inf)))


@dataclass(frozen=True)
class GroupRankTest:
    """Result of :func:`group_rank_test`."""

    difference: float
    p_value: float
    n_assignments: int
    alternative: str


def group_rank_test(mean_ranks, in_group, alternative: str = "greater") -> GroupRankTest:
    """Exact permutation test: do the models of a group have higher mean ranks than the others?

    Parameters
    ----------
    mean_ranks : array-like of shape (k,)
        Mean rank of each model over the data sets (1 = best).
    in_group : array-like of bool, shape (k,)
        True for the ``m`` models of the group (e.g. the probabilistic models);
        ``1 <= m <= k - 1``.
    alternative : {"greater", "less", "two-sided"}
        ``greater``: the group ranks worse (higher) than the rest.

    Returns
    -------
    GroupRankTest
        ``difference`` ``D = mean(R_group) - mean(R_rest)``, ``n_assignments = C(k, m)`` and
        the exact p-value: the share of the ``C(k, m)`` ways of choosing ``m`` of the ``k``
        models as the group whose ``D`` is at least (``greater``), at most (``less``) or at
        least in absolute value (``two-sided``) the observed one.

    Notes
    -----
    The null hypothesis is that the group labels are exchangeable among the models: the
    models, not the (model, data set) cells, are the units, so the same relabelling applies
    on every data set and the correlation of a model's ranks across data sets is respected.
    ``D`` is a monotone function of the sum of the group's mean ranks, so this is the exact
    two-sample permutation test of that sum (Pitman's test; on tie-free integer ranks the
    Wilcoxon rank-sum test). Its smallest possible p-value is ``1 / C(k, m)``.
    """
    ranks = np.asarray(mean_ranks, dtype=float)
    group = np.asarray(in_group)
    if ranks.ndim != 1 or not np.all(np.isfinite(ranks)):
        raise ValueError(f"mean_ranks must be a finite 1-d array, got {ranks!r}.")
    if group.shape != ranks.shape or group.dtype != bool:
        raise ValueError(f"in_group must be booleans of shape {ranks.shape}, got {group!r}.")
    k, m = len(ranks), int(group.sum())
    if not 1 <= m <= k - 1:
        raise ValueError(f"the group must hold between 1 and {k - 1} of the {k} models, "
                         f"got {m}.")
    if alternative not in ("greater", "less", "two-sided"):
        raise ValueError(f"alternative must be 'greater', 'less' or 'two-sided', got "
                         f"{alternative!r}.")
    n_assignments = math.comb(k, m)
    if n_assignments > MAX_ASSIGNMENTS:
        raise ValueError(f"{n_assignments} group assignments are too many to enumerate "
                         f"(at most {MAX_ASSIGNMENTS}).")
    total = ranks.sum()

    def difference(sums):
        return sums / m - (total - sums) / (k - m)

    sums = np.fromiter((ranks[list(c)].sum() for c in itertools.combinations(range(k), m)),
                       dtype=float, count=n_assignments)
    null = difference(sums)
    observed = float(difference(ranks[group].sum()))
    tolerance = 1e-9 * max(1.0, abs(observed))
    if alternative == "greater":
        extreme = null >= observed - tolerance
    elif alternative == "less":
        extreme = null <= observed + tolerance
    else:
        extreme = np.abs(null) >= abs(observed) - tolerance
    return GroupRankTest(observed, float(extreme.mean()), n_assignments, alternative)
