"""Whether a run decides the report's chapter-6 claims across the comparison's data sets
(``suite_claims.tsv``, :mod:`mixlib.analysis.claims_suite`).

It does when the comparison has enough data sets for the tests across them to be able to
decide: a one-sided Wilcoxon signed-rank test over ``n`` data sets cannot give a p-value below
``2 ** -n``. The comparison's own stages are in :mod:`mixlib.pipeline.stages`; this module is
kept apart because the comparison's jobs import that one, and editing it would rerun them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def min_signed_rank_datasets(significance_level: float) -> int:
    """The fewest data sets on which a one-sided signed-rank test can reject at the claims'
    level, ``alpha / 2`` per side (:mod:`mixlib.analysis.verdicts`).

    Over ``n`` data sets the smallest one-sided p-value of the exact Wilcoxon signed-rank test
    is ``2 ** -n`` (every difference on one side), so this is the smallest ``n`` with
    ``2 ** -n < alpha / 2``: ``floor(log2(2 / alpha)) + 1`` (6 at ``alpha = 0.05``).
    """
    if not 0 < significance_level < 1:
        raise ValueError(f"significance_level must be in (0, 1), got {significance_level!r}.")
    return math.floor(math.log2(2 / significance_level)) + 1


def decides_claims_across_datasets(config: Mapping[str, Any]) -> bool:
    """Whether the run builds ``suite_claims.tsv``.

    True when the comparison is configured on at least :func:`min_signed_rank_datasets` data
    sets at its ``significance_level``: on fewer, a one-sided signed-rank test cannot reject,
    and its verdicts would be ``inconclusive`` by construction. The study's config (3 data
    sets) does not; the suite's (21) does.
    """
    comparison = config.get("comparison")
    if not comparison:
        return False
    return len(comparison["datasets"]) >= min_signed_rank_datasets(float(comparison["significance_level"]))
