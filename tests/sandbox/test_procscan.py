"""sandbox/procscan.py: a scan finds every process of a bot, its main thread ended or not, and ``kill_if`` kills one
only while it is still the one found (its pid pinned with a pidfd before the check); the sweeps that use them
(sandbox/cleanup.py) kill what they find."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from sandbox.cleanup import sweep
from sandbox.procscan import carries_tag, is_of_uid, kill_if, processes_with_tag

SLEEP = """import time
print("ready", flush=True)
time.sleep(60)"""
#: the main thread ends alone (a raw exit syscall, x86_64's 60 or arm64's 93) while another thread sleeps on: the
#: process shows as a zombie with an empty command line, and lives
MAIN_ENDS_ALONE = """import ctypes, platform, sys, threading, time
threading.Thread(target=time.sleep, args=(60,)).start()
print("ready", flush=True)
ctypes.CDLL(None).syscall({"x86_64": 60, "aarch64": 93}[platform.machine()], 0)"""


class Tagged:
    """A real child whose command line carries a tag of its own (a bot's bootstrap comment), running its code:
    back once it said "ready". Until then its command line may not be its own yet (the parent's before the exec,
    empty inside it: Linux lets a vfork's parent go on before it sets the new one up), and a loaded machine
    stretches that window past a test's check (a session-30 suite run: the kill found no tag, the child slept on)."""

    def __init__(self, code: str) -> None:
        self.tag = f"procscan-test-{uuid.uuid4().hex}"
        self.child = subprocess.Popen([sys.executable, "-c", f"{code}  # {self.tag}"], stdout=subprocess.PIPE,
                                      text=True)
        assert self.child.stdout is not None and self.child.stdout.readline() == "ready\n"

    @property
    def pid(self) -> int:
        return self.child.pid


@pytest.fixture
def sleeper() -> Iterator[Tagged]:
    tagged = Tagged(SLEEP)
    try:
        yield tagged
    finally:
        tagged.child.kill()
        tagged.child.wait(timeout=10)


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


def test_the_process_it_still_is_is_killed(sleeper: Tagged) -> None:
    kill_if(sleeper.pid, lambda pid: carries_tag(pid, sleeper.tag))
    assert sleeper.child.wait(timeout=10) == -signal.SIGKILL


def test_a_pid_that_is_no_longer_the_process_found_is_left_alone(sleeper: Tagged) -> None:
    kill_if(sleeper.pid, lambda pid: carries_tag(pid, "another bot's tag"))
    kill_if(sleeper.pid, lambda pid: is_of_uid(pid, os.getuid() + 1))
    sleeper.child.terminate()  # a SIGKILL sent before would have won: it ends by this SIGTERM only if none was sent
    assert sleeper.child.wait(timeout=60) == -signal.SIGTERM


def test_the_check_runs_with_the_pid_pinned(sleeper: Tagged) -> None:
    """The check is made while a pidfd holds the pid: if the process ends and its pid goes to another after the
    check, the signal goes to the ended one, never to the pid's next owner."""
    seen: list[bool] = []

    def holds(pid: int) -> bool:
        seen.append(pid in pidfds())
        return True

    kill_if(sleeper.pid, holds)
    assert seen == [True]
    assert sleeper.child.wait(timeout=10) == -signal.SIGKILL
    assert sleeper.pid not in pidfds()  # and the pidfd is closed again


@pytest.mark.parametrize("holds", [False, True])
def test_without_a_pidfd_the_check_still_decides(sleeper: Tagged, monkeypatch: pytest.MonkeyPatch,
                                                 holds: bool) -> None:
    def no_pidfd(pid: int, flags: int = 0) -> int:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    checked: list[int] = []

    def check(pid: int) -> bool:
        checked.append(pid)
        return holds

    kill_if(sleeper.pid, check)
    assert checked == [sleeper.pid]
    if not holds:
        sleeper.child.terminate()
    assert sleeper.child.wait(timeout=60) == (-signal.SIGKILL if holds else -signal.SIGTERM)


def test_a_process_gone_before_or_during_the_check_is_no_error(sleeper: Tagged) -> None:
    def ends_it(pid: int) -> bool:  # it ends after the pin and before the signal
        sleeper.child.kill()
        sleeper.child.wait(timeout=10)
        return True

    kill_if(sleeper.pid, ends_it)
    kill_if(sleeper.pid, lambda pid: carries_tag(pid, sleeper.tag))  # reaped: nothing carries its tag now


def test_a_sweep_kills_every_tagged_process_and_checks_each(sleeper: Tagged) -> None:
    assert processes_with_tag(sleeper.tag) == [sleeper.pid]
    checked: list[int] = []

    def holds(pid: int) -> bool:
        checked.append(pid)
        return carries_tag(pid, sleeper.tag)

    sweep("test", holds)
    assert sleeper.child.wait(timeout=10) == -signal.SIGKILL and sleeper.pid in checked


def test_a_process_whose_main_thread_ended_alone_is_found_and_swept() -> None:
    ghost = Tagged(MAIN_ENDS_ALONE)
    try:
        deadline = time.monotonic() + 60  # a bound, not a verdict: the main thread ends right after "ready"
        while Path(f"/proc/{ghost.pid}/cmdline").read_bytes() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(os.listdir(f"/proc/{ghost.pid}/task")) == 2  # a zombie leader, its thread sleeping on
        assert processes_with_tag(ghost.tag) == [ghost.pid] and carries_tag(ghost.pid, ghost.tag)
        sweep("test", lambda pid: carries_tag(pid, ghost.tag))
        assert ghost.child.wait(timeout=10) == -signal.SIGKILL
    finally:
        ghost.child.kill()
        ghost.child.wait(timeout=10)
