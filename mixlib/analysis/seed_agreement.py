"""Do the verdicts survive a second seed? Two runs' claims tables, matched row by row.

The study runs twice, at the config's ``seed`` and at another (``--config seed=7``). A row of
``claims.tsv`` is one claim on one data set under one reading, so the two tables are matched
on ``(id, data, reading)``. Two questions decide whether the second seed confirms the first:

- **no reversal**: no row holds in one run and is contradicted in the other;
- **few changes among stable rows**: a row either run flags ``unstable`` (its in-run replicate
  disagreed, :mod:`mixlib.analysis.claims_replicate`) already says its verdict depends on the
  draw; among the other rows, the share whose verdict differs between the runs,
  ``changed / matched`` over rows flagged unstable by neither, is at most
  :data:`MAX_CHANGED_SHARE`.

Run as ``python -m mixlib.analysis.seed_agreement FIRST.tsv SECOND.tsv [--names A B]``: it
prints both answers and every matched row as a markdown table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mixlib.analysis.claims_replicate import UNSTABLE
from mixlib.analysis.verdicts import CONTRADICTED, HOLDS

#: The columns that name a row of the claims table.
ROW_KEY = ["id", "data", "reading"]
#: At most this share of the rows flagged unstable by neither run may change verdict.
MAX_CHANGED_SHARE = 0.10


@dataclass(frozen=True)
class SeedAgreement:
    """Two claims tables matched on :data:`ROW_KEY`.

    Attributes
    ----------
    rows : pandas.DataFrame
        One row per matched claims row: the key, ``verdict_a``, ``verdict_b``,
        ``stability_a``, ``stability_b``, ``changed`` (the verdicts differ), ``reversed`` (one
        holds, the other is contradicted) and ``flagged`` (either run flags it unstable).
    only_a, only_b : pandas.DataFrame
        The keys of the rows one table has and the other lacks.
    """

    rows: pd.DataFrame
    only_a: pd.DataFrame
    only_b: pd.DataFrame

    @property
    def reversals(self) -> pd.DataFrame:
        """Rows that hold in one run and are contradicted in the other."""
        return self.rows[self.rows["reversed"]]

    @property
    def n_unflagged(self) -> int:
        """Matched rows that neither run flags unstable."""
        return int((~self.rows["flagged"]).sum())

    @property
    def n_changed_unflagged(self) -> int:
        """Of those, the rows whose verdict differs between the runs."""
        return int((self.rows["changed"] & ~self.rows["flagged"]).sum())

    @property
    def changed_share(self) -> float:
        """``n_changed_unflagged / n_unflagged`` (NaN without an unflagged row)."""
        return self.n_changed_unflagged / self.n_unflagged if self.n_unflagged else float("nan")

    def accepted(self, max_share: float = MAX_CHANGED_SHARE) -> bool:
        """No reversal, and at most ``max_share`` of the unflagged rows changed."""
        return self.reversals.empty and self.n_unflagged > 0 and self.changed_share <= max_share


def _keyed(table: pd.DataFrame, where: str) -> pd.DataFrame:
    missing = [c for c in ROW_KEY + ["verdict"] if c not in table.columns]
    if missing:
        raise ValueError(f"{where}: a claims table needs the columns {ROW_KEY + ['verdict']}; "
                         f"missing {missing}.")
    table = table.copy()
    for column in ROW_KEY + ["verdict"]:
        table[column] = table[column].fillna("").astype(str)
    table["stability"] = table["stability"].fillna("").astype(str) if "stability" in table else ""
    duplicated = table[table.duplicated(ROW_KEY, keep=False)]
    if not duplicated.empty:
        first = duplicated.iloc[0]
        raise ValueError(f"{where}: the row (id, data, reading) = ({first['id']}, {first['data']}, "
                         f"{first['reading']}) occurs {len(duplicated)} times; a row must be unique.")
    return table[ROW_KEY + ["verdict", "stability"]]


def seed_agreement(first: pd.DataFrame, second: pd.DataFrame, *, names: Sequence[str] = ("a", "b")
                   ) -> SeedAgreement:
    """Match two claims tables on :data:`ROW_KEY` and compare their verdicts.

    Parameters
    ----------
    first, second : pandas.DataFrame
        The claims tables (columns ``id``, ``data``, ``reading``, ``verdict`` and, for the
        replicate's flag, ``stability``) of two runs differing in their seed.
    names : (str, str)
        The runs' names, for the error messages.
    """
    a, b = _keyed(first, names[0]), _keyed(second, names[1])
    merged = a.merge(b, on=ROW_KEY, how="outer", suffixes=("_a", "_b"), indicator=True)
    only_a = merged.loc[merged["_merge"] == "left_only", ROW_KEY].reset_index(drop=True)
    only_b = merged.loc[merged["_merge"] == "right_only", ROW_KEY].reset_index(drop=True)
    rows = merged[merged["_merge"] == "both"].drop(columns="_merge").reset_index(drop=True)
    rows["changed"] = rows["verdict_a"] != rows["verdict_b"]
    rows["reversed"] = [{va, vb} == {HOLDS, CONTRADICTED} for va, vb in zip(rows["verdict_a"], rows["verdict_b"])]
    rows["flagged"] = (rows["stability_a"] == UNSTABLE) | (rows["stability_b"] == UNSTABLE)
    return SeedAgreement(rows, only_a, only_b)


def _markdown(frame: pd.DataFrame) -> str:
    """A markdown table of ``frame`` (cells as text, ``|`` escaped)."""
    def cell(value) -> str:
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(map(cell, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def agreement_markdown(result: SeedAgreement, names: Sequence[str] = ("a", "b"),
                       max_share: float = MAX_CHANGED_SHARE) -> str:
    """The comparison as markdown: the two answers, then every matched row."""
    a, b = names
    share = result.changed_share
    summary = pd.DataFrame([
        ("rows matched by (id, data, reading)", len(result.rows)),
        (f"rows only in {a}", len(result.only_a)),
        (f"rows only in {b}", len(result.only_b)),
        ("verdict changes, all matched rows", int(result.rows["changed"].sum())),
        ("holds in one run, contradicted in the other (accept: none)", len(result.reversals)),
        ("rows flagged unstable by neither run", result.n_unflagged),
        ("of those, verdict changes", result.n_changed_unflagged),
        (f"share of changes among them (accept: <= {100 * max_share:.0f} %)",
         "n/a" if share != share else f"{100 * share:.1f} %"),
        ("accepted", "yes" if result.accepted(max_share) else "no"),
    ], columns=["question", "answer"])
    rows = result.rows.assign(change=[
        "reversed" if r else ("changed" if c else "") for r, c in zip(result.rows["reversed"], result.rows["changed"])])
    rows = rows[ROW_KEY + ["verdict_a", "verdict_b", "stability_a", "stability_b", "change"]].rename(
        columns={"verdict_a": f"verdict {a}", "verdict_b": f"verdict {b}",
                 "stability_a": f"replicate {a}", "stability_b": f"replicate {b}"})
    parts = [f"## Seed agreement: {a} against {b}", "", _markdown(summary), "", "### Rows", "", _markdown(rows)]
    for name, only in ((a, result.only_a), (b, result.only_b)):
        if not only.empty:
            parts += ["", f"### Rows only in {name}", "", _markdown(only)]
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m mixlib.analysis.seed_agreement FIRST SECOND``: print the comparison."""
    parser = argparse.ArgumentParser(prog="python -m mixlib.analysis.seed_agreement",
                                     description="Compare the claims tables of two runs at different seeds.")
    parser.add_argument("first", type=Path, help="claims.tsv of the first run (e.g. the default seed)")
    parser.add_argument("second", type=Path, help="claims.tsv of the second run (e.g. --config seed=7)")
    parser.add_argument("--names", nargs=2, default=None, metavar=("FIRST", "SECOND"),
                        help="the runs' names in the output (default: the files' parent folders)")
    parser.add_argument("--max-share", type=float, default=MAX_CHANGED_SHARE,
                        help="accepted share of verdict changes among unflagged rows (default 0.10)")
    args = parser.parse_args(argv)
    names = args.names or [str(args.first.parent), str(args.second.parent)]
    tables = []
    for path in (args.first, args.second):
        if not path.is_file():
            parser.error(f"no claims table at {path}")
        tables.append(pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False))
    result = seed_agreement(*tables, names=names)
    sys.stdout.write(agreement_markdown(result, names, args.max_share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
