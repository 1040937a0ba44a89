"""The wall-clock and the CPU time of a block of code (a fit).

Wall-clock time measures the machine as much as the fit: on a machine that runs more jobs than
it has CPUs (``snakemake --cores 4`` on two), a fit waits for a CPU part of the time, and how
long depends on what else runs then. CPU time (:func:`time.process_time`: user + system time of
every thread of the process) counts only the computing the fit did, the report's "temps
calcul", so two stages timed in different jobs, under different loads, compare. It still
moves a little with the load (caches and memory bandwidth shared with other jobs), and it
counts every thread of the process: a job limits BLAS to its own threads (Snakemake sets
``OMP_NUM_THREADS`` and its siblings to the rule's ``threads``).
"""

from __future__ import annotations

import time
from types import TracebackType


class Stopwatch:
    """Times the block of a ``with`` statement, by the wall clock and in CPU time.

    ``wall_seconds = t_end - t_start`` of :func:`time.perf_counter` and ``cpu_seconds`` the same
    difference of :func:`time.process_time`, both set when the block ends::

        with Stopwatch() as clock:
            model.fit(X, y)
        clock.wall_seconds, clock.cpu_seconds
    """

    wall_seconds: float
    cpu_seconds: float

    def __enter__(self) -> Stopwatch:
        self._wall_start = time.perf_counter()
        self._cpu_start = time.process_time()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.cpu_seconds = time.process_time() - self._cpu_start
        self.wall_seconds = time.perf_counter() - self._wall_start
