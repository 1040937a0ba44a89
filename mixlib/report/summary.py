"""The report's landing page: the claims' verdicts at a glance, as an HTML fragment."""

from __future__ import annotations

import html

import pandas as pd

from mixlib.report.rounding import format_value, interval_decimals

VERDICTS = ("holds", "contradicted", "inconclusive")


def _interval_text(row: pd.Series, decimals: int | None) -> str:
    low, high = (format_value(row[c], c, decimals) for c in ("ci_low", "ci_high"))
    return f"[{low}, {high}]" if low and high else ""


def verdict_counts_text(claims: pd.DataFrame) -> str:
    """E.g. ``"48 claim rows: 13 hold, 13 contradicted, 22 inconclusive"``."""
    counts = claims["verdict"].value_counts()
    words = {"holds": "hold"}
    parts = [f"{int(counts.get(v, 0))} {words.get(v, v)}" for v in VERDICTS]
    return f"{len(claims)} claim rows: " + ", ".join(parts)


def claims_summary_html(claims: pd.DataFrame) -> str:
    """The landing page's summary of ``claims.tsv``: verdict counts, then one line per claim
    and data set (chapter, statement, measured value with its interval, band, verdict, and
    how many readings of the open settings give ``holds``), rounded as the claims table
    (:mod:`mixlib.report.rounding`).

    A fragment (no ``<html>``, no script): Snakemake's report inserts the landing text as
    HTML, where scripts do not run; the sortable table is the report's "claims" item.
    """
    rows = []
    for _, row in claims.iterrows():
        decimals = interval_decimals(float(row["ci_low"]), float(row["ci_high"]))
        band = (f"({format_value(row['band_low'], 'band_low', decimals)}, "
                f"{format_value(row['band_high'], 'band_high', decimals)})")
        readings = (f"{int(row['readings_holds'])} / {int(row['readings'])}"
                    if int(row["readings"]) > 0 else "")
        cells = [str(row["chapter"]), html.escape(str(row["statement"])),
                 html.escape(str(row["data"])),
                 format_value(row["measured"], "measured", decimals),
                 _interval_text(row, decimals), band, readings]
        verdict = html.escape(str(row["verdict"]))
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells)
                    + f'<td class="verdict-{verdict}"><b>{verdict}</b></td></tr>')
    header = "".join(f"<th>{name}</th>" for name in (
        "ch.", "claim", "data", "measured", "95 % interval", "band", "readings holding",
        "verdict"))
    return (
        '<div class="mixstudy-summary">'
        f"<p><b>{html.escape(verdict_counts_text(claims))}.</b></p>"
        f'<table class="mixstudy-claims"><thead><tr>{header}</tr></thead><tbody>'
        + "\n".join(rows) + "</tbody></table></div>\n"
    )
