"""`arena` commands from tests: in a real interpreter (``ARENA``), or as forks of the test's worker
(``ForkedArena``), real processes spared an interpreter's start."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import weakref
from typing import Any

ARENA = [sys.executable, "-m", "arena"]

#: what of the environment the arena reads (tools on PATH, its own and Dask's settings, where Python finds
#: modules; not PYTHONHASHSEED, which importing Dask's nanny sets for good):
#: a test that changed it (a PATH without bwrap, a format module to load) gets a real process, whose
#: caches and registries are its own
ARENA_ENVIRONMENT = ("ARENA_", "DASK_", "LD_")


def arena_environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH") or k.startswith(ARENA_ENVIRONMENT)}


START_ENVIRONMENT = arena_environment()


class ForkedArena(subprocess.Popen[Any]):
    """`python -m arena ARGS` as a fork of this worker, which has the arena's modules imported already (a real
    process's interpreter start and imports cost ~1 s of CPU; tests run ~200 such commands): a real process,
    this process's child, with its own pid, pipes, signals, exit status, working folder and environment, running
    the same ``cli.main`` with logging, warnings and signal handlers as a fresh interpreter has them. Like the
    children ``multiprocessing`` forks, it keeps this process's open descriptors until it ends. Only where the
    arena's environment is the worker's own (``forks``): a changed PATH or setting gets a real interpreter."""

    def __init__(self, args: list[str], **popen: Any) -> None:
        import arena.cli
        import arena.formats  # noqa: F401 - the database's and the ladder's modules, imported once in the worker

        self.arena_args = list(args)
        super().__init__([FORKED, *args], **popen)  # no interpreter is started: its args say so

    def _execute_child(self, args: object, executable: object, preexec_fn: object, close_fds: object,
                       pass_fds: object, cwd: str | None, env: dict[str, str] | None, startupinfo: object,
                       creationflags: object, shell: object, p2cread: int, p2cwrite: int, c2pread: int,
                       c2pwrite: int, errread: int, errwrite: int, restore_signals: object, gid: object, gids: object,
                       uid: object, umask: object, start_new_session: bool, *rest: object) -> None:
        if rest and rest[0] not in (None, -1) or any(x not in (None, -1) for x in (gid, gids, uid, umask)):
            raise ValueError("a forked arena command takes no process group, uid, gid or umask")
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                _close_parents_ends((p2cwrite, c2pread, errread))
                code = _forked_main(self.arena_args, cwd, env, (p2cread, c2pwrite, errwrite), start_new_session,
                                    preexec_fn)
            except BaseException:  # noqa: BLE001 - the harness's own failure, said where the test reads it
                import traceback

                os.write(2, traceback.format_exc().encode())
            finally:
                os._exit(code)
        self.pid = pid
        self._child_created = True
        devnull = getattr(self, "_devnull", None)  # the child's ends, closed here as Popen closes them
        for theirs, ours in ((p2cread, p2cwrite), (c2pwrite, c2pread), (errwrite, errread)):
            if theirs != -1 and ours != -1 and theirs != devnull:
                os.close(theirs)
        if devnull is not None:
            os.close(devnull)
        self._closed_child_pipe_fds = True
        _LIVE.add(self)


#: the forked commands not yet collected: a later fork closes their pipes' ends in itself
_LIVE: weakref.WeakSet[ForkedArena] = weakref.WeakSet()


def _close_parents_ends(own: tuple[int, int, int]) -> None:
    """In the forked child: close the worker's ends of this command's pipes and of every other forked command's
    (a real Popen's child has none of them: with one open here, a command whose stdin the test closes would never
    read its end). The streams stay referenced, so nothing finalizes them in the child."""
    for fd in own:
        if fd != -1:
            os.close(fd)
    for other in list(_LIVE):
        for stream in (other.stdin, other.stdout, other.stderr):
            if stream is not None and not stream.closed:
                _KEPT.append(stream)
                try:
                    os.close(stream.fileno())
                except OSError:
                    pass


#: the first of a forked command's ``args``
FORKED = "arena (forked)"
#: what the worker's own streams were: a forked command replaces them and keeps these referenced, so that nothing
#: of the parent's is finalized in the child
_KEPT: list[object] = []


def _forked_main(args: list[str], cwd: str | None, env: dict[str, str] | None, fds: tuple[int, int, int],
                 new_session: bool, before: object) -> int:
    """In the forked child: stdio, session, folder, environment, signals, logging and warnings as a fresh
    ``python -m arena`` has them, then the command; its exit status."""
    import logging
    import warnings

    from sandbox import close_fork_servers

    import multiprocessing.forkserver
    import multiprocessing.process
    import multiprocessing.util

    for target, fd in enumerate(fds):
        if fd != -1:
            os.dup2(fd, target)
    # multiprocessing as its own forked children have it: no children of the worker's, and a fork server
    # (side jobs) of this process's own, started when first needed
    setattr(multiprocessing.process, "_children", set())
    getattr(multiprocessing.util, "_run_after_forkers")()
    server = getattr(multiprocessing.forkserver, "_forkserver")
    for name in ("_forkserver_address", "_forkserver_alive_fd", "_forkserver_pid"):
        setattr(server, name, None)
    if new_session:
        os.setsid()
    if callable(before):  # preexec_fn
        before()
    if cwd is not None:
        os.chdir(cwd)
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())  # as a shell starts a command: nothing blocked
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCHLD,
                   signal.SIGALRM):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.set_wakeup_fd(-1)
    root = logging.getLogger()
    _KEPT.extend([sys.stdin, sys.stdout, sys.stderr, *root.handlers])
    root.handlers.clear()
    root.setLevel(logging.WARNING)
    warnings.resetwarnings()
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category)
    open_std_streams()
    try:
        return run_cli(args)
    finally:
        close_fork_servers()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:
                pass


def open_std_streams() -> None:
    """``sys.stdin``, ``stdout`` and ``stderr`` on descriptors 0, 1 and 2 as a fresh interpreter has them (closing a
    stream leaves its descriptor)."""
    sys.stdin = open(0, closefd=False, encoding="utf-8")
    sys.stdout = open(1, "w", closefd=False, encoding="utf-8")
    sys.stderr = open(2, "w", closefd=False, encoding="utf-8", errors="backslashreplace")


def run_cli(args: list[str]) -> int:
    """``cli.main(args)`` as `python -m arena` runs it: its exit status, with the message of an exit that is not a
    number and the traceback of an escaping exception on standard error."""
    import traceback

    from arena.cli import cli

    try:
        cli.main(args, prog_name="arena")
    except SystemExit as stop:
        if stop.code is not None and not isinstance(stop.code, int):
            print(stop.code, file=sys.stderr)
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException as exc:  # noqa: BLE001 - what Python does with an uncaught exception
        traceback.print_exception(exc, file=sys.stderr)
        return 1
    return 0


def forks(env: dict[str, str] | None = None) -> bool:
    """Whether an `arena` command with the environment ``env`` (None: this process's) runs as a fork
    (``ForkedArena``): while the arena's environment is the worker's own, unless ARENA_TESTS_IN_PROCESS=0."""
    own = os.environ.get("ARENA_TESTS_IN_PROCESS", "1") != "0"
    read = arena_environment() if env is None else {k: v for k, v in env.items()
                                                      if k in ("PATH", "PYTHONPATH") or k.startswith(ARENA_ENVIRONMENT)}
    return own and _at_import(read) == _at_import(START_ENVIRONMENT)


def _at_import(environment: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in environment.items() if k not in READ_AT_RUN}


#: the arena's settings a command reads as it runs, never at an import: a fork may be given other values
READ_AT_RUN = ("ARENA_TOKEN", "ARENA_DB", "ARENA_TESTS_IN_PROCESS")


def arena_popen(args: list[str], **popen: Any) -> subprocess.Popen[Any]:
    """`arena ARGS` started as ``subprocess.Popen([*ARENA, *args], **popen)`` would start it: a fork of this worker
    where it can be (``forks``), else a real interpreter."""
    if forks(popen.get("env")):
        return ForkedArena(args, **popen)
    return subprocess.Popen([*ARENA, *args], **popen)


def arena_run(args: list[str], *, input: str | bytes | None = None, timeout: float | None = None,
              capture_output: bool = False, **popen: Any) -> subprocess.CompletedProcess[Any]:
    """`arena ARGS` run to its end as ``subprocess.run([*ARENA, *args], ...)`` runs it (``arena_popen``)."""
    if capture_output:
        popen["stdout"] = popen["stderr"] = subprocess.PIPE
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    with arena_popen(args, **popen) as process:
        try:
            out, err = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)
