"""A job's warnings, each kind written once and summed up at the end of its log.

A sweep job fits hundreds of models, and one cause (EM stopping at ``max_iter``, a class with
fewer distinct values than kernels) repeats in many of them. :class:`WarningTally` writes the
first warning of each kind to the log where it happens, counts the repeats without writing
them, and :meth:`WarningTally.summary_lines` gives one line per kind for the end of the log:
the kind, how many times it occurred, when and what it said first. For convergence warnings
that carry their last change and tolerance (:class:`mixlib.core.exceptions.ConvergenceWarning`)
the line also says how far from the tolerance the fits stopped.

A kind is where a warning comes from: its category and source line for a Python warning, its
logger and unformatted message for a logging record. Messages that differ only in numbers
are thus one kind.

At the end of a run, :func:`run_warning_summary` reads those summary lines back from the logs
the run wrote and gives the console one paragraph: how many warnings of which kinds, in how
many logs, and which logs to read.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: Logger under which Python warnings are written (as :func:`logging.captureWarnings` does).
WARNINGS_LOGGER = "py.warnings"
#: A summary line of a job's log (:meth:`WarningTally.summary_lines`, logged by
#: :func:`mixlib.pipeline.workflow.logged_job` as ``warnings: <line>``): count and kind.
_SUMMARY_LINE = re.compile(r" WARNING \S+: warnings: (?P<count>\d+) x (?P<kind>.+?)"
                           r"(?: \(\d+ fit\(s\) stopped at max_iter, [^)]*\))?"
                           r"; first at \d\d:\d\d:\d\d: ")


@dataclass
class _Kind:
    label: str
    first_message: str
    first_time: float
    count: int = 0
    change_over_tol: list[float] = field(default_factory=list)


class WarningTally(logging.Filter):
    """Count warnings by kind; let only the first of each kind through to the log.

    Install it as a filter of the job's log handler (logging records at WARNING) and as
    ``warnings.showwarning`` (Python warnings, see :meth:`show`).
    """

    def __init__(self) -> None:
        super().__init__()
        self.kinds: dict[tuple, _Kind] = {}
        self._logger = logging.getLogger(WARNINGS_LOGGER)

    def _count(self, key: tuple, label: str, message: str) -> tuple[_Kind, bool]:
        kind = self.kinds.get(key)
        first = kind is None
        if first:
            kind = self.kinds[key] = _Kind(label, message, time.time())
        kind.count += 1
        return kind, first

    def show(self, message, category, filename, lineno, file=None, line=None) -> None:
        """``warnings.showwarning``: count the warning, log it if it is the first of its kind."""
        where = _short_path(filename)
        kind, first = self._count((category, filename, lineno), f"{category.__name__} at "
                                  f"{where}:{lineno}", str(message))
        change, tol = getattr(message, "change", None), getattr(message, "tol", None)
        if change is not None and tol:
            kind.change_over_tol.append(change / tol)
        if first:
            self._logger.warning("%s:%d: %s: %s", where, lineno, category.__name__, message,
                                 extra={"counted": True})

    def filter(self, record: logging.LogRecord) -> bool:
        """Let through every record below WARNING and the first WARNING of each kind."""
        if record.levelno != logging.WARNING or getattr(record, "summary", False):
            return True
        if getattr(record, "counted", False):  # a Python warning, counted by show()
            return True
        _, first = self._count((record.name, str(record.msg)), f"{record.name}: {record.msg}",
                               record.getMessage())
        return first

    def summary_lines(self) -> list[str]:
        """One line per kind, most frequent first: count, kind, first time and message."""
        lines = []
        for kind in sorted(self.kinds.values(), key=lambda k: -k.count):
            first = time.strftime("%H:%M:%S", time.localtime(kind.first_time))
            line = f"{kind.count} x {kind.label}"
            if kind.change_over_tol:
                ratios = np.asarray(kind.change_over_tol)
                line += (f" ({len(ratios)} fit(s) stopped at max_iter, last change / tol: "
                         f"median {np.nanmedian(ratios):.3g}, max {np.nanmax(ratios):.3g})")
            lines.append(f"{line}; first at {first}: {kind.first_message}")
        return lines


def _short_path(filename: str) -> str:
    """``filename`` from its ``mixlib/`` (or ``site-packages/``) folder on, else as given."""
    parts = Path(filename).parts
    for anchor in ("mixlib", "site-packages"):
        if anchor in parts:
            index = len(parts) - 1 - parts[::-1].index(anchor)
            return "/".join(parts[index + (anchor == "site-packages"):])
    return filename


def logged_warnings(log: Path) -> Counter:
    """The warnings a job's log sums up at its end: kind -> count.

    Parameters
    ----------
    log : Path
        A job's log written by :func:`mixlib.pipeline.workflow.logged_job`.

    Returns
    -------
    collections.Counter
        For each summary line (:meth:`WarningTally.summary_lines`), its kind (e.g.
        ``"ConvergenceWarning at mixlib/mixture/_em.py:120"``) and count; empty for a log
        without warnings or a log of another form.
    """
    counts: Counter = Counter()
    for line in Path(log).read_text(encoding="utf-8", errors="replace").splitlines():
        match = _SUMMARY_LINE.search(line)
        if match:
            counts[match["kind"]] += int(match["count"])
    return counts


def run_warning_summary(log_dir: str | Path, since: float | None = None,
                        n_kinds: int = 3, n_logs: int = 3) -> str | None:
    """One paragraph for the console: the warnings of a run's logs, by kind, and where to read them.

    Parameters
    ----------
    log_dir : str or Path
        The logs' folder (``results/logs``: one ``<rule>/<wildcards>.log`` per job).
    since : float, optional
        A time (seconds since the epoch): only logs modified at or after it count, i.e. those
        of the jobs this run ran. ``None``: every log.
    n_kinds, n_logs : int
        How many of the most frequent kinds, and of the logs with the most warnings, the
        paragraph names.

    Returns
    -------
    str or None
        E.g. "Warnings: 5441 in 60 of the 134 logs this run wrote, of 7 kinds: 5012 x
        ConvergenceWarning at ... (in 40 logs); ... Each log ends with its warnings, one line
        per kind with its count and first message; most in results/logs/....log (2210), ...".
        ``None`` when no log was written (nothing ran).
    """
    log_dir = Path(log_dir)
    logs = sorted(path for path in log_dir.rglob("*.log")
                  if since is None or path.stat().st_mtime >= since) if log_dir.is_dir() else []
    if not logs:
        return None
    totals: Counter = Counter()
    logs_of_kind: dict[str, int] = defaultdict(int)
    per_log: Counter = Counter()
    for log in logs:
        counts = logged_warnings(log)
        totals.update(counts)
        for kind in counts:
            logs_of_kind[kind] += 1
        if counts:
            per_log[str(log)] = sum(counts.values())
    written = f"{len(logs)} log(s) {'this run wrote' if since is not None else 'under ' + str(log_dir)}"
    if not totals:
        return f"Warnings: none in the {written}."
    kinds = "; ".join(f"{count} x {kind} (in {logs_of_kind[kind]} log(s))"
                      for kind, count in totals.most_common(n_kinds))
    if len(totals) > n_kinds:
        kinds += f"; and {len(totals) - n_kinds} more kind(s)"
    where = ", ".join(f"{log} ({count})" for log, count in per_log.most_common(n_logs))
    return (f"Warnings: {sum(totals.values())} in {len(per_log)} of the {written}, of "
            f"{len(totals)} kind(s): {kinds}. Each log ends with its warnings, one line per "
            f"kind with its count and first message; most are in {where}.")


def log_run_warnings(log: logging.Logger, log_dir: str | Path, since: float,
                     main_process: bool = True) -> None:
    """Log :func:`run_warning_summary` of the logs written since ``since``, as one warning.

    Called by the Snakefile's ``onsuccess`` and ``onerror`` handlers with Snakemake's logger,
    so that the paragraph is the last thing a run prints. Does nothing in a Snakemake that is
    not the run's main process (a cluster job's), or when no log was written.

    Parameters
    ----------
    log : logging.Logger
        Where to write the paragraph (Snakemake's ``logger`` in the Snakefile).
    log_dir : str or Path
        The jobs' logs (``results/logs``).
    since : float
        When the run started (seconds since the epoch).
    main_process : bool, default True
        ``workflow.is_main_process``.
    """
    if not main_process:
        return
    summary = run_warning_summary(log_dir, since=since)
    if summary:
        log.warning(summary)
