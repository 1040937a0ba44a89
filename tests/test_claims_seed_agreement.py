"""Two runs' claims tables at different seeds, matched row by row (hand-made tables)."""

import pandas as pd
import pytest

from mixlib.analysis.seed_agreement import agreement_markdown, main, seed_agreement


def _table(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["id", "data", "reading", "verdict", "stability"])


FIRST = _table([
    ("a", "bacteria", "r=1", "holds", "stable"),
    ("a", "wine", "r=1", "holds", "stable"),
    ("b", "bacteria", "r=1", "inconclusive", "unstable"),
    ("c", "bacteria", "", "contradicted", ""),
    ("d", "bacteria", "r=1", "inconclusive", "stable"),
    ("e", "bacteria", "r=1", "holds", "stable"),
])
SECOND = _table([
    ("a", "bacteria", "r=1", "holds", "stable"),
    ("a", "wine", "r=1", "inconclusive", "stable"),    # a change among unflagged rows
    ("b", "bacteria", "r=1", "contradicted", "stable"),  # flagged in the first run: not counted
    ("c", "bacteria", "", "contradicted", ""),
    ("d", "bacteria", "r=1", "inconclusive", "stable"),
    ("e", "bacteria", "r=2", "holds", "stable"),         # another reading: not matched
])


def test_rows_are_matched_on_id_data_and_reading_and_unflagged_changes_counted():
    result = seed_agreement(FIRST, SECOND)
    assert len(result.rows) == 5
    assert result.only_a.values.tolist() == [["e", "bacteria", "r=1"]]
    assert result.only_b.values.tolist() == [["e", "bacteria", "r=2"]]
    assert result.rows["changed"].sum() == 2
    # b is flagged unstable by the first run: 4 unflagged rows, one of which (a on wine) changed
    assert (result.n_unflagged, result.n_changed_unflagged) == (4, 1)
    assert result.changed_share == pytest.approx(0.25)
    assert result.reversals.empty and not result.accepted() and result.accepted(max_share=0.25)


def test_a_row_that_holds_at_one_seed_and_is_contradicted_at_the_other_is_a_reversal():
    second = SECOND.copy()
    second.loc[0, "verdict"] = "contradicted"
    second.loc[0, "stability"] = "unstable"  # a reversal counts even on a flagged row
    result = seed_agreement(FIRST, second)
    assert result.reversals[["id", "data"]].values.tolist() == [["a", "bacteria"]]
    assert not result.accepted(max_share=1.0)
    text = agreement_markdown(result, ("default", "seed 7"))
    assert "| a | bacteria | r=1 | holds | contradicted | stable | unstable | reversed |" in text
    assert "| holds in one run, contradicted in the other (accept: none) | 1 |" in text
    assert "### Rows only in default" in text and "### Rows only in seed 7" in text


def test_the_same_table_twice_agrees_everywhere():
    result = seed_agreement(FIRST, FIRST)
    assert result.changed_share == 0.0 and result.accepted()
    assert result.n_unflagged == 5 and result.only_a.empty and result.only_b.empty


def test_a_duplicated_row_or_a_missing_column_is_named():
    with pytest.raises(ValueError, match=r"\(a, bacteria, r=1\) occurs 2 times"):
        seed_agreement(pd.concat([FIRST, FIRST.iloc[:1]]), SECOND, names=("default", "seed 7"))
    with pytest.raises(ValueError, match=r"seed 7: .*missing \['verdict'\]"):
        seed_agreement(FIRST, SECOND.drop(columns="verdict"), names=("default", "seed 7"))


def test_the_command_reads_two_files_and_prints_markdown(tmp_path, capsys):
    first, second = tmp_path / "a.tsv", tmp_path / "b.tsv"
    FIRST.to_csv(first, sep="\t", index=False)
    SECOND.to_csv(second, sep="\t", index=False)
    assert main([str(first), str(second), "--names", "default", "seed7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## Seed agreement: default against seed7")
    assert "| share of changes among them (accept: <= 10 %) | 25.0 % |" in out
    assert "| accepted | no |" in out
    # an empty reading cell reads as "" (not NaN), so row c matches across the files
    assert "| c | bacteria |  | contradicted | contradicted |" in out
