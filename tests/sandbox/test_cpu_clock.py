"""A bot's CPU time is read from its process's CPU clock (one ``clock_gettime``), and agrees with what
/proc/<pid>/stat says (in clock ticks, within a few); a process that is gone reads as None, as an unreadable /proc."""
from __future__ import annotations

import os
import subprocess
import sys

from sandbox.freezing import CLOCK_TICKS, Freezer, process_cpu_clock
from sandbox.values import Tier

BUSY = "import sys, time\nt = time.process_time()\nwhile time.process_time() - t < 0.2: pass\nsys.stdin.read()"


def stat_ms(pid: int) -> float:
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / CLOCK_TICKS


def test_the_cpu_clock_agrees_with_proc_and_is_gone_with_the_process() -> None:
    child = subprocess.Popen([sys.executable, "-c", BUSY], stdin=subprocess.PIPE)
    try:
        freezer = Freezer(Tier.PLAIN)
        assert freezer.cpu_ms() is None  # no pid yet
        freezer.pid = child.pid
        assert process_cpu_clock(child.pid) is not None
        while (used := freezer.cpu_ms()) is not None and used < 200:
            os.sched_yield()
        assert used is not None
        proc = stat_ms(child.pid)
        after = freezer.cpu_ms()
        assert after is not None
        tick = 1000.0 / CLOCK_TICKS  # /proc counts whole ticks, sampled: it lags the clock by a few
        assert used - 3 * tick <= proc <= after + tick
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    assert freezer.cpu_ms() is None  # reaped: nothing to read
    freezer.close()
