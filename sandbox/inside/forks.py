"""The runner as a fork server, one of its parts (sandbox/inside/runner.py; the referee's side is
sandbox/fork_server.py): a template that imported the trusted modules once forks a fresh child per bot per
game, each through a keeper that puts the bot in a PID namespace of its own (the strong tier), or, in the plain
tier, in a session of its own below a keeper that is its subreaper: whatever the bot leaves behind comes back to
the keeper, which kills it before it reports the bot's end. There the template, each keeper and each bot die with
their parent (``PR_SET_PDEATHSIG``), as a cold plain bot dies with its referee.

The template itself never runs bot code and never sees a bot's source. It forks the next keeper and
bot *before* the referee asks (as soon as the last one is gone) and reports on the control socket the
keeper's ``{"pid": ...}`` with a socket to the waiting bot (SCM_RIGHTS); the referee sends the bot its
three new pipes there itself, so a start does not wait for the template. The bot closes that socket,
takes the pipes as its stdio and reads its boot line from its own stdin. Once the keeper is gone the
template reports ``{"exit": status}`` (sandbox/control.py holds these lines as values), then forks the
next one: one child at a time.

Runs inside the sandbox in the runner's namespace and imports nothing of ours.
"""
from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # the type checker reads the imports below; the runner never pays for typing
if TYPE_CHECKING:
    from _socket import socket

    from .confine import PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, PR_SET_PDEATHSIG, SIGKILL, Libc
    from .loader import Importer, Modules, install_importer
    from .output import EXIT_BAD_BOOT, die


class Inherited:
    """What a fork server's child takes over from its template: the C functions, the descriptor of the
    sealed /proc (for the child's last check of its capabilities) and the importer of the bundle."""

    libc: Libc | None = None
    proc: int | None = None
    importer: Importer | None = None
    plain = False  # the plain tier: no PID namespace for a bot (``_keep``)


INHERITED = Inherited()


def warm_fork_server(control_fd: int, modules: Modules, preload: list[str], seal_mounts: bool,
                     undumpable: bool, parent: int | None = None) -> socket:
    """Import the trusted modules once, seal /proc and /dev; the control socket, for ``serve_forks``. With
    ``parent`` (the plain tier), the template dies with that process, its referee, and its bots get no PID
    namespace."""
    import _socket

    control = _socket.socket(fileno=control_fd)
    libc = INHERITED.libc = Libc()
    if parent is not None:
        INHERITED.plain = True
        _die_with(libc, parent)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
    INHERITED.importer = install_importer(modules)
    for name in preload:
        __import__(name)
    if seal_mounts:
        try:
            INHERITED.proc = libc.seal_mounts()
        except OSError as exc:
            die(EXIT_BAD_BOOT, "sealing /proc and /dev: " + repr(exc))
    if undumpable:  # its children share its uid: none may open its memory through /proc
        libc.prctl(PR_SET_DUMPABLE, 0)
    return control


def serve_forks(control: socket) -> None:
    """Ahead of each bot, fork a keeper and its bot, and hand the referee the keeper's pid with a socket to
    the waiting bot; returns only in a bot, once the pipes the referee sent it there are its stdin, stdout
    and stderr (its stdin then carries its boot line)."""
    import _socket

    template = os.getpid()
    while True:
        ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
        forked_r, forked_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the keeper: in a PID namespace of its own, the bot is pid 1 and its pids are fresh
            control.close()
            ours.close()
            os.close(forked_r)
            _keep(theirs, forked_w, template)
            import random

            random.seed()  # the template's state is shared by every child: give each its own
            return
        theirs.close()
        os.close(forked_w)
        os.read(forked_r, 1)  # end of file: the keeper forked the bot (or died)
        os.close(forked_r)
        try:
            control.sendmsg([b'{"pid":%d}\n' % pid],
                            [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, ours.fileno().to_bytes(4, sys.byteorder))])
            ours.close()
            _, status = os.waitpid(pid, 0)
            if INHERITED.plain:  # a keeper the bot killed left its orphans to the template, a subreaper too
                _reap_leftovers(template)
            control.sendall(b'{"exit":%d}\n' % os.waitstatus_to_exitcode(status))
        except OSError:
            os._exit(0)  # the referee closed the control socket (a bot still waiting sees its socket end)


def _die_with(libc: Libc, parent: int, sig: int | None = None) -> None:
    """Signal ``sig`` (SIGKILL) to this process when ``parent`` (its parent now) ends; end at once if it ended
    already."""
    libc.prctl(PR_SET_PDEATHSIG, SIGKILL if sig is None else sig)
    if os.getppid() != parent:
        os._exit(EXIT_BAD_BOOT)


def _reap_leftovers(me: int) -> None:
    """In a plain keeper or template (both subreapers), once its bot or keeper ended: kill every process left
    behind (they came back to it as orphans, even from a session of their own) and reap them, until none is left."""
    import _signal

    while True:
        try:
            with open(f"/proc/{me}/task/{me}/children") as f:
                left = [int(pid) for pid in f.read().split()]
        except OSError:
            left = []
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, _signal.SIGKILL)
            except OSError:
                pass
        for pid in left:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _keep(chan: socket, forked: int, template: int) -> None:
    """Fork the bot into a new PID namespace (returns in the bot once its stdio are the three pipes that
    come over ``chan``), then wait for it and end as it ended (in the keeper, which never returns).
    Without it, every bot of a fork server would share one PID namespace, and the pids a bot's threads
    used would tell the next game of that fork server (another author's bot, maybe) whatever the bot
    wanted."""
    import _signal
    import _socket

    libc = INHERITED.libc
    assert libc is not None  # warm_fork_server made it
    keeper = os.getpid()
    if INHERITED.plain:
        # when its template dies (the referee's end), a keeper ends its bot's whole tree before it goes: a SIGKILL
        # would leave the bot's own children, a setsid daemon say, to whoever is above (init)
        def template_gone(signum: int, frame: object) -> None:
            _reap_leftovers(keeper)  # the bot is its child; what the bot left comes back to it as orphans
            os._exit(EXIT_BAD_BOOT)

        _signal.signal(_signal.SIGTERM, template_gone)
        _die_with(libc, template, _signal.SIGTERM)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1)
    else:
        try:
            libc.unshare_pid()
        except OSError as exc:
            die(EXIT_BAD_BOOT, "a PID namespace for the bot: " + repr(exc))
    bot = os.fork()
    if bot == 0:
        if INHERITED.plain:  # killed with its group, and with its keeper
            _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
            os.setsid()
            _die_with(libc, keeper)
        os.close(forked)
        try:
            data, ancdata, _flags, _addr = chan.recvmsg(1, _socket.CMSG_SPACE(3 * 4))
        except OSError:
            data, ancdata = b"", []
        fds = []
        for level, kind, payload in ancdata:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                fds += [int.from_bytes(payload[i:i + 4], sys.byteorder) for i in range(0, len(payload) - 3, 4)]
        chan.close()
        if not data or len(fds) != 3:
            os._exit(EXIT_BAD_BOOT)  # the template went away before a request (or sent no pipes)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        return
    chan.close()
    os.close(forked)
    _, status = os.waitpid(bot, 0)
    if INHERITED.plain:
        _reap_leftovers(keeper)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: so is its keeper, for the referee to read (with no core of its own)
        libc.prctl(PR_SET_DUMPABLE, 0)
        if -code != _signal.SIGKILL:  # the one signal whose action is always the default
            _signal.signal(-code, _signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)
