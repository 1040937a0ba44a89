"""The claims tables: every claim of :mod:`mixlib.analysis.claims` measured and judged.

:func:`build_claims` gives one row per claim, split (or data set) and setting of the run's own
tables under its reading; :func:`build_readings` the same over the sensitivity grid, one row
per reading; :func:`with_robustness` adds to the first how many readings give each verdict;
:func:`claims_and_readings` does all three for the ``claims`` rule, and adds the verdicts of the
replicate of our reading.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from mixlib.core.statistics import STUDY_SIGNIFICANCE_LEVEL
from mixlib.core.vocabulary import ANY
from mixlib.analysis.claims import ABSOLUTE, CLAIMS, Claim
from mixlib.analysis.claims_measures import EVIDENCE, TIMING_TOLERANCE, Context
from mixlib.analysis.claims_replicate import REPLICATE_COLUMNS, as_original, with_replicate
from mixlib.catalogue.settings import EMSettings
from mixlib.analysis.verdicts import VERDICTS, Evidence, decide, report_in_prediction

CLAIM_COLUMNS = ["id", "chapter", "figure", "kind", "data", "reading", "statement", "band_low", "band_high",
                 "band_rule", *EVIDENCE, "verdict", "report_low", "report_high", "report_in_pi", "table"]
#: The readings table's extra column: the first reading of the same claim and data whose
#: evidence is identical (settings that give identical fits, or that the measure ignores),
#: empty for the first; only readings with an empty ``same_as`` are counted.
SAME_AS = "same_as"
ROBUSTNESS_COLUMNS = ["readings", "readings_holds", "readings_contradicted", "readings_inconclusive"]
#: The grid's extra reading column (the relative variance floor).
FLOOR = "relative_min_variance"
#: Chapters whose claims have readings (the settings the report leaves open).
READ_CHAPTERS = ("3", "5")


def _label(value) -> str:
    return format(value, "g") if isinstance(value, (float, np.floating)) else str(value)


def _is_any(column: pd.Series) -> np.ndarray:
    """Where ``column`` holds :data:`ANY` (a numeric column never does)."""
    if pd.api.types.is_numeric_dtype(column):
        return np.zeros(len(column), dtype=bool)
    return column.to_numpy(dtype=object) == ANY


def expand_any(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``table`` with every row whose value in one of ``columns`` is :data:`ANY` repeated once
    per value that column takes elsewhere, so each row belongs to exactly one setting (a
    rule-free metric to every rule, the iterative method's rows to every restart)."""
    for column in columns:
        is_any = _is_any(table[column])
        if not is_any.any():
            continue
        values = pd.unique(table.loc[~is_any, column])
        copies = [table.loc[is_any].assign(**{column: value}) for value in values]
        table = pd.concat([table.loc[~is_any], *copies], ignore_index=True)
    return table


def _setting_columns(table: pd.DataFrame, columns: tuple[str, ...]) -> list[str]:
    """The columns of ``columns`` the table has with some value other than "any"."""
    return [c for c in columns if c in table.columns and not _is_any(table[c]).all()]


def _on_report_problem(table: pd.DataFrame, unit: str, names: frozenset) -> np.ndarray:
    """Rows on the report's own problem: their ``unit`` value, or their data set, is named."""
    mine = table[unit].astype(str).isin(names).to_numpy().copy()
    if "dataset" in table.columns:
        mine |= table["dataset"].astype(str).isin(names).to_numpy()
    return mine


def evaluate(claim: Claim, tables: Mapping[str, pd.DataFrame], *, problems: Mapping[str, frozenset],
             seed: int, extra_readings: tuple[str, ...] = (), reading_suffix: str = "",
             em_tol: float = 1e-6, every_reading: bool = False,
             timing_tolerance: float = TIMING_TOLERANCE) -> list[dict]:
    """The rows of one claim: one per split (or data set) it applies to and reading.

    An absolute claim keeps only the rows of the splits or data sets named for its chapter in
    ``problems``. The readings are the claim's setting columns plus ``extra_readings``.
    """
    table = tables[claim.tables[0]]
    unit = claim.unit or "data"
    if claim.unit is None:
        table = table.assign(data="all")
    if unit not in table.columns:
        return []
    if claim.kind == ABSOLUTE:
        table = table[_on_report_problem(table, unit, problems.get(claim.chapter, frozenset()))]
    readings = _setting_columns(table, claim.readings + extra_readings)
    table = expand_any(table, readings)
    if table.empty:
        return []
    context = Context(STUDY_SIGNIFICANCE_LEVEL, (claim.band.low, claim.band.high), seed, claim.id,
                      {name: tables[name] for name in claim.tables[1:]}, claim.tables[0], em_tol, every_reading,
                      timing_tolerance)
    evidence = claim.measure(table, [unit] + readings, context)
    # a measure may add readings of its own (the EM tolerance, how rounds are counted)
    readings = list(evidence.index.names[1:]) if evidence.index.nlevels > 1 else []
    rows = []
    for key, found in zip(evidence.index, evidence.to_dict("records")):
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{c}={_label(v)}" for c, v in zip(readings, key[1:]))
        verdict = decide(Evidence(found["measured"], found["n"], found["ci_low"], found["ci_high"],
                                  found["alpha"], p_holds=found["p_holds"],
                                  p_contradicted=found["p_contradicted"]), claim.band.low, claim.band.high)
        rows.append({
            "id": claim.id, "chapter": claim.chapter, "figure": claim.figure, "kind": claim.kind,
            "data": str(key[0]), "reading": ", ".join(p for p in (label, reading_suffix) if p),
            "statement": claim.statement, "band_low": claim.band.low, "band_high": claim.band.high,
            "band_rule": claim.band.rule, **{c: found[c] for c in EVIDENCE}, "verdict": verdict,
            "report_low": claim.band.report_low, "report_high": claim.band.report_high,
            "report_in_pi": report_in_prediction(claim.band.report_low, claim.band.report_high,
                                                 found["pi_low"], found["pi_high"]),
            "table": "+".join(claim.tables),
        })
    return rows


def _problems(problems: Mapping[str, list[str]] | None) -> dict[str, frozenset]:
    """``claims.report_problems`` (``chapter3: [names]``) as chapter -> names."""
    return {key.removeprefix("chapter"): frozenset(map(str, names)) for key, names in (problems or {}).items()}


def _with_rule(table: pd.DataFrame, rule: str | None) -> pd.DataFrame:
    if rule is None or "unclassifiable" not in table.columns:
        return table
    return table[table["unclassifiable"].isin([rule, ANY])]


def build_claims(tables: Mapping[str, pd.DataFrame], *, problems: Mapping[str, list[str]] | None,
                 seed: int, rule: str | None = None, floor: str = "",
                 claims: list[Claim] | None = None, em_tol: float = 1e-6,
                 timing_tolerance: float = TIMING_TOLERANCE) -> pd.DataFrame:
    """The claims table of a run under its own reading.

    Parameters
    ----------
    tables : mapping name -> DataFrame
        The run's tables (claims naming an absent table are left out).
    problems : mapping or None
        ``claims.report_problems`` of the config: per chapter (``chapter3``, ...), the splits
        or data sets standing for the report's own problem (absolute claims run there only).
    seed : int
        The study's seed (bootstrap generators).
    rule : str, optional
        The unclassifiable rule of the reading (rows of other rules are left out).
    floor : str
        The run's variance floor, appended to the reading of chapter-3 and -5 claims.
    claims : list of Claim, optional
        Defaults to :data:`CLAIMS`.
    em_tol : float
        The run's EM tolerance (the EM-iteration claims' reading).
    timing_tolerance : float
        The factor a ratio of fit times has its interval widened by (``claims.timing_tolerance``,
        :data:`~mixlib.analysis.claims_measures.TIMING_TOLERANCE`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CLAIM_COLUMNS`.
    """
    tables = {name: _with_rule(table, rule) for name, table in tables.items()}
    rows = []
    for claim in CLAIMS if claims is None else claims:
        if all(name in tables for name in claim.tables):
            suffix = floor if claim.chapter in READ_CHAPTERS else ""
            rows += evaluate(claim, tables, problems=_problems(problems), seed=seed, reading_suffix=suffix,
                             em_tol=em_tol, timing_tolerance=timing_tolerance)
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def build_readings(tables: Mapping[str, pd.DataFrame], *, problems: Mapping[str, list[str]] | None,
                   seed: int, em_tol: float = 1e-6) -> pd.DataFrame:
    """Every claim of chapters 3 and 5 under every reading of the sensitivity grid.

    ``tables`` holds the grid's tables under the names of the default run's (``em_trace``,
    ``semisupervised_rounds``, ``kernel_sweep``), each with a ``relative_min_variance``
    column: one row per claim, split and reading (:data:`CLAIM_COLUMNS` and :data:`SAME_AS`,
    :func:`mark_duplicates`).
    """
    rows = []
    for claim in CLAIMS:
        if claim.chapter in READ_CHAPTERS and all(name in tables for name in claim.tables):
            rows += evaluate(claim, tables, problems=_problems(problems), seed=seed, extra_readings=(FLOOR,),
                             em_tol=em_tol, every_reading=True)
    return mark_duplicates(pd.DataFrame(rows, columns=CLAIM_COLUMNS))


#: The columns two readings must share to be one distinct setting of a claim's measure.
_SAME = ["measured", "n", "ci_low", "ci_high", "p_holds", "p_contradicted", "pi_low", "pi_high"]


def mark_duplicates(readings: pd.DataFrame) -> pd.DataFrame:
    """``readings`` with :data:`SAME_AS`: for each row, the first reading (in table order) of
    the same claim and data whose evidence (estimate, interval, ``n``, p-values, prediction
    interval, to 12 significant digits) is the same, or empty.

    Two settings give the same evidence when they give identical fits (two variance floors
    that no kernel reaches) or when the measure does not read them (the confidence threshold
    of a prior-method claim): they are one reading, counted once.
    """
    key = readings[["id", "data"]].astype(str).copy()
    for column in _SAME:
        key[column] = [format(float(v), ".12g") for v in readings[column]]
    first = readings.groupby([key[c] for c in key.columns], sort=False, dropna=False)["reading"].transform("first")
    return readings.assign(**{SAME_AS: np.where(first.to_numpy() == readings["reading"].to_numpy(), "",
                                                first.to_numpy())})


def with_robustness(claims: pd.DataFrame, readings: pd.DataFrame) -> pd.DataFrame:
    """``claims`` with :data:`ROBUSTNESS_COLUMNS`: how many distinct readings of the grid the
    claim was measured under on the same data (readings with the same evidence counted once,
    :func:`mark_duplicates`), and how many give each verdict (0 without a grid)."""
    distinct = readings[readings[SAME_AS] == ""] if SAME_AS in readings.columns else readings
    counts = pd.crosstab([distinct["id"], distinct["data"]], distinct["verdict"]).reindex(
        columns=list(VERDICTS), fill_value=0)
    counts.columns = [f"readings_{v}" for v in counts.columns]
    counts["readings"] = counts.sum(axis=1)
    merged = claims.merge(counts.reset_index(), on=["id", "data"], how="left") if len(distinct) else \
        claims.assign(**{column: 0 for column in ROBUSTNESS_COLUMNS})
    merged[ROBUSTNESS_COLUMNS] = merged[ROBUSTNESS_COLUMNS].fillna(0).astype(int)
    return merged[CLAIM_COLUMNS + ROBUSTNESS_COLUMNS]


#: Prefix of the claims rule's inputs that are the sensitivity grid's tables.
READINGS_PREFIX = "readings_"


def floor_reading(em: EMSettings) -> str:
    """The reading label of the run's variance floor (the EM settings of the config's ``em``)."""
    if em.min_variance is not None:
        return f"min_variance={em.min_variance:g}"
    if em.relative_min_variance is not None:
        return f"{FLOOR}={em.relative_min_variance:g}"
    return ""


#: Prefix of the claims rule's inputs that are the replicate's tables (``claims.replicate``).
REPLICATE_PREFIX = "replicate_"


def short_of_min_n(claims: pd.DataFrame, min_n: int) -> pd.DataFrame:
    """``claims`` with a note in the ``detail`` of every chapter-3 or -5 row whose ``n`` (or
    its replicate's) is below ``min_n``: its stage ran up to ``claims.max_repeats`` and still
    too few repeats counted for the measure, a property of the data the row must state."""
    claims = claims.copy()
    replicate = claims["replicate_n"] if "replicate_n" in claims else pd.Series(pd.NA, index=claims.index)
    for i in claims.index[claims["chapter"].astype(str).isin(READ_CHAPTERS)]:
        counts = {"n": claims.at[i, "n"], "replicate n": replicate.at[i]}
        short = {name: int(n) for name, n in counts.items() if not pd.isna(n) and int(n) < min_n}
        if short:
            note = (f"{', '.join(f'{name} = {n}' for name, n in short.items())} below claims.min_n = "
                    f"{min_n}: too few repeats count for this measure even at claims.max_repeats")
            detail = str(claims.at[i, "detail"] or "")
            claims.at[i, "detail"] = f"{detail}; {note}" if detail else note
    return claims


def claims_and_readings(tables: Mapping[str, pd.DataFrame], *, problems: Mapping[str, list[str]] | None,
                        seed: int, rule: str | None, em: EMSettings, min_n: int | None = None,
                        timing_tolerance: float = TIMING_TOLERANCE) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims table (our reading, with robustness counts and the replicate's verdicts) and
    the readings table; with ``min_n`` (``claims.min_n``), a chapter-3 or -5 row resting on
    fewer repeats says so (:func:`short_of_min_n`); ``timing_tolerance`` (``claims.timing_tolerance``)
    widens the interval of a ratio of fit times (:func:`build_claims`).

    ``tables`` holds the run's tables by name, the sensitivity grid's under
    :data:`READINGS_PREFIX` + the run's name (``readings_semisupervised_rounds``, ...) and the
    replicate's under :data:`REPLICATE_PREFIX` (``replicate_em_trace``, ...;
    :mod:`mixlib.analysis.claims_replicate`).
    """
    def prefixed(prefix: str) -> dict[str, pd.DataFrame]:
        return {name.removeprefix(prefix): table for name, table in tables.items() if name.startswith(prefix)}

    own = {name: table for name, table in tables.items()
           if not name.startswith((READINGS_PREFIX, REPLICATE_PREFIX))}
    readings = build_readings(prefixed(READINGS_PREFIX), problems=problems, seed=seed, em_tol=em.tol)
    claims = build_claims(own, problems=problems, seed=seed, rule=rule, floor=floor_reading(em), em_tol=em.tol,
                          timing_tolerance=timing_tolerance)
    copies = {name: as_original(table) for name, table in prefixed(REPLICATE_PREFIX).items()}
    replicate = build_claims(copies, problems=problems, seed=seed, rule=rule, floor=floor_reading(em),
                             em_tol=em.tol, timing_tolerance=timing_tolerance) if copies else None
    claims = with_replicate(with_robustness(claims, readings), replicate)
    if min_n is not None:
        claims = short_of_min_n(claims, min_n)
    return claims[CLAIM_COLUMNS + ROBUSTNESS_COLUMNS + REPLICATE_COLUMNS], readings
