"""The report's landing page: the claims' verdicts at a glance, as an HTML fragment."""

from __future__ import annotations

import html

import pandas as pd

from mixlib.report.rounding import format_value, interval_decimals

VERDICTS = ("holds", "contradicted", "inconclusive")


def _interval_text(row: pd.Series, decimals: int | None) -> str:
    low, high = (format_value(row[c], c, decimals) for c in ("ci_low", "ci_high"))
    return f"[{low}, {high}]" if low and high else ""


def _column(claims: pd.DataFrame, name: str) -> pd.Series:
    """A text column of ``claims`` (empty where missing or NaN)."""
    if name not in claims.columns:
        return pd.Series("", index=claims.index)
    return claims[name].where(claims[name].notna(), "").astype(str)


def stated_verdicts(claims: pd.DataFrame) -> pd.Series:
    """The verdict the page states per row: ``unstable`` where the replicate of our reading
    disagrees (``stability``), never the holding or contradicting verdict of such a row."""
    return claims["verdict"].where(_column(claims, "stability") != "unstable", "unstable")


def verdict_counts_text(claims: pd.DataFrame) -> str:
    """E.g. ``"48 claim rows: 13 hold, 13 contradicted, 20 inconclusive, 2 unstable (the
    replicate agrees on 31 of 33 rows, 94 %)"``."""
    stated = stated_verdicts(claims)
    counts = stated.value_counts()
    words = {"holds": "hold"}
    parts = [f"{int(counts.get(v, 0))} {words.get(v, v)}" for v in VERDICTS]
    stability = _column(claims, "stability")
    replicated = stability[stability != ""]
    text = f"{len(claims)} claim rows: " + ", ".join(parts)
    if len(replicated):
        agree = int((replicated == "stable").sum())
        text += (f", {int(counts.get('unstable', 0))} unstable (the replicate of our reading agrees "
                 f"on {agree} of {len(replicated)} rows, {100 * agree / len(replicated):.0f} %)")
    return text


def claims_summary_html(claims: pd.DataFrame) -> str:
    """The landing page's summary of ``claims.tsv``: verdict counts and the replicate's
    agreement rate, then one line per claim and data set (chapter, statement, measured value
    with its interval, band, the 95 % prediction interval of one run and whether the
    report's value lies in it, verdict, and how many readings of the open settings give
    ``holds``), rounded as the claims table (:mod:`mixlib.report.rounding`). A row whose
    replicate disagrees is stated ``unstable``, with both verdicts, never as holding or
    contradicted.

    A fragment (no ``<html>``, no script): Snakemake's report inserts the landing text as
    HTML, where scripts do not run; the sortable table is the report's "claims" item.
    """
    rows = []
    stated = stated_verdicts(claims)
    replicate = _column(claims, "replicate_verdict")
    in_pi = _column(claims, "report_in_pi")
    for (_, row), verdict, again, inside in zip(claims.iterrows(), stated, replicate, in_pi):
        decimals = interval_decimals(float(row["ci_low"]), float(row["ci_high"]))
        band = (f"({format_value(row['band_low'], 'band_low', decimals)}, "
                f"{format_value(row['band_high'], 'band_high', decimals)})")
        readings = (f"{int(row['readings_holds'])} / {int(row['readings'])}"
                    if int(row["readings"]) > 0 else "")
        prediction = ""
        if inside:
            low, high = (format_value(row[c], c, decimals) for c in ("pi_low", "pi_high"))
            prediction = f"[{low}, {high}]: {'yes' if inside == 'yes' else 'no'}"
        cells = [str(row["chapter"]), html.escape(str(row["statement"])),
                 html.escape(str(row["data"])),
                 format_value(row["measured"], "measured", decimals),
                 _interval_text(row, decimals), band, prediction, readings]
        shown = (f"unstable ({html.escape(str(row['verdict']))} / {html.escape(again)})"
                 if verdict == "unstable" else html.escape(str(verdict)))
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells)
                    + f'<td class="verdict-{html.escape(str(verdict))}"><b>{shown}</b></td></tr>')
    header = "".join(f"<th>{name}</th>" for name in (
        "ch.", "claim", "data", "measured", "95 % interval", "band",
        "report's run in the 95 % prediction interval", "readings holding", "verdict"))
    return (
        '<div class="mixstudy-summary">'
        f"<p><b>{html.escape(verdict_counts_text(claims))}.</b> An unstable row is one whose "
        "verdict a second, independently seeded run of our reading does not repeat: it states "
        "neither that the claim holds nor that it is contradicted.</p>"
        f'<table class="mixstudy-claims"><thead><tr>{header}</tr></thead><tbody>'
        + "\n".join(rows) + "</tbody></table></div>\n"
    )
