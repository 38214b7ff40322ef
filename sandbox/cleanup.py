"""Ending a bot's processes: find its runner inside bubblewrap, sweep what escaped, say how it exited."""
from __future__ import annotations

import logging
import os
import signal
import time
from typing import Callable

log = logging.getLogger(__name__)


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
    try:
        if uid is not None:
            return os.stat(f"/proc/{pid}").st_uid == uid
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


def sweep(name: str, find: Callable[[], list[int]]) -> None:
    """SIGKILL every process ``find`` returns until none is left (about a second at most)."""
    left = find()
    for _ in range(100):
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
        left = find()
    log.error("%s: processes survive SIGKILL: %s", name, left)
