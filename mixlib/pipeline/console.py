"""What a run's console says of each job: its rule and its wildcards.

With the default profile's quiet console, Snakemake reports a job by one line when it ends,
"Finished jobid: 24 (Rule: mlp_sweep_point)", which does not say which point of the sweep
finished. :class:`NameFinishedJobs`, a filter on Snakemake's logger (added in the Snakefile),
appends the job's wildcards to that line: "Finished jobid: 24 (Rule: mlp_sweep_point,
split=dna_mlp, regime=plain, hidden=8)". Nothing else of the console changes
(``--quiet host`` still lists each job in full).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: The line Snakemake's scheduler logs when a job ends.
_FINISHED = re.compile(r"^Finished jobid: (?P<jobid>\d+) \(Rule: (?P<rule>\w+)\)$")


def finished_line(jobid: int, rule: str, wildcards: Mapping[str, Any]) -> str:
    """The console line of a finished job, naming its wildcards.

    Parameters
    ----------
    jobid : int
        Snakemake's id of the job in this run.
    rule : str
        The job's rule.
    wildcards : mapping
        The job's wildcards, name -> value, in the order to show them.

    Returns
    -------
    str
        Snakemake's own line with ``, name=value`` per wildcard inside its parentheses.

    Examples
    --------
    >>> finished_line(24, "mlp_sweep_point", {"split": "dna_mlp", "hidden": "8"})
    'Finished jobid: 24 (Rule: mlp_sweep_point, split=dna_mlp, hidden=8)'
    """
    named = "".join(f", {name}={value}" for name, value in wildcards.items())
    return f"Finished jobid: {jobid} (Rule: {rule}{named})"


class NameFinishedJobs(logging.Filter):
    """A filter for Snakemake's logger: a finished job's line gets the job's wildcards.

    Parameters
    ----------
    jobs : callable
        Returns the run's jobs (e.g. ``lambda: workflow.dag.jobs``), each with ``jobid``,
        ``rule.name`` and ``wildcards_dict``; called when a job's line is first logged, after
        Snakemake has built the DAG. Lines of jobs it does not list are left as they are.
    """

    def __init__(self, jobs: Callable[[], Iterable[Any]]) -> None:
        super().__init__()
        self._jobs = jobs
        self._wildcards: dict[int, dict[str, Any]] = {}

    def _wildcards_of(self, jobid: int) -> dict[str, Any] | None:
        if jobid not in self._wildcards:  # new jobs (a checkpoint's) appear during the run
            self._wildcards.update({int(job.jobid): dict(job.wildcards_dict)
                                    for job in self._jobs()})
        return self._wildcards.get(jobid)

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the message of a "Finished jobid" record; let every record through."""
        match = _FINISHED.match(str(record.msg))
        if match and not record.args:
            try:
                wildcards = self._wildcards_of(int(match["jobid"]))
            except Exception:  # the line matters less than the run: leave it as it is
                wildcards = None
            if wildcards:
                record.msg = finished_line(int(match["jobid"]), match["rule"], wildcards)
        return True
