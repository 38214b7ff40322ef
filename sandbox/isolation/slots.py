"""Uid slots (a uid of its own for each running bot, as root), and what a bot's slot and seccomp filter
add to its runner's boot line."""
from __future__ import annotations

import dataclasses
import fcntl
import os
import threading
from pathlib import Path

from ..procscan import is_of_uid, kill_all
from ..bootline import BotBoot
from ..values import SandboxError
from .confinements import Confinement, confinement
from .seccomp import Filter, seccomp_program

SLOT_DIR = Path("/run/bohnanza-sandbox")
SLOT_UIDS = range(61000, 61064)
#: tasks (threads) a threaded program may have: V8 needs a handful; more only competes for the machine
THREADS = 16


class UidSlot:
    """An exclusive uid/gid for one running bot, held by a flock on a root-owned lock file. In the
    user-namespace confinement a slot has no uid (``uid`` None) and holds nothing."""

    def __init__(self, uid: int | None, fd: int | None) -> None:
        self.uid = uid
        self.gid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def forget(self) -> None:
        """In a forked child: close our copy of the lock's descriptor without unlocking it (the
        flock belongs to the open file, which the parent still holds)."""
        self.release()


_slot_lock = threading.Lock()


def acquire_slot(directory: Path = SLOT_DIR, uids: range = SLOT_UIDS) -> UidSlot:
    """Lock the first free uid slot; flock is per open file, so threads and processes never share one."""
    if confinement() is Confinement.USER_NAMESPACE:
        return UidSlot(None, None)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except OSError as exc:
        raise SandboxError(f"cannot create uid slot directory {str(directory)!r}: {exc}") from exc
    if st.st_uid != 0 or st.st_mode & 0o022:
        raise SandboxError(f"uid slot directory {str(directory)!r} must be root-owned and not group/world-writable")
    with _slot_lock:
        for uid in uids:
            fd = os.open(directory / f"slot-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # a leftover from a crashed referee; the uid is ours by construction, so end them
            kill_all(lambda found: is_of_uid(found, uid))
            return UidSlot(uid, fd)
    raise SandboxError(f"no free uid slot in {uids.start}..{uids.stop - 1} (all {len(uids)} in use)")


def confine(boot: BotBoot, slot: UidSlot, kind: Filter = Filter.PYTHON) -> BotBoot:
    """A runner boot line with the strong tier's confinement: the seccomp filter, and the slot's
    identity with one process for its uid, or (user namespace) no capability left. A threaded
    program may have ``THREADS`` tasks, counted in its own user namespace or for its slot uid."""
    boot = dataclasses.replace(boot, seccomp=seccomp_program(kind))
    nproc = boot.limits.nproc
    if slot.uid is None:
        boot = dataclasses.replace(boot, drop_caps=True)
    else:
        boot = dataclasses.replace(boot, uid=slot.uid, gid=slot.gid)
        nproc = 1
    if kind is Filter.THREADED_PROGRAM:
        # in a user namespace the count is the namespace's own (Linux 5.14 and later), which holds the
        # bot and, from a fork server, the template
        nproc = THREADS + (0 if slot.uid is not None else 2)
    return dataclasses.replace(boot, limits=dataclasses.replace(boot.limits, nproc=nproc))
