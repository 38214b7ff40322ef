"""Finding processes by scanning /proc: by uid (a sandbox slot) or by a tag in their command line; and killing
one only while it is still the process that was found."""
from __future__ import annotations

import os
import signal
from typing import Callable


def live_processes(match: Callable[[os.DirEntry[str]], bool]) -> list[int]:
    """Live (non-zombie) processes, found by scanning /proc, for which ``match(entry)`` holds."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if not match(entry):
                continue
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


def processes_of_uid(uid: int) -> list[int]:
    """Live processes whose real uid is ``uid``."""
    return live_processes(lambda entry: entry.stat().st_uid == uid)


def is_of_uid(pid: int, uid: int) -> bool:
    """Whether process ``pid`` exists and its uid is ``uid`` (as ``processes_of_uid`` reads it)."""
    try:
        return os.stat(f"/proc/{pid}").st_uid == uid
    except OSError:
        return False


def carries_tag(pid: int, tag: str) -> bool:
    """Whether process ``pid`` exists and its command line carries ``tag`` (as ``processes_with_tag`` reads it)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return tag.encode() in f.read()
    except OSError:
        return False


def kill_if(pid: int, holds: Callable[[int], bool]) -> None:
    """SIGKILL ``pid`` only if ``holds(pid)`` is true of the process that has it now. A scan and a kill are apart in
    time: the process found may end meanwhile and its pid go to another, someone else's. The pid is pinned first
    (a pidfd, Linux 5.3 and later), then checked, then signalled through the pidfd: a process that ended after the
    check is not replaced by the next owner of its pid. Without pidfds, the check and the kill back to back."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:  # no pidfd here (ENOSYS) or none left (EMFILE): the narrowest window there is
        if holds(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return
    try:
        if holds(pid):
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:  # it ended in between
        pass
    finally:
        os.close(fd)


def processes_with_tag(tag: str) -> list[int]:
    """Live processes whose command line carries ``tag`` (the bootstrap comment of one bot)."""
    needle = tag.encode()

    def carries_tag(entry: os.DirEntry[str]) -> bool:
        with open(f"/proc/{entry.name}/cmdline", "rb") as f:
            return needle in f.read()

    return live_processes(carries_tag)


def live_descendants(root: int) -> dict[int, int]:
    """The live descendants of ``root``, each pid with its start time (clock ticks after boot): a pid
    is reused, a (pid, start time) pair is not. An orphan counts only where it was reparented inside
    the tree (a PID namespace's init, or ``root`` as the child subreaper)."""
    parents: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] in (b"Z", b"X"):
            continue
        pid = int(entry.name)
        parents.setdefault(int(fields[1]), []).append(pid)
        started[pid] = int(fields[19])
    found: dict[int, int] = {}
    todo = list(parents.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found[pid] = started[pid]
            todo.extend(parents.get(pid, ()))
    return found
