"""Fork servers: a warmed template process per sandbox that forks a fresh bot process per game.

Starting a bot cold costs a bubblewrap sandbox, an interpreter and the SDK's imports (~80 ms a
seat). A template pays that once: it starts in the strong tier's sandbox like a bot,
imports only trusted code (the runner, the SDK, the engine and strategy modules a bot may use), and then, for
each bot of each game, forks a child that drops to the slot's uid (or, in a user namespace, drops
every capability), sets its limits and seccomp filter, and only then reads and imports the bot
(``serve_forks`` in sandbox/inside/forks.py). Nothing a bot does reaches
the template or a later child: the template never runs bot code nor sees a bot's source, each
child has its own new pipes, the file system is read-only, and the seccomp filter refuses every
object that would outlive the child (SysV IPC, message queues, locks, watches).

Fork servers live as long as the process that started them (a season's worker) and are reused by every
table it plays; their pool (sandbox/fork_server_pool.py) hands them out, one bot at a time each.
"""
from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import secrets
import select
import signal
import socket
import subprocess
import time
from typing import Any, Mapping

from . import isolation
from .boot import boot_line, runner_argv, runner_line, start_runner
from .cleanup import children, find_runner, sweep
from .pinned import Pinned
from .procscan import carries_tag, is_of_uid, kill_all
from .framing import Event, Pipes
from .bootline import ForkServerBoot
from .control import FORK_REQUEST, Exited, Forked, Report, report_from_line
from .protocol import READY_LINE, MalformedMessage
from .values import SandboxError, Tier

__all__ = ["ForkServer", "ForkedBot", "modules_digest"]

log = logging.getLogger(__name__)


# id -> (the mapping, kept alive so its id is not reused; digest)
_DIGESTS: dict[int, tuple[Mapping[str, str], str]] = {}


def modules_digest(modules: Mapping[str, str]) -> str:
    """What a fork server is chosen by: the bundle's modules by content. An ``id`` alone was reused by
    a later bundle once the first was freed, which then got a server without its own modules."""
    cached = _DIGESTS.get(id(modules))
    if cached is not None and cached[0] is modules:
        return cached[1]
    digest = hashlib.sha256()
    for name in sorted(modules):
        digest.update(f"{len(name)}:{name}{len(modules[name])}:".encode())
        digest.update(modules[name].encode())
    if len(_DIGESTS) >= 64:
        _DIGESTS.clear()
    _DIGESTS[id(modules)] = (modules, digest.hexdigest())
    return _DIGESTS[id(modules)][1]


class ForkServer:
    """One template process: in the strong tier under bubblewrap, holding one uid slot for its whole life; in the
    plain tier (``tier``) a plain runner of the referee's uid, which dies with the referee, whose bots each get a
    session of their own below a keeper that kills whatever they leave (sandbox/inside/forks.py)."""

    def __init__(self, modules: Mapping[str, list[Any]], preload: tuple[str, ...], python: str | None = None,
                 startup_ms: float = 10_000.0, binds: tuple[str, ...] = (), tier: Tier = Tier.STRONG,
                 wait: bool = True) -> None:
        """Start the template; with ``wait`` False, return once it has its boot line (its imports under way) and
        leave the wait for its ``ready`` line to ``ready()``: templates started one after another then warm up
        together (``ForkServerPool.warm``)."""
        interp = isolation.interpreter(python)
        self.plain = tier is Tier.PLAIN
        problem = None if self.plain else isolation.strong_tier_problem(interp)
        if problem is not None:
            raise SandboxError(f"strong tier requested but unavailable: {problem}")
        self.tag = secrets.token_hex(8)
        self.slot = isolation.UidSlot(None, None) if self.plain else isolation.acquire_slot()
        self._popen: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._buffer = b""
        self.pid: int | None = None  # host pid of the template's python
        self._child: ForkedBot | None = None  # its last child, until its exit report is read
        self._sockets: list[int] = []  # to the waiting bots of the "pid" reports received, in their order
        self._broken = False  # a fork failed: what it reports next is not known, so it forks no more
        self._starting: tuple[Pipes, float] | None = None  # until ``ready``: its pipes and its start-up deadline
        self._closed = False
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            self._control = ours
            cmd = runner_argv(interp.executable, self.tag)
            if not self.plain:
                cmd = isolation.bwrap_argv(interp, binds=binds) + ["--", *cmd]
            os.set_inheritable(theirs.fileno(), True)
            self._popen, pipes = start_runner(cmd, 4096, 16 * 1024, pass_fds=(theirs.fileno(),))
            control_fd = theirs.fileno()  # pass_fds keeps the number
            theirs.close()
            # undumpable where its children share its uid (the plain tier, or a user namespace): none of them may
            # open its memory, which every later bot of it inherits (a bot running as root still can). In the plain
            # tier it dies with the thread that started it (PR_SET_PDEATHSIG): only a main thread starts one
            boot = ForkServerBoot(control_fd, modules, tuple(preload), seal_mounts=not self.plain,
                                  undumpable=self.slot.uid is None, parent=os.getpid() if self.plain else None)
            payload = runner_line(interp.same_as_parent) + boot_line(boot)
            if not wait:  # the boot line (~600 KB with the modules) fits in the pipe: the next start need not wait
                _widen_pipe(pipes.stdin, len(payload))
            self._starting = (pipes, time.monotonic() + startup_ms / 1000.0)
            pipes.exchange(payload, self._starting[1], want_line=False)
        except BaseException:
            self.close()
            raise
        if wait:
            self.ready()

    def ready(self) -> None:
        """Wait for the template's ``ready`` line (at once if it came already); a template that does not say it
        before its start-up deadline is closed, and raises SandboxError with the end of its stderr."""
        if self._closed:
            raise SandboxError("fork server was closed before it was ready")
        if self._starting is None:
            return
        pipes, deadline = self._starting
        self._starting = None
        try:
            outcome = pipes.exchange(b"", deadline, want_line=True)
            if outcome.event is not Event.LINE or outcome.line != READY_LINE:
                pipes.drain_stderr(time.monotonic() + 0.5)
                raise SandboxError(f"fork server did not start ({outcome.event.value}): {pipes.err.text()[-500:]!r}")
            self.pid = self._template_pid()
        except BaseException:
            self.close()
            raise

    def _template_pid(self) -> int:
        """Host pid of the template: the python below bubblewrap (in the plain tier, the process started)."""
        assert self._popen is not None
        if self.plain:
            return self._popen.pid
        pid = find_runner(self._popen.pid, None)
        if pid is None:
            raise SandboxError("fork server process not found under bubblewrap")
        return pid

    def reported(self) -> bool:
        """Whether its last child's exit report is read or waiting to be read (``settle`` will not wait)."""
        if self._child is None or self._child.returncode is not None or b"\n" in self._buffer:
            return True
        if self._control is None:
            return False
        poller = select.poll()
        poller.register(self._control, select.POLLIN)
        return bool(poller.poll(0))

    def settle(self, deadline: float) -> bool:
        """Read the exit report of its last child, if not yet read: whether it came before ``deadline``.
        A template with a child in doubt must not fork again: its uid slot is that child's until it is gone."""
        child = self._child
        if child is None or child.returncode is not None:
            self._child = None
            return True
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except (subprocess.TimeoutExpired, SandboxError) as exc:
            log.error("fork server %s: no exit report from its last child: %s", self.pid, exc)
            return False
        return True

    def fork(self, deadline: float, first: bytes = b"") -> tuple[ForkedBot, tuple[int, int, int], bytes]:
        """``_fork``; a template whose fork failed is not ``alive`` any more (its pool closes it)."""
        try:
            return self._fork(deadline, first)
        except BaseException:
            self._broken = True
            raise

    def _fork(self, deadline: float, first: bytes) -> tuple[ForkedBot, tuple[int, int, int], bytes]:
        """A new child with fresh pipes; returns it, the referee's ends (stdin write, stdout read, stderr read)
        and what of ``first`` is still to be written to its stdin: as much as the pipe takes is in it before
        the child gets its pipes, so the child reads its boot line without waiting for another round trip.
        The template forked it ahead (its last child's exit reported first, ``settle``) and sent a socket to
        it: the pipes go straight to the waiting child."""
        assert self._control is not None and self.pid is not None
        if not self.settle(deadline):
            raise SandboxError("fork server: its last child did not end in time")
        try:
            reply = self._read(deadline)
        except subprocess.TimeoutExpired:
            raise SandboxError("fork server: no child waiting in time") from None
        if not isinstance(reply, Forked) or not self._sockets:
            raise SandboxError(f"fork server reported {reply!r} instead of a waiting child")
        waiting = socket.socket(fileno=self._sockets.pop(0))
        # the bot's host pid is found now, while it waits: once it has its pipes it may end at once (a bot that
        # fails to import), and the template forks the next child; a later look found that one, whom the
        # referee then killed as its crashed bot (the next start's "waiting child went away" under load)
        keeper = self._host_pid(reply.pid)
        below = children(keeper) if keeper is not None else []
        pid = below[0] if below else None  # the bot waiting below its keeper (None: either is gone)
        ends = [os.pipe() for _ in range(3)]
        theirs = [ends[0][0], ends[1][1], ends[2][1]]
        mine = (ends[0][1], ends[1][0], ends[2][0])
        try:
            os.set_blocking(mine[0], False)
            first = first[os.write(mine[0], first):] if first else first
            waiting.sendmsg([FORK_REQUEST], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                              b"".join(fd.to_bytes(4, "little") for fd in theirs))])
        except OSError as exc:
            for fd in mine:
                os.close(fd)
            raise SandboxError(f"fork server's waiting child went away: {exc}") from None
        finally:
            waiting.close()
            for fd in theirs:
                os.close(fd)
        self._child = ForkedBot(self, pid, group=self.plain, keeper=keeper)
        return self._child, mine, first

    def _host_pid(self, keeper: int) -> int | None:
        """Host pid of the template's child ``keeper`` (its pid in the template's PID namespace, the host's in the
        plain tier), which keeps its bot as pid 1 of a PID namespace of its own (in the plain tier, in a session of
        its own); None if it is gone."""
        if self.plain:
            return keeper
        assert self.pid is not None
        for host in children(self.pid):
            try:
                with open(f"/proc/{host}/status") as f:
                    nspids = next((line.split()[1:] for line in f if line.startswith("NSpid:")), [])
            except OSError:
                continue
            if nspids and int(nspids[-1]) == keeper:
                return host
        return None

    def _read(self, deadline: float) -> Report:
        """The next report line from the template, before ``deadline``."""
        assert self._control is not None
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired("fork server", 0)
            self._control.settimeout(remaining)
            try:
                data, ancdata, _flags, _addr = self._control.recvmsg(4096, socket.CMSG_SPACE(4),
                                                                     socket.MSG_CMSG_CLOEXEC)
            except socket.timeout:
                raise subprocess.TimeoutExpired("fork server", remaining) from None
            for level, kind, payload in ancdata:  # a socket to a waiting child comes with its "pid" report
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    self._sockets += [int.from_bytes(payload[i:i + 4], "little") for i in range(0, len(payload) - 3, 4)]
            if not data:
                raise SandboxError("fork server went away")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return report_from_line(line)
        except MalformedMessage as exc:
            raise SandboxError(str(exc)) from None

    def _close_sockets(self) -> None:
        for fd in self._sockets:
            os.close(fd)
        self._sockets = []

    def disown(self) -> None:
        """Forget the template without killing it (a forked copy of its owner's handle)."""
        self._close_sockets()
        if self._control is not None:
            self._control.close()
            self._control = None
        self._popen = None
        self.slot.forget()

    @property
    def alive(self) -> bool:
        """Started, ready (``ready``), not broken, and its process running."""
        return (not self._broken and self.pid is not None and self._popen is not None
                and self._popen.poll() is None)

    def close(self) -> None:
        """Kill the template (bubblewrap takes its namespace down; in the plain tier, each keeper and bot dies with
        its parent, and what carries the template's tag is swept) and release the slot. Once only: a second call
        does nothing (the slot may be another template's by then, whose processes it must not kill)."""
        if self._closed:
            return
        self._closed = True
        self._starting = None
        self._close_sockets()
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._popen is not None:
            self._popen.kill()
            try:
                self._popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                log.error("fork server %d not reaped", self._popen.pid)
            for stream in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
                if stream is not None:
                    stream.close()
            self._popen = None
        uid = self.slot.uid
        if uid is not None:  # in a user namespace, killing bwrap ended every process of it
            kill_all(lambda found: is_of_uid(found, uid))
        if self.plain:  # every process forked from the template carries its tag in its argv
            tag = self.tag
            sweep(f"fork server {tag}", lambda found: carries_tag(found, tag))
        self.slot.release()


class ForkedBot:
    """A bot process forked by a template, with the bits of ``subprocess.Popen`` that BotProcess uses."""

    def __init__(self, server: ForkServer, pid: int | None, group: bool = False, keeper: int | None = None) -> None:
        self.server = server
        self.keeper = keeper  # host pid of the process that forked it and reports its end
        self.pid = pid  # host pid (None if it could not be found: it then ran for no time at all)
        # found while it waits for its pipes: still it; ``group``: the plain tier, where it leads a session and is
        # killed with its process group
        self.pinned = Pinned(pid, group=group) if pid is not None else None
        self.returncode: int | None = None
        self.stdin: Any = None  # the referee's ends of the child's pipes, as files (set by BotProcess)
        self.stdout: Any = None
        self.stderr: Any = None

    def kill(self) -> None:
        if self.pinned is not None and self.returncode is None:
            self.pinned.send(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            deadline = time.monotonic() + (timeout if timeout is not None else 3600.0)
            reply = self.server._read(deadline)
            if not isinstance(reply, Exited):
                raise SandboxError(f"fork server answered {reply!r} instead of an exit status")
            self.returncode = reply.status
            if self.pinned is not None:  # reaped: nothing is sent to its pid any more
                self.pinned.close()
            if self.server._child is self:
                self.server._child = None
        return self.returncode



def _widen_pipe(fd: int, size: int) -> None:
    """Let the pipe ``fd`` hold ``size`` bytes if the system allows it (Linux ``F_SETPIPE_SZ``, at most
    /proc/sys/fs/pipe-max-size for an unprivileged process); otherwise it stays as it is."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)
    except OSError:
        pass
