"""A table as one self-contained HTML page: rounded cells, columns sorted by a click.

The page needs no network (the report must work offline): its style and its sort script are
inline. Each number cell keeps its value to 6 significant digits in ``data-value`` (more than
any cell shows), so sorting a rounded column orders the rows by their measured values, not by
their text. The page carries nothing twice: a text cell sorts by its own text, and the
alignment of a column is set once in the style, not on each of its cells.
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
td { max-width: 36em; }
tr:nth-child(even) td { background: #fafbfc; }
td.verdict-holds { background: #dafbe1 !important; }
td.verdict-contradicted { background: #ffebe9 !important; }
td.verdict-inconclusive { background: #fff8c5 !important; }
"""

# Click a header: sort by it, ascending, then descending. Numbers compare as numbers (from
# data-value), text as text (a cell without data-value sorts by its text); empty cells go last.
SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th, column) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0];
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var key = function (row) {
      var cell = row.cells[column], value = cell.getAttribute("data-value");
      if (value === null) { value = cell.textContent; }
      if (value === "") { return null; }
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
    """A cell's sort key: the number to 6 significant digits (more than any cell shows, so the
    order is the measured values'), or the text."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, float, np.number)):
        return f"{float(value):.6g}" if np.isfinite(float(value)) else (
            "1e308" if float(value) > 0 else "-1e308")
    return str(value)


LONG_TEXT = 40  # mean characters from which a text column is given room for sentences


#: Columns that say what a row is about: right after its name and verdict, however long.
KEY_COLUMNS = ("data", "dataset", "split", "reading", "model", "model_a", "model_b")


def _reading_order(frame: pd.DataFrame, long_text: set[str]) -> list[str]:
    """The columns in the order a reader wants them: the row's name, its ``verdict`` if the
    table has one, the columns saying what the row is about (:data:`KEY_COLUMNS`), the other
    short columns (the numbers), then the columns of sentences."""
    first = [frame.columns[0]] + (["verdict"] if "verdict" in frame.columns[1:] else [])
    first += [c for c in KEY_COLUMNS if c in frame.columns[1:] and c not in first]
    rest = [c for c in frame.columns if c not in first]
    return first + [c for c in rest if c not in long_text] + [c for c in rest if c in long_text]


def cells_html(shown: pd.DataFrame, values: pd.DataFrame, numeric: set[str],
               long_text: set[str] = frozenset()) -> str:
    """The ``<table>`` of cell texts ``shown`` sorted by ``values`` (same shape and columns).

    A number column (``numeric``) is right-aligned and its cells carry their sort key in
    ``data-value``; a text cell sorts by its own text and carries none. The alignment and the
    room of sentence columns (``long_text``) are set once per column in the page's style, by
    position (:func:`column_style`), not on every cell.
    """
    header = "".join(f'<th scope="col">{html.escape(str(column))}</th>'
                     for column in shown.columns)
    body = []
    for index in shown.index:
        cells = []
        for column in shown.columns:
            text = html.escape(shown.at[index, column])
            if column == "verdict" and text:
                cells.append(f'<td class="verdict-{text}">{text}</td>')
            elif column in numeric:
                cells.append(f'<td data-value="{html.escape(_data_value(values.at[index, column]))}">'
                             f"{text}</td>")
            else:
                cells.append(f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="sortable"><thead><tr>{header}</tr></thead>'
            f"<tbody>\n" + "\n".join(body) + "\n</tbody></table>")


def column_style(columns, numeric: set[str], long_text: set[str] = frozenset()) -> str:
    """CSS aligning the number columns right and giving sentence columns room, by position."""
    rules = []
    for position, column in enumerate(columns, start=1):
        if column in numeric:
            rules.append(f"td:nth-child({position}) {{ text-align: right; "
                         "font-variant-numeric: tabular-nums; white-space: nowrap; }")
        elif column in long_text:
            rules.append(f"td:nth-child({position}) {{ min-width: 26em; }}")
    return "\n".join(rules)


def table_rows_html(frame: pd.DataFrame) -> tuple[str, str]:
    """The ``<table>`` of ``frame`` and its column style: header cells to click, rounded body
    cells (see :mod:`mixlib.report.rounding`), number cells with their values in
    ``data-value``; columns in reading order (:func:`_reading_order`)."""
    shown = formatted_table(frame)
    numeric = {column for column in frame.columns
               if pd.api.types.is_numeric_dtype(frame[column])
               and not pd.api.types.is_bool_dtype(frame[column])}
    # columns of sentences (a claim's statement): last, wide enough to read in a few lines
    long_text = {column for column in frame.columns if column not in numeric
                 and shown[column].str.len().mean() > LONG_TEXT}
    order = _reading_order(frame, long_text)
    return (cells_html(shown[order], frame[order], numeric, long_text),
            column_style(order, numeric, long_text))


def page(table_html: str, title: str, note: str = "", style: str = "") -> str:
    """A self-contained HTML page: ``table_html`` under ``title`` (and a ``note``), sortable."""
    note_html = f'<p class="note">{html.escape(note)}</p>' if note else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{STYLE}{style}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{note_html}"
        f'<div class="scroll">{table_html}</div>'
        f"<script>{SORT_SCRIPT}</script></body></html>\n"
    )


def _constant_text(frame: pd.DataFrame, column: str) -> str:
    return f"{column} {formatted_table(frame[[column]].head(1)).iat[0, 0] or '(empty)'}"


def shown_columns(frame: pd.DataFrame, per: str | None = None) -> tuple[list[str], str]:
    """The columns a page shows, and the sentence naming those it leaves out.

    Left out: a column with the same value on every row (said once in the sentence, e.g.
    ``provenance``), and, given ``per``, a column whose value is the same on every row of each
    value of ``per`` (e.g. a claim's ``statement``, with ``per="id"``: the page of one row per
    claim shows it). The first column and ``per`` are always shown; the TSV keeps them all.
    """
    keep = {frame.columns[0], per}
    constant = [c for c in frame.columns if c not in keep and len(frame) > 1
                and frame[c].nunique(dropna=False) == 1]
    repeated = []
    if per is not None:
        counts = frame.groupby(per, sort=False, dropna=False).nunique(dropna=False)
        repeated = [c for c in frame.columns if c not in keep and c not in constant
                    and c in counts.columns and (counts[c] <= 1).all()]
    sentences = []
    if constant:
        sentences.append("Same on every row: "
                         + ", ".join(_constant_text(frame, c) for c in constant) + ".")
    if repeated:
        sentences.append(f"The same for every row of one {per}, so not repeated here: "
                         + ", ".join(repeated) + ".")
    dropped = set(constant) | set(repeated)
    return [c for c in frame.columns if c not in dropped], " ".join(sentences)


def table_page(frame: pd.DataFrame, title: str, note: str = "", per: str | None = None) -> str:
    """A self-contained HTML page showing ``frame`` under ``title`` (and a ``note``), without
    the columns :func:`shown_columns` leaves out (named after the note)."""
    columns, left_out = shown_columns(frame, per)
    table_html, style = table_rows_html(frame[columns])
    return page(table_html, title, " ".join(part for part in (note, left_out) if part), style)
