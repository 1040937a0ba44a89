"""How the chapter-3 claims (EM's iterations, "souvent global") are measured from ``em_trace``.

Measures as in :mod:`mixlib.analysis.claims_measures`: one row of evidence per setting.
"""

from __future__ import annotations

import pandas as pd

from mixlib.analysis.claims_measures import Context, evidence_frame, per_group
from mixlib.analysis.intervals import SHARE
from mixlib.analysis.verdicts import Evidence, median_evidence, t_evidence

#: Two EM fits reach the same maximum when their final mean log-likelihoods differ by at
#: most this (nats per example): far above EM's stopping tolerance (1e-6 per iteration), far
#: below the gaps between distinct local maxima.
SAME_MAXIMUM = 1e-3


def _fits(table: pd.DataFrame) -> pd.DataFrame:
    """One row per class fit: the table's (repeat, class) pairs (of one setting)."""
    return table.drop_duplicates(["repeat", "class"])


#: EM tolerances read off the likelihood trace (the report gives none): the run's own, ours,
#: and a looser one. EM stops at the first iteration ``n >= 2`` with ``|L_{n-1} - L_{n-2}| <
#: tol`` (``L_i`` the mean log-likelihood after ``i`` updates, the trace's rows), so a looser
#: tolerance stops at or before the run's, on the same trace, without refitting.
EM_TOLERANCES = (1e-3,)


def iterations_at(trace: pd.DataFrame, tol: float) -> pd.Series:
    """Per (repeat, class) fit, the iteration EM would have stopped at with ``tol``, read off
    its trace (``n_iter`` when no earlier iteration meets it)."""
    trace = trace.sort_values(["repeat", "class", "iteration"], kind="stable")
    step = trace.groupby(["repeat", "class"], sort=True)["mean_log_likelihood"].diff().abs()
    # row i holds |L_i - L_{i-1}|: EM meets tol at iteration n = i + 1, for n <= n_iter
    met = trace.assign(stop=trace["iteration"] + 1)[(step < tol).to_numpy()
                                                    & (trace["iteration"] + 1 <= trace["n_iter"]).to_numpy()]
    first = met.groupby(["repeat", "class"], sort=True)["stop"].min()
    n_iter = trace.groupby(["repeat", "class"], sort=True)["n_iter"].first()
    return first.reindex(n_iter.index).fillna(n_iter).astype(int)


def median_em_iterations(rows: pd.DataFrame, keys: list[str], context: Context) -> pd.DataFrame:
    """Median over the (repeat, class) fits of EM's iterations (``em_trace``), at the run's
    tolerance and, for the readings table, at each of :data:`EM_TOLERANCES` (column
    ``em_tol``), read off the trace (:func:`iterations_at`)."""
    tols = [context.em_tol] + ([t for t in EM_TOLERANCES if t > context.em_tol] if context.every_reading else [])
    found = {}
    for key, own in rows.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        for tol in tols:
            counts = own["n_iter"].groupby([own["repeat"], own["class"]]).first() if tol == context.em_tol \
                else iterations_at(own, tol)
            if len(counts):
                found[key + (tol,)] = median_evidence(counts, significance_level=context.significance_level, what="class fits")
    return evidence_frame(found, keys + ["em_tol"])


@per_group
def em_global_share(table: pd.DataFrame, context: Context) -> Evidence | None:
    """Share of non-degenerate class fits that reached the best non-degenerate maximum found
    over their restarts.

    The likelihood of a mixture is unbounded (a kernel on one point at the variance floor), so
    the best of several restarts rewards collapse: a fit counts only without a kernel at the
    floor (``collapsed == 0``), and its maximum is compared with the best restart that has none
    (``nondegenerate_gap <= SAME_MAXIMUM``). The share per repeat (over its sound fits) has a
    logit-scale interval over repeats; the detail gives the share of fits left out as collapsed.
    None without restarts (or without the column, a table of an older run).
    """
    fits = _fits(table)
    if fits.empty or "nondegenerate_gap" not in fits.columns or not (fits["n_restarts"] > 0).all():
        return None
    sound = fits[fits["collapsed"] == 0]
    reached = (sound["nondegenerate_gap"] <= SAME_MAXIMUM).astype(float)
    collapsed = 1.0 - len(sound) / len(fits)
    return t_evidence(reached.groupby(sound["repeat"]).mean(), significance_level=context.significance_level, bounds=SHARE).with_detail(
        f"{int(fits['n_restarts'].iloc[0])} restarts per fit, same maximum within {SAME_MAXIMUM:g} nats, "
        f"among fits without a kernel at the variance floor; {100 * collapsed:.0f} % of the "
        f"{len(fits)} fits have one and are left out")


