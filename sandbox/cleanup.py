"""Ending a bot's processes: find its runner inside bubblewrap, kill and reap it, sweep what escaped,
say how it exited."""
from __future__ import annotations

import logging
import signal
import subprocess
import time
from typing import Callable, Protocol

from .pinned import Pinned
from .procscan import carries_tag, is_of_uid, kill_if, matching
from .values import SandboxError

log = logging.getLogger(__name__)

REAP_TIMEOUT_S = 5.0


class Killable(Protocol):
    """A bot's own process as the referee holds it: a ``subprocess.Popen``, or a fork server's child."""

    @property
    def pid(self) -> int | None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


def describe_exit(code: int | None) -> str:
    """How a bot process ended, for its failure detail."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if code > 128 and code - 128 in signal.Signals._value2member_map_:  # bwrap reports 128+signal
        return f"exited with code {code} (signal {signal.Signals(code - 128).name}?)"
    return f"exited with code {code}"


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s children (none if it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _is_runner(pid: int, uid: int | None) -> bool:
    """With a uid slot the runner is the process of that uid; in a user namespace (no slot uid) it
    is the first process below bubblewrap that is not bubblewrap itself."""
    if uid is not None:
        return is_of_uid(pid, uid)
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() != "bwrap"
    except OSError:
        return False


def find_runner(bwrap_pid: int, uid: int | None) -> int | None:
    """Host pid of the python inside bubblewrap (bwrap -> namespace init -> runner)."""
    frontier = [bwrap_pid]
    for _ in range(4):
        below = [child for pid in frontier for child in children(pid)]
        for pid in below:
            if _is_runner(pid, uid):
                return pid
        frontier = below
    return None


def sweep(name: str, holds: Callable[[int], bool]) -> None:
    """SIGKILL every live process of which ``holds`` is true until none is left (about a second at most); each only
    while ``holds`` is still true of it (``kill_if``: the pid may have gone to another process since the scan)."""
    left = matching(holds)
    for _ in range(100):
        if not left:
            return
        for pid in left:
            kill_if(pid, holds)
        time.sleep(0.01)
        left = matching(holds)
    log.error("%s: processes survive SIGKILL: %s", name, left)


def kill_bot(name: str, popen: Killable, runner: Pinned | None) -> int | None:
    """SIGKILL a bot: its runner (``runner``, pinned: a runner reaped since is not signalled; a plain bot's, with its
    process group), then its own process; its exit code once reaped, None if it was not reaped in time."""
    if runner is not None:
        runner.send(signal.SIGKILL)
    try:
        popen.kill()  # bwrap: --die-with-parent takes the whole PID namespace with it
    except ProcessLookupError:
        pass
    try:
        return popen.wait(timeout=REAP_TIMEOUT_S)
    except (subprocess.TimeoutExpired, SandboxError):
        log.error("%s: process %s not reaped within %.0f s", name, popen.pid, REAP_TIMEOUT_S)
        return None


def sweep_bot(name: str, uid: int | None, tag: str) -> None:
    """Kill what escaped a bot's process group or namespace, and wait until it is gone. With a uid
    slot (``uid``) every process of that uid is the bot's; otherwise, the processes whose argv still
    carries its ``tag`` (in the plain tier, e.g. a double-fork + setsid orphan)."""
    sweep(name, (lambda pid: is_of_uid(pid, uid)) if uid is not None else (lambda pid: carries_tag(pid, tag)))
