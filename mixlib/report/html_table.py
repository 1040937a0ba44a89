"""A table as one self-contained HTML page: rounded cells, columns sorted by a click.

The page needs no network (the report must work offline): its style and its sort script are
inline. Each cell keeps the full-precision value in ``data-value``, so sorting a rounded
column orders the rows by their measured values, not by their text.
"""

from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd

from mixlib.report.rounding import formatted_table

STYLE = """
body { font: 13px/1.4 system-ui, sans-serif; margin: 0.8em; color: #1f2328; }
h1 { font-size: 15px; margin: 0 0 0.3em; }
p.note { margin: 0 0 0.6em; color: #57606a; }
.scroll { overflow: auto; max-height: calc(100vh - 5em); }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 2px 6px; vertical-align: top; }
th { position: sticky; top: 0; background: #f6f8fa; cursor: pointer; white-space: nowrap;
     user-select: none; }
th[aria-sort="ascending"]::after { content: " \\25B2"; }
th[aria-sort="descending"]::after { content: " \\25BC"; }
td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { max-width: 36em; }
td.long { min-width: 26em; }
tr:nth-child(even) td { background: #fafbfc; }
td.verdict-holds { background: #dafbe1 !important; }
td.verdict-contradicted { background: #ffebe9 !important; }
td.verdict-inconclusive { background: #fff8c5 !important; }
"""

# Click a header: sort by it, ascending, then descending. Numbers compare as numbers (from
# data-value), text as text; empty cells go last.
SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th, column) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var key = function (row) {
      var cell = row.cells[column], value = cell.getAttribute("data-value");
      if (value === null || value === "") { return null; }
      var number = Number(value);
      return isNaN(number) ? value.toLowerCase() : number;
    };
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x === y) { return 0; }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  });
});
"""


def _data_value(value: object) -> str:
    """A cell's sort key: the number at full precision, or the text."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, float, np.number)):
        return json.dumps(float(value)) if np.isfinite(float(value)) else (
            "1e308" if float(value) > 0 else "-1e308")
    return str(value)


LONG_TEXT = 40  # mean characters from which a text column is given room for sentences


def _reading_order(frame: pd.DataFrame, long_text: set[str]) -> list[str]:
    """The columns in the order a reader wants them: the row's name, its ``verdict`` if the
    table has one, the other short columns (the numbers), then the columns of sentences."""
    first = [frame.columns[0]] + (["verdict"] if "verdict" in frame.columns[1:] else [])
    rest = [c for c in frame.columns if c not in first]
    return first + [c for c in rest if c not in long_text] + [c for c in rest if c in long_text]


def table_rows_html(frame: pd.DataFrame) -> str:
    """The ``<table>`` of ``frame``: header cells to click, rounded body cells (see
    :mod:`mixlib.report.rounding`) with their full values in ``data-value``; columns in
    reading order (:func:`_reading_order`)."""
    shown = formatted_table(frame)
    numeric = {column: pd.api.types.is_numeric_dtype(frame[column])
               and not pd.api.types.is_bool_dtype(frame[column]) for column in frame.columns}
    # columns of sentences (a claim's statement): last, wide enough to read in a few lines
    long_text = {column for column in frame.columns if not numeric[column]
                 and shown[column].str.len().mean() > LONG_TEXT}
    order = _reading_order(frame, long_text)
    frame, shown = frame[order], shown[order]
    header = "".join(f'<th scope="col">{html.escape(str(column))}</th>'
                     for column in frame.columns)
    body = []
    for index in frame.index:
        cells = []
        for column in frame.columns:
            text = shown.at[index, column]
            classes = ["number" if numeric[column] else "text"]
            if column in long_text:
                classes.append("long")
            if column == "verdict" and text:
                classes.append(f"verdict-{html.escape(text)}")
            cells.append(f'<td class="{" ".join(classes)}" '
                         f'data-value="{html.escape(_data_value(frame.at[index, column]))}">'
                         f"{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable"><thead><tr>{header}</tr></thead>'
            f"<tbody>\n" + "\n".join(body) + "\n</tbody></table>")


def table_page(frame: pd.DataFrame, title: str, note: str = "") -> str:
    """A self-contained HTML page showing ``frame`` under ``title`` (and a ``note``)."""
    note_html = f'<p class="note">{html.escape(note)}</p>' if note else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{note_html}"
        f'<div class="scroll">{table_rows_html(frame)}</div>'
        f"<script>{SORT_SCRIPT}</script></body></html>\n"
    )
