"""Finding processes by scanning /proc: by uid (a sandbox slot) or by a tag in their command line; and killing
one only while it is still the process that was found."""
from __future__ import annotations

import os
import signal
from typing import Callable


def live_processes(match: Callable[[os.DirEntry[str]], bool]) -> list[int]:
    """Live processes, found by scanning /proc, for which ``match(entry)`` holds: not zombies, except a zombie
    leader whose other threads still run (its main thread ended alone, e.g. a raw ``exit`` syscall: the process
    lives on, and SIGKILL to its pid ends it)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if not match(entry):
                continue
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X") and _tasks(entry.name) < 2:
                continue
        except (OSError, IndexError):
            continue
        found.append(int(entry.name))
    return found


def _tasks(pid: int | str) -> int:
    """How many threads process ``pid`` has: procfs counts them in its task folder's links (2 + one a thread), a
    stat where a listing costs twice as much."""
    return os.stat(f"/proc/{pid}/task").st_nlink - 2


def matching(holds: Callable[[int], bool]) -> list[int]:
    """Live processes of which ``holds(pid)`` is true."""
    return live_processes(lambda entry: holds(int(entry.name)))


def processes_of_uid(uid: int) -> list[int]:
    """Live processes whose effective uid is ``uid`` (the owner of /proc/PID, whatever the process's dumpable flag)."""
    return matching(lambda pid: is_of_uid(pid, uid))


def is_of_uid(pid: int, uid: int) -> bool:
    """Whether process ``pid`` exists and its effective uid is ``uid``."""
    try:
        return os.stat(f"/proc/{pid}").st_uid == uid
    except OSError:
        return False


def command_line(pid: int | str) -> bytes:
    """Process ``pid``'s command line (b"" if it is gone): its own, or, where its main thread has ended and its
    other threads run on (the leader's own reads empty), a running thread's."""
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        line = f.read()
    if line or _tasks(pid) < 2:  # most processes; and a kernel thread: no command line, one task
        return line
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/cmdline", "rb") as f:
                line = f.read()
        except OSError:
            continue
        if line:
            return line
    return b""


def carries_tag(pid: int, tag: str) -> bool:
    """Whether process ``pid`` exists and its command line carries ``tag`` (the bootstrap comment of one bot)."""
    try:
        return tag.encode() in command_line(pid)
    except OSError:
        return False


def kill_if(pid: int, holds: Callable[[int], bool]) -> None:
    """SIGKILL ``pid`` if ``holds(pid)``, checked while a pidfd pins the process: a scan's process that ended since,
    its pid gone to someone else's, is never signalled. Without a pidfd, the check and the kill back to back."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:  # none here (ENOSYS), none left (EMFILE), or the pid is a thread's now (EINVAL)
        if holds(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return
    try:
        if holds(pid):
            signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:  # it ended in between (or, as os.kill would say, not ours to signal)
        pass
    finally:
        os.close(fd)


def kill_all(holds: Callable[[int], bool]) -> None:
    """SIGKILL, once, every live process of which ``holds`` is true (each checked again as ``kill_if`` does)."""
    for pid in matching(holds):
        kill_if(pid, holds)


def processes_with_tag(tag: str) -> list[int]:
    """Live processes whose command line carries ``tag``."""
    return matching(lambda pid: carries_tag(pid, tag))


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
