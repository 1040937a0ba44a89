"""The stopwatch of the timed fits: wall clock and CPU time of one block."""

import time

from mixlib.core.timing import Stopwatch


def test_a_block_that_waits_takes_wall_time_but_almost_no_cpu_time():
    with Stopwatch() as clock:
        time.sleep(0.2)
    assert clock.wall_seconds >= 0.2
    assert clock.cpu_seconds < 0.05


def test_a_block_that_computes_takes_cpu_time_up_to_its_wall_time():
    with Stopwatch() as clock:
        deadline = time.process_time() + 0.1
        while time.process_time() < deadline:
            pass
    assert clock.cpu_seconds >= 0.1
    # one thread computing: CPU time within the wall time (clock resolution aside)
    assert clock.cpu_seconds <= clock.wall_seconds + 0.01


def test_the_times_are_set_even_when_the_block_raises():
    clock = Stopwatch()
    try:
        with clock:
            raise KeyError("fit failed")
    except KeyError:
        pass
    assert clock.wall_seconds >= 0 and clock.cpu_seconds >= 0
