"""A bot's process, pinned by a pidfd from the moment its pid is known to be it: every signal the referee sends it
later (SIGSTOP, SIGCONT, SIGKILL, a second SIGKILL from ``close``) goes through the pidfd, so a process that ended
and was reaped since, its pid gone to another process, is never signalled. The referee runs as root: a stale
``kill(pid)`` could stop or kill anything on the machine.

A group (the plain tier: a bot leads a session of its own) has no pidfd: ``signal_group`` sends ``killpg`` only
while the leader is not yet reaped, since until then its pid, the group's id, cannot be another process's. Once it
is reaped, what is left of the group is the tag sweep's (``sandbox/cleanup.py``). Where there is no pidfd (ENOSYS,
EMFILE) the pid is signalled as it is, as before pidfds."""
from __future__ import annotations

import os
import select
import signal
from typing import Callable

__all__ = ["Pinned"]


class Pinned:
    """Process ``pid``, pinned now; ``holds`` (checked while pinned) says it is still the process meant; ``group``:
    it leads a process group of its own."""

    def __init__(self, pid: int, holds: Callable[[int], bool] | None = None, group: bool = False) -> None:
        self.pid = pid
        self.group = group  # it leads a process group of its own (the plain tier): ``send`` reaches the group
        self._fd: int | None = None
        self._raw = False  # no pidfd: the pid is signalled as it is
        self.gone = False  # known to have been reaped, not the process meant, or let go (``close``)
        try:
            self._fd = os.pidfd_open(pid)
        except ProcessLookupError:
            self.gone = True
        except OSError:  # no pidfds here (ENOSYS), or none left (EMFILE)
            self._raw = True
        if not self.gone and holds is not None and not holds(pid):
            self.close()

    def signal(self, sig: int) -> None:
        """``sig`` to the process if it is not reaped yet (a zombie takes it and ignores it)."""
        if self.gone:
            return
        try:
            if self._fd is not None:
                signal.pidfd_send_signal(self._fd, sig)
            elif self._raw:
                os.kill(self.pid, sig)
        except ProcessLookupError:
            self.gone = True
        except PermissionError:
            pass

    def send(self, sig: int) -> None:
        """``sig`` to its group if it leads one, else to it alone."""
        if self.group:
            self.signal_group(sig)
        else:
            self.signal(sig)

    def signal_group(self, sig: int) -> None:
        """``sig`` to the process group it leads, while it is not reaped yet (then the group's id is still its
        own); nothing once it is."""
        if not self.alive():
            return
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def exited(self, timeout: float) -> bool:
        """Whether the process has exited (a zombie or reaped) within ``timeout`` seconds; without a pidfd, True."""
        if self.gone or self._fd is None:
            return True
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)  # a pidfd reads as ready once its process has exited
        return bool(poller.poll(timeout * 1000))

    def alive(self) -> bool:
        """Whether the process is not reaped yet (running, stopped or a zombie)."""
        self.signal(0)
        return not self.gone

    def close(self) -> None:
        """Let it go: nothing is sent to it any more."""
        self.gone = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:
        self.close()
