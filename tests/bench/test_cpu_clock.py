"""The bench reads another process's CPU time to the nanosecond, not in /proc's 10 ms ticks."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from bot.bench.run import cpu_clock

# burns CPU for 0.2 s, then tells its own CPU time and waits to be read
BURN = """
import sys, time
start = time.process_time()
while time.process_time() - start < 0.2:
    pass
print(time.process_time(), flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="clock_getcpuclockid of glibc")
def test_the_cpu_clock_of_another_process_reads_what_it_used() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", BURN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        clock = cpu_clock(child.pid)
        assert clock is not None
        assert child.stdout is not None
        told = float(child.stdout.readline())
        read = time.clock_gettime(clock)
        assert told <= read < told + 0.05  # its own reading, plus what printing it took
        assert read != round(read, 2)  # finer than a tick
    finally:
        child.communicate("\n", timeout=10)
