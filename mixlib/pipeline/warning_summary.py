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
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: Logger under which Python warnings are written (as :func:`logging.captureWarnings` does).
WARNINGS_LOGGER = "py.warnings"


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
