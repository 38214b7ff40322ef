"""Side jobs of the living ladder: a command (the site build, the audit) run now and then in a process of its own,
never waited for by the loop (arena/ladder/live.py)."""
from __future__ import annotations

import logging
import subprocess
import sys
import tempfile
from typing import IO, Callable, Sequence

log = logging.getLogger(__name__)

SIDE_JOB_SECONDS = 3600.0  # a side job that runs longer is ended (the next one starts afresh)


class SideJob:
    """A command run now and then in a process of its own (the site build, the audit), never waited for by
    the loop: ``poll`` starts it when it is due and not running, and notices when it ended."""

    def __init__(self, name: str, argv: Sequence[str], every: float, env: dict[str, str],
                 on_end: Callable[[SideJob, int], None] = lambda job, code: None) -> None:
        self.name, self.argv, self.every, self.env, self.on_end = name, list(argv), every, env, on_end
        self.process: subprocess.Popen[bytes] | None = None
        self.errors: IO[bytes] | None = None
        self.started = 0.0
        self.last = -float("inf")  # when it last started
        self.wanted = True  # something changed since it last started

    def poll(self, clock: float) -> None:
        if self.process is not None:
            code = self.process.poll()
            if code is None and clock - self.started > SIDE_JOB_SECONDS:
                log.error("%s ran longer than %.0f s and was ended", self.name, SIDE_JOB_SECONDS)
                self.process.kill()
                code = self.process.wait()
            if code is None:
                return
            self._ended(code)
        if self.wanted and clock - self.last >= self.every:
            self.errors = tempfile.TemporaryFile()
            self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=self.errors, env=self.env, start_new_session=True)
            self.started = self.last = clock
            self.wanted = False

    def _ended(self, code: int) -> None:
        assert self.process is not None and self.errors is not None
        if code != 0:
            self.errors.seek(0)
            said = [line for line in self.errors.read()[-4000:].decode("utf-8", "replace").splitlines() if line]
            log.error("%s failed (exit %d): %s", self.name, code, said[-1] if said else "no message")
        self.errors.close()
        self.process = self.errors = None
        self.on_end(self, code)

    def stop(self, grace: float = 5.0) -> None:
        """Let a running job finish within ``grace`` seconds, else end it."""
        if self.process is None:
            return
        try:
            code = self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._ended(code)


def arena_command(*args: str) -> list[str]:
    """The argv of an `arena` command in a process of its own (its database comes in ``$ARENA_DB``, never in
    its argv, which any user of the machine can read)."""
    return [sys.executable, "-m", "arena", "--quiet", *args]
