"""Side jobs of the living ladder: a command (the site build, the audit) run now and then in a process of its own,
never waited for by the loop (arena/ladder/live.py).

Each job is forked from a server process that imported the command line once (multiprocessing's forkserver, started
with the first job and ended with the loop): a job costs a fork, not an interpreter's start and ~1 s of imports
(docs/benchmarks.md, "The living ladder's side jobs"). Nothing of the loop crosses into it: the server is a fresh
interpreter, and the job gets the loop's environment as it stood when the job started."""
from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import tempfile
from multiprocessing.process import BaseProcess
from typing import IO, Callable, Sequence

log = logging.getLogger(__name__)

SIDE_JOB_SECONDS = 3600.0  # a side job that runs longer is ended (the next one starts afresh)
#: what the server imports once for every job: the command line and the two commands the loop runs
PRELOAD = ["arena.cli", "arena.cli.site", "arena.cli.audit"]


def _context() -> multiprocessing.context.ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    assert isinstance(context, multiprocessing.context.ForkServerContext)
    context.set_forkserver_preload(PRELOAD)
    return context


def run_command(args: Sequence[str], env: dict[str, str], errors: str) -> None:
    """A side job's process: a session of its own, standard input and output on the null device, standard error
    appended to the file ``errors``, then `arena ARGS` in the environment ``env``; its exit code is the command's
    (multiprocessing takes a ``SystemExit``'s code, and prints any other exception, exit code 1)."""
    os.setsid()
    os.environ.clear()
    os.environ.update(env)
    null = os.open(os.devnull, os.O_RDWR)
    err = os.open(errors, os.O_WRONLY | os.O_APPEND)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(err, 2)
    os.close(null)
    os.close(err)
    from arena.cli import cli

    cli.main(list(args), prog_name="arena")


class SideJob:
    """A command run now and then in a process of its own (the site build, the audit), never waited for by
    the loop: ``poll`` starts it when it is due and not running, and notices when it ended."""

    def __init__(self, name: str, args: Sequence[str], every: float, env: dict[str, str],
                 on_end: Callable[[SideJob, int], None] = lambda job, code: None) -> None:
        self.name, self.args, self.every, self.env, self.on_end = name, list(args), every, env, on_end
        self.process: BaseProcess | None = None
        self.errors: IO[bytes] | None = None
        self.started = 0.0
        self.last = -float("inf")  # when it last started
        self.wanted = True  # something changed since it last started

    def poll(self, clock: float) -> None:
        if self.process is not None:
            code = self.process.exitcode
            if code is None and clock - self.started > SIDE_JOB_SECONDS:
                log.error("%s ran longer than %.0f s and was ended", self.name, SIDE_JOB_SECONDS)
                code = self._kill()
            if code is None:
                return
            self._ended(code)
        if self.wanted and clock - self.last >= self.every:
            self.errors = tempfile.NamedTemporaryFile(prefix="arena-side-job-")
            self.process = _context().Process(target=run_command, args=(self.args, self.env, self.errors.name),
                                              name=self.name, daemon=False)
            self.process.start()
            self.started = self.last = clock
            self.wanted = False

    def _kill(self) -> int:
        assert self.process is not None
        self.process.kill()
        self.process.join()
        return self.process.exitcode if self.process.exitcode is not None else -9

    def _ended(self, code: int) -> None:
        assert self.process is not None and self.errors is not None
        if code != 0:
            self.errors.seek(0)
            said = [line for line in self.errors.read()[-4000:].decode("utf-8", "replace").splitlines() if line]
            log.error("%s failed (exit %d): %s", self.name, code, said[-1] if said else "no message")
        self.errors.close()
        self.process.close()
        self.process = self.errors = None
        self.on_end(self, code)

    def stop(self, grace: float = 5.0) -> None:
        """Let a running job finish within ``grace`` seconds, else end it."""
        if self.process is None:
            return
        self.process.join(grace)
        code = self.process.exitcode
        self._ended(self._kill() if code is None else code)


def arena_command(*args: str) -> list[str]:
    """The arguments of an `arena` side job (its database comes in ``$ARENA_DB``, never in its arguments, which
    any user of the machine can read in the process list)."""
    return ["--quiet", *args]
