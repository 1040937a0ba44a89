"""Two classifiers compared across N data sets: the Wilcoxon signed-rank test (Demšar 2006,
JMLR 7, section 3.1.3) and the Bayesian signed-rank test with a region of practical
equivalence (Benavoli, Corani, Demšar & Zaffalon 2017, JMLR 18, "Time for a change").

Both take one error per data set for each model (lower is better; pass ``1 - score`` for a
score) and pair them by data set; the distributions come from :mod:`scipy.stats` and the
posterior from a seeded :class:`numpy.random.Generator`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from mixlib.core.statistics import finite_1d
from mixlib.core.validation import check_random_state


@dataclass(frozen=True)
class WilcoxonResult:
    """Result of :func:`wilcoxon_signed_rank` (differences ``d_i = a_i - b_i``)."""

    n_datasets: int
    wins: int          # data sets where a has the lower error
    losses: int
    ties: int
    rank_sum_a: float  # R+ of Demšar: ranks of the data sets where a is better (half of ties)
    rank_sum_b: float
    statistic: float   # T = min(R+, R-)
    p_value: float


def _pair(errors_a, errors_b) -> tuple[np.ndarray, np.ndarray]:
    a = finite_1d(errors_a, "errors_a")
    b = finite_1d(errors_b, "errors_b")
    if len(a) != len(b):
        raise ValueError(f"errors_a and errors_b must pair up by data set; got {len(a)} and "
                         f"{len(b)} values.")
    if len(a) < 2:
        raise ValueError(f"the tests need at least 2 data sets, got {len(a)}.")
    return a, b


def wilcoxon_signed_rank(errors_a, errors_b, alternative: str = "two-sided") -> WilcoxonResult:
    """Wilcoxon signed-rank test of two models' errors over N data sets (Demšar 2006, 3.1.3).

    Parameters
    ----------
    errors_a, errors_b : array-like of shape (N,)
        Error of each model on the same N data sets, ``N >= 2``.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative of the p-value, on ``d_i = a_i - b_i``: ``"greater"`` tests whether
        ``a`` has the higher errors (``b`` better), ``"less"`` whether ``a`` has the lower.

    Returns
    -------
    WilcoxonResult
        With ``d_i = a_i - b_i`` ranked by ``|d_i|`` (ties share the mean rank), ``R+`` sums
        the ranks of the data sets where ``a`` is better (``d_i < 0``) and ``R-`` those where
        ``b`` is, each taking half the ranks of ``d_i = 0`` (Demšar's treatment of ties);
        ``T = min(R+, R-)``. The two-sided p-value is :func:`scipy.stats.wilcoxon`'s with
        ``zero_method="zsplit"`` (the same split of zero differences): exact for small N
        without ties or zeros, else the normal approximation with the tie correction. A
        one-sided ``alternative`` gives scipy's one-sided p-value the same way.
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}.")
    a, b = _pair(errors_a, errors_b)
    d = a - b
    ranks = stats.rankdata(np.abs(d))
    zero = d == 0
    r_a = float(ranks[d < 0].sum() + ranks[zero].sum() / 2)
    r_b = float(ranks[d > 0].sum() + ranks[zero].sum() / 2)
    if zero.all():
        p_value = 1.0
    else:
        p_value = float(stats.wilcoxon(d, zero_method="zsplit", alternative=alternative).pvalue)
    return WilcoxonResult(len(d), int((d < 0).sum()), int((d > 0).sum()), int(zero.sum()),
                          r_a, r_b, min(r_a, r_b), p_value)


@dataclass(frozen=True)
class BayesianSignedRank:
    """Result of :func:`bayesian_signed_rank`.

    ``samples[:, 0]``, ``[:, 1]``, ``[:, 2]`` are posterior draws of ``theta_a`` (a better by
    more than the rope), ``theta_rope`` (practically equivalent) and ``theta_b``; the
    probabilities are the shares of draws in which each is the largest.
    """

    n_datasets: int
    rope: float
    prior_strength: float
    samples: np.ndarray
    p_a_better: float
    p_equivalent: float
    p_b_better: float


def _heaviside(values: np.ndarray, threshold: float) -> np.ndarray:
    return (values > threshold) + 0.5 * (values == threshold)


def signed_rank_posterior(differences: np.ndarray, weights: np.ndarray,
                          rope: float) -> np.ndarray:
    """``theta`` draws of the Bayesian signed-rank test from Dirichlet weights.

    Parameters
    ----------
    differences : ndarray of shape (N,)
        ``z_i = a_i - b_i``.
    weights : ndarray of shape (n_samples, N + 1)
        Draws of the Dirichlet process weights of the pseudo-observation ``z_0 = 0``
        (column 0) and of the N observations.
    rope : float

    Returns
    -------
    ndarray of shape (n_samples, 3)
        ``theta_a = sum_ij w_i w_j H(-(z_i + z_j) - 2 r)``, ``theta_b = sum_ij w_i w_j
        H(z_i + z_j - 2 r)`` (``H`` the step function, 1/2 at 0), ``theta_rope = 1 -
        theta_a - theta_b``: the Walsh averages ``(z_i + z_j) / 2`` below ``-r``, inside the
        rope, above ``r``.
    """
    z = np.concatenate(([0.0], differences))
    sums = z[:, None] + z[None, :]
    below = _heaviside(-sums, 2 * rope)
    above = _heaviside(sums, 2 * rope)
    theta_a = np.einsum("si,ij,sj->s", weights, below, weights)
    theta_b = np.einsum("si,ij,sj->s", weights, above, weights)
    return np.column_stack([theta_a, 1.0 - theta_a - theta_b, theta_b])


def bayesian_signed_rank(errors_a, errors_b, rope: float = 0.01, *,
                         prior_strength: float = 0.5, n_samples: int = 50_000,
                         rng: int | np.random.Generator | None = None) -> BayesianSignedRank:
    """Bayesian signed-rank test with a region of practical equivalence (Benavoli et al.
    2017, section 4.1).

    Parameters
    ----------
    errors_a, errors_b : array-like of shape (N,)
        Error of each model on the same N data sets.
    rope : float, default 0.01
        Half-width of the region of practical equivalence, in error units (0.01: one
        percentage point).
    prior_strength : float, default 0.5
        ``s``, the weight of the Dirichlet process's prior pseudo-observation ``z_0 = 0``
        (baycomp's default).
    n_samples : int, default 50 000
        Posterior draws.
    rng : int, Generator or None
        Source of the Dirichlet draws; a Generator passed in is advanced.

    Returns
    -------
    BayesianSignedRank

    Notes
    -----
    The differences ``z_i = a_i - b_i`` get a Dirichlet process posterior with base measure
    ``s delta_0``: weights ``w ~ Dirichlet(s, 1, ..., 1)`` on ``(z_0, z_1, ..., z_N)``. Each
    draw gives the posterior ``theta`` of :func:`signed_rank_posterior`; the answer is
    ``P(a better)``, ``P(equivalent)``, ``P(b better)``: the shares of draws in which
    ``theta_a``, ``theta_rope`` or ``theta_b`` is the largest (baycomp's ``probs``).
    """
    a, b = _pair(errors_a, errors_b)
    if not np.isfinite(rope) or rope < 0:
        raise ValueError(f"rope must be a finite number >= 0, got {rope!r}.")
    if not np.isfinite(prior_strength) or prior_strength <= 0:
        raise ValueError(f"prior_strength must be > 0, got {prior_strength!r}.")
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) \
            or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}.")
    generator = check_random_state(rng)
    alpha = np.concatenate(([prior_strength], np.ones(len(a))))
    samples = signed_rank_posterior(a - b, generator.dirichlet(alpha, n_samples), rope)
    winners = np.bincount(np.argmax(samples, axis=1), minlength=3) / n_samples
    return BayesianSignedRank(len(a), float(rope), float(prior_strength), samples,
                              float(winners[0]), float(winners[1]), float(winners[2]))
