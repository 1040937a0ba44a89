"""The replicate of our reading: the chapter-3 and -5 claims judged a second time on the
replicate splits (``<split>_replicate``, their own seed streams; :mod:`mixlib.pipeline.replicates`),
and the flag of a row whose two verdicts differ.

A row is ``stable`` when the replicate gives the same verdict, ``unstable`` when it does not
(an interval that one seed puts inside the band and another across it: the verdict depends on
the draw, so it is not a finding), and has no flag without a replicate (chapters 4 and 6).
"""

from __future__ import annotations

import pandas as pd

from mixlib.analysis.verdicts import interval_verdict

#: The suffix of a replicate split's name.
REPLICATE_SUFFIX = "_replicate"
STABLE, UNSTABLE = "stable", "unstable"
REPLICATE_COLUMNS = ["replicate_measured", "replicate_n", "replicate_ci_low", "replicate_ci_high",
                     "replicate_verdict", "stability"]


def as_original(table: pd.DataFrame) -> pd.DataFrame:
    """A replicate's table with its splits named as the splits they replicate."""
    if "split" not in table.columns:
        return table
    return table.assign(split=table["split"].astype(str).str.removesuffix(REPLICATE_SUFFIX))


def stability(verdict: str, replicate_verdict) -> str:
    """``stable`` / ``unstable`` from a row's two verdicts; ``""`` without a replicate."""
    if not isinstance(replicate_verdict, str) or not replicate_verdict:
        return ""
    return STABLE if verdict == replicate_verdict else UNSTABLE


def row_replicate_verdict(row) -> str:
    """The replicate's verdict from the row's own columns (its interval against the band);
    ``""`` for a row without a replicate."""
    if pd.isna(row["replicate_n"]) or row["replicate_n"] == "":
        return ""
    return interval_verdict(float(row["replicate_ci_low"]), float(row["replicate_ci_high"]),
                            float(row["band_low"]), float(row["band_high"]))


def with_replicate(claims: pd.DataFrame, replicate: pd.DataFrame | None) -> pd.DataFrame:
    """``claims`` with :data:`REPLICATE_COLUMNS` from the replicate's claims table (same claim,
    data and reading); empty where the replicate has no such row."""
    columns = {"measured": "replicate_measured", "n": "replicate_n", "ci_low": "replicate_ci_low",
               "ci_high": "replicate_ci_high", "verdict": "replicate_verdict"}
    if replicate is None or replicate.empty:
        merged = claims.assign(**{c: pd.NA for c in columns.values()})
    else:
        own = replicate[["id", "data", "reading", *columns]].rename(columns=columns)
        merged = claims.merge(own, on=["id", "data", "reading"], how="left")
    merged["replicate_n"] = merged["replicate_n"].astype("Int64")
    merged["replicate_verdict"] = merged["replicate_verdict"].fillna("").astype(str)
    merged["stability"] = [stability(v, r) for v, r in zip(merged["verdict"], merged["replicate_verdict"])]
    return merged
