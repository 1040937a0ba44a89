"""Stop what a test started however the test ends: normally, on an error or a time-out, on
SIGINT, SIGTERM or SIGHUP from outside, or when its process is killed outright.

The daemons of the single-node SLURM (munged, slurmctld, slurmd, slurmscriptd, ...) detach
from the test's process: killing the test's process group does not reach them, only the
script's ``stop`` (by the PIDs it recorded) does. So :func:`stopped_however_it_ends`

- turns SIGTERM and SIGHUP, which would end Python without unwinding, into the
  ``KeyboardInterrupt`` that SIGINT raises, so that ``finally`` blocks run (pytest then stops
  the session, as after Ctrl-C);
- runs the stop command in its ``finally``;
- and starts a watchdog in a session of its own that waits for the test's process to end
  and then runs the stop command, for the case no handler can see (SIGKILL). On a normal end
  the watchdog is ended first, by its PID.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

#: The signals that end the test from outside and are turned into KeyboardInterrupt.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

# Waits for the process $1 to end, then runs the rest of its arguments.
_WATCHDOG = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; shift; exec "$@"'


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


@contextmanager
def stopped_however_it_ends(stop: Sequence[str], timeout: float = 300) -> Iterator[None]:
    """Run ``stop`` (a command) when the block ends, however it ends.

    Parameters
    ----------
    stop : sequence of str
        The command that stops what the block started (it must do nothing when nothing was
        started, since the block may be interrupted before it starts anything).
    timeout : float
        Longest wait for ``stop``, in seconds.
    """
    # its output goes nowhere: the test's pipes may be gone when it runs, and a write to a
    # closed pipe would end the stop command half-way
    watchdog = subprocess.Popen(["bash", "-c", _WATCHDOG, "watchdog", str(os.getpid()), *stop],
                                start_new_session=True, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    main = threading.current_thread() is threading.main_thread()
    previous = {signum: signal.signal(signum, _interrupt) for signum in STOP_SIGNALS} if main else {}
    try:
        yield
    finally:
        # a second signal while stopping must not cut the stop short
        for signum in previous:
            signal.signal(signum, signal.SIG_IGN)
        try:
            watchdog.kill()
            watchdog.wait()
            subprocess.run(list(stop), timeout=timeout)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
