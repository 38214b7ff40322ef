"""sandbox/procscan.py's ``kill_if``: a process found by a scan is killed only while it is still the one found (its
pid pinned with a pidfd before the check), and the sweeps that use it (sandbox/cleanup.py) kill what they find."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from sandbox.cleanup import sweep
from sandbox.procscan import carries_tag, is_of_uid, kill_if, processes_with_tag


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A real child that would live for a minute, its command line tagged (a bot's bootstrap comment)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # procscan-test-tag"])
    try:
        yield child
    finally:
        child.kill()
        child.wait(timeout=10)


def pidfds() -> set[int]:
    """The pids this process holds a pidfd of, read from /proc/self/fdinfo (a pidfd's entry has a ``Pid:`` line)."""
    held: set[int] = set()
    for fd in Path("/proc/self/fdinfo").iterdir():
        try:
            lines = fd.read_text().splitlines()
        except OSError:
            continue
        held.update(int(line.split()[1]) for line in lines if line.startswith("Pid:"))
    return held


def test_the_process_it_still_is_is_killed(sleeper: subprocess.Popen[bytes]) -> None:
    kill_if(sleeper.pid, lambda pid: carries_tag(pid, "procscan-test-tag"))
    assert sleeper.wait(timeout=10) == -9


def test_a_pid_that_is_no_longer_the_process_found_is_left_alone(sleeper: subprocess.Popen[bytes]) -> None:
    kill_if(sleeper.pid, lambda pid: carries_tag(pid, "another bot's tag"))
    kill_if(sleeper.pid, lambda pid: is_of_uid(pid, os.getuid() + 1))
    sleeper.terminate()  # a SIGKILL sent before would have won: it ends by this SIGTERM only if none was sent
    assert sleeper.wait(timeout=60) == -signal.SIGTERM


def test_the_check_runs_with_the_pid_pinned(sleeper: subprocess.Popen[bytes]) -> None:
    """The check is made while a pidfd holds the pid: if the process ends and its pid goes to another after the
    check, the signal goes to the ended one, never to the pid's next owner."""
    seen: list[bool] = []

    def holds(pid: int) -> bool:
        seen.append(pid in pidfds())
        return True

    kill_if(sleeper.pid, holds)
    assert seen == [True]
    assert sleeper.wait(timeout=10) == -9
    assert sleeper.pid not in pidfds()  # and the pidfd is closed again


def test_a_process_gone_before_or_during_the_check_is_no_error(sleeper: subprocess.Popen[bytes]) -> None:
    def ends_it(pid: int) -> bool:  # it ends after the pin and before the signal
        sleeper.kill()
        sleeper.wait(timeout=10)
        return True

    kill_if(sleeper.pid, ends_it)
    kill_if(sleeper.pid, lambda pid: True)  # reaped: the pid is nobody's now (or another's, not checked here)


def test_a_sweep_kills_every_tagged_process_and_checks_each(sleeper: subprocess.Popen[bytes]) -> None:
    assert processes_with_tag("procscan-test-tag") == [sleeper.pid]
    checked: list[int] = []

    def holds(pid: int) -> bool:
        checked.append(pid)
        return carries_tag(pid, "procscan-test-tag")

    sweep("test", lambda: [pid for pid in processes_with_tag("procscan-test-tag") if sleeper.poll() is None], holds)
    assert sleeper.wait(timeout=10) == -9 and checked[:1] == [sleeper.pid]
