"""The cluster test stops its SLURM however it ends (no SLURM needed here).

A fake ``slurm_single_node.sh`` starts two detached daemons (``sleep``, each in a session of
its own, as munged and slurmctld are) and stops them by their recorded PIDs. A runner process
enters :func:`tests.cluster.test_slurm.slurm_cluster` with it, starts a long child (as the
Snakemake run) and is then stopped from outside, fails or times out: the daemons must not
survive it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_SCRIPT = """\
set -eu
state=$2
case $1 in
    start)
        mkdir -p "$state"
        for name in munged slurmctld; do
            setsid sleep 1000 </dev/null >/dev/null 2>&1 &
            echo "$name $!" >> "$state/pids"
        done ;;
    stop)
        [[ -f $state/pids ]] || exit 0
        while read -r name pid; do kill -TERM "$pid" 2>/dev/null || true; done < "$state/pids"
        rm -f "$state/pids"
        echo stopped >> "$state/stopped" ;;
esac
"""

RUNNER = """\
import subprocess, sys
from pathlib import Path
import tests.cluster.test_slurm as cluster_test
cluster_test.SCRIPT = Path(sys.argv[1])
state, how = Path(sys.argv[2]), sys.argv[3]
with cluster_test.slurm_cluster(state, "no-accounting"):
    child = subprocess.Popen(["sleep", "600"])  # the Snakemake run
    (state / "child").write_text(str(child.pid))
    print("ready", flush=True)
    try:
        if how == "error":
            raise AssertionError("a table differs")
        child.wait(timeout=2 if how == "timeout" else None)
    finally:
        child.kill()
"""


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGHUP", "SIGKILL", "error", "timeout",
                                 "normal"])
def test_the_daemons_do_not_survive_the_test(tmp_path, how):
    script, state = tmp_path / "fake_slurm.sh", tmp_path / "state"
    script.write_text(FAKE_SCRIPT)
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(script), str(state), how], cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE, text=True)
    daemons: list[int] = []
    try:
        assert runner.stdout.readline().strip() == "ready"
        daemons = [int(line.split()[1]) for line in (state / "pids").read_text().splitlines()]
        assert len(daemons) == 2 and all(alive(pid) for pid in daemons)
        if how.startswith("SIG"):
            runner.send_signal(getattr(signal, how))
        elif how == "normal":
            os.kill(int((state / "child").read_text()), signal.SIGKILL)  # the run ends
        runner.wait(timeout=60)
        deadline = time.monotonic() + 30  # the watchdog polls once a second
        while any(alive(pid) for pid in daemons) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(alive(pid) for pid in daemons), f"daemons left running after {how}"
        assert (state / "stopped").read_text() == "stopped\n"  # stopped once, not twice
        if how in ("SIGTERM", "SIGINT", "SIGHUP", "error", "timeout"):
            assert runner.returncode != 0
    finally:
        runner.kill()
        runner.wait()
        child = state / "child"
        for pid in [*daemons, *([int(child.read_text())] if child.exists() else [])]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
