"""Keeping a bot still between its requests, and measuring the CPU it used there anyway.

No bot of a table runs while another bot of that table is asked or started (docs/sandbox.md,
"freezing"). Strong tier: after a reply nothing is sent at once; just before another bot of the same
referee thread runs, every bot that replied since is *settled*: left alone if it sleeps reading a pipe
(it has no thread, child, timer or signal that could wake it: seccomp), else stopped with SIGSTOP,
confirmed before the other bot runs; a program with threads is always stopped. Plain tier: SIGSTOP
at once after each reply.
"""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
import time
from typing import Any

from .pinned import Pinned
from .values import Tier

__all__ = ["Freezer", "PIPE_READ_WAITS", "CPU_AT_REST_SLACK_MS"]

log = logging.getLogger(__name__)

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: CPU between requests below this is the bot finishing its reply as it is settled or stopped
CPU_AT_REST_SLACK_MS = 30.0
#: What ``/proc/<pid>/wchan`` names for a task asleep reading a pipe (the name changed in Linux 6.x)
PIPE_READ_WAITS = frozenset({b"anon_pipe_read", b"pipe_read"})
SETTLE_CHECKS, SETTLE_PAUSE_S = 4, 0.00005  # a bot not yet asleep gets ~0.3 ms before SIGSTOP
STOP_CONFIRM_S = 0.5


class _Unsettled(threading.local):
    """The bots of this thread that replied and are not yet known to be at rest."""

    def __init__(self) -> None:
        self.freezers: list[Freezer] = []


_UNSETTLED = _Unsettled()


class Freezer:
    """Keeps one bot process (host ``pid``, set once known) still between its requests."""

    def __init__(self, tier: Tier, enabled: bool = True, threads: bool = False) -> None:
        self.tier = tier
        self.enabled = enabled
        self.threads = threads  # a program with threads: asleep on its pipe says nothing of the others
        self.pinned: Pinned | None = None  # the process, pinned once its pid is known (``pid``)
        self.frozen = False
        self.closed = False
        self.stops = 0  # how often it had to be stopped with SIGSTOP (it was not at rest when settled)
        self.cpu_at_rest_ms = 0.0  # CPU it used between requests anyway
        self._cpu_mark: float | None = None  # its CPU time at its last reply
        self._stat_fd: int | None = None  # /proc/<pid>/stat, kept open: read to confirm a stop
        self._clock_id: tuple[int, int | None] | None = None  # (pid, its CPU clock for clock_gettime)
        self._wchan_fd: int | None = None  # /proc/<pid>/wchan: where it sleeps, read when it is settled

    @property
    def pid(self) -> int | None:
        return self.pinned.pid if self.pinned is not None else None

    @pid.setter
    def pid(self, pid: int | None) -> None:
        if self.pinned is not None:
            self.pinned.close()
        self.pinned = Pinned(pid, group=self.tier is Tier.PLAIN) if pid is not None else None

    def reap(self, popen: Any, timeout: float) -> int:
        """``popen.wait(timeout)`` of a bot whose output ended. In the plain tier its group is killed first, once its
        leader has exited and before it is reaped: until then the group's id is its own (after, the group's
        members, an exec'd child say, would be left to a sweep that cannot find them by their tag)."""
        if self.tier is Tier.PLAIN and self.pinned is not None:
            if not self.pinned.exited(timeout):
                raise subprocess.TimeoutExpired(f"bot {self.pinned.pid}", timeout)
            self.pinned.signal_group(signal.SIGKILL)
        return int(popen.wait(timeout=timeout))

    def live_pid(self) -> int | None:
        """Its pid while it is not reaped (what a ``prlimit`` may be given), else None."""
        return self.pinned.pid if self.pinned is not None and self.pinned.alive() else None

    def after_reply(self) -> None:
        """The bot answered: it must not compute until its next request (settled later, or stopped now)."""
        self._cpu_mark = self.cpu_ms()
        if not self.enabled or self.frozen:
            return
        if self.tier is Tier.STRONG and self.pid is not None:
            _UNSETTLED.freezers.append(self)
        else:
            self._signal(signal.SIGSTOP)
            self.frozen = True

    def before_running(self) -> None:
        """This bot is about to run: every other bot of this thread that replied is at rest or stopped
        first; this one is continued if it was stopped."""
        freezers = _UNSETTLED.freezers
        for other in freezers:
            if other is not self and not other.closed and not other.frozen:
                other._settle()
        freezers.clear()
        self.thaw()

    def thaw(self) -> None:
        if self.frozen:
            self._signal(signal.SIGCONT)
            self.frozen = False

    @property
    def cpu_mark(self) -> float | None:
        """Its CPU time (ms) when last read: at its last reply, or when a request charged its rest."""
        return self._cpu_mark

    def charge_at_rest(self) -> float:
        """The CPU (ms) the bot used since its last reply beyond the slack: to come out of its bank."""
        now = self.cpu_ms()
        if now is None or self._cpu_mark is None:
            return 0.0
        used, self._cpu_mark = now - self._cpu_mark, now
        if used <= CPU_AT_REST_SLACK_MS:
            return 0.0
        self.cpu_at_rest_ms += used
        return used

    def cpu_ms(self) -> float | None:
        """CPU time the bot's process has used so far (user + system, all its threads): its CPU clock, read with
        one ``clock_gettime`` (~1 µs, against ~25 µs for /proc/<pid>/stat, read where the clock is refused)."""
        if self.pid is None:
            return None
        if self._clock_id is None or self._clock_id[0] != self.pid:
            self._clock_id = (self.pid, process_cpu_clock(self.pid))
        clock = self._clock_id[1]
        if clock is not None:
            try:
                return time.clock_gettime_ns(clock) / 1e6
            except OSError:  # it is gone (reaped): as an unreadable /proc
                return None
        fields = self._stat_fields()
        try:
            return (int(fields[11]) + int(fields[12])) * 1000.0 / CLOCK_TICKS if fields else None
        except (IndexError, ValueError):
            return None

    def close(self) -> None:
        self.closed = True
        for fd in (self._stat_fd, self._wchan_fd):
            if fd is not None:
                os.close(fd)
        self._stat_fd = self._wchan_fd = None

    # -- inside ----------------------------------------------------------------------------
    def _settle(self) -> None:
        if not self.threads:  # with threads, one asleep on the pipe says nothing of the others: always stopped
            for _ in range(SETTLE_CHECKS):  # an honest bot may still be on its way from writing to reading
                if self._asleep_on_a_pipe():
                    return
                time.sleep(SETTLE_PAUSE_S)
            self.stops += 1
        self._signal(signal.SIGSTOP)
        self.frozen = True
        deadline = time.monotonic() + STOP_CONFIRM_S
        while time.monotonic() < deadline:  # SIGSTOP is asynchronous: wait until it has stopped
            fields = self._stat_fields()
            if not fields or fields[0] in (b"T", b"t", b"Z", b"X"):
                break
            time.sleep(0.0002)

    def _asleep_on_a_pipe(self) -> bool:
        """Whether the process sleeps reading a pipe (its request pipe, or one only it can write)."""
        try:
            if self._wchan_fd is None:
                self._wchan_fd = os.open(f"/proc/{self.pid}/wchan", os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(self._wchan_fd, 64, 0) in PIPE_READ_WAITS
        except OSError:
            return False

    def _stat_fields(self) -> list[bytes]:
        """The fields of /proc/<pid>/stat after the command name (state first); empty if unreadable."""
        if self.pid is None:
            return []
        try:
            if self._stat_fd is None:
                self._stat_fd = os.open(f"/proc/{self.pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(self._stat_fd, 1024, 0).rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return []

    def _signal(self, sig: int) -> None:
        if self.pinned is not None:  # plain: its own session, pgid == pid; strong: fork is denied, the runner is alone
            self.pinned.send(sig)


def process_cpu_clock(pid: int) -> int | None:
    """The clock id of process ``pid``'s CPU time (what ``clock_getcpuclockid`` gives: Linux's
    ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``), or None where it cannot be read (not Linux, refused)."""
    clock = ((~pid) << 3) | 2
    try:
        time.clock_gettime_ns(clock)
    except (OSError, AttributeError):
        return None
    return clock
