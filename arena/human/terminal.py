"""The person's terminal: what is shown (through rich) and the lines they type, with an optional deadline."""
from __future__ import annotations

import os
import select
import termios
import time
from typing import IO, Any, Callable

from rich.console import Console


class LeftTheTable(KeyboardInterrupt):
    """The person left: Ctrl-C, or their input closed. Like Ctrl-C it passes through the referee (which
    turns only a bot's exceptions into a status) and ends the game without a result."""


class OutOfTime(Exception):
    """The person's time for one decision (``--human-ms``) ran out."""


class Terminal:
    """Shows renderables and reads whole lines from a file descriptor (the terminal, or a pipe in tests)
    without Python's buffering, so that a deadline can be kept with ``select``."""

    #: how often a wait for a line looks at ``stop``: a stop signal whose KeyboardInterrupt was lost (raised inside
    #: a garbage-collection callback, where Python only prints it) still ends the wait
    LOOK_SECONDS = 0.5

    def __init__(self, console: Console | None = None, fd: int = 0, stop: Callable[[], None] | None = None) -> None:
        self.console = console or Console(highlight=False)
        self._fd = fd
        self._pending = b""
        self._stop = stop  # raises KeyboardInterrupt once a stop was asked for (``stop_on_signals``'s check)

    @classmethod
    def of(cls, out: IO[str], fd: int, width: int | None = None) -> Terminal:
        return cls(Console(file=out, highlight=False, width=width), fd)

    def show(self, *things: Any) -> None:
        self.console.print(*things)

    def say(self, text: str) -> None:
        """One line of plain text (no markup: it may quote what the person typed)."""
        self.console.print(text, markup=False)

    def discard_typed_ahead(self) -> None:
        """Forget what was typed before a question was shown (a key pressed while the bots played must not
        answer a decision the person has not seen). Only at a terminal: piped input is a script."""
        if os.isatty(self._fd):
            self._pending = b""
            termios.tcflush(self._fd, termios.TCIFLUSH)

    def ask(self, prompt: str, deadline: float | None = None) -> str:
        """The next line typed after ``prompt``, stripped; ``OutOfTime`` past ``deadline`` (a
        ``time.monotonic()`` value), ``LeftTheTable`` when the input ends."""
        self.console.print(prompt, end="", markup=False)
        self.console.file.flush()
        while b"\n" not in self._pending:
            if self._stop is not None:
                self._stop()
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self.console.print()
                raise OutOfTime()
            if not select.select([self._fd], [], [], self.LOOK_SECONDS if left is None else
                                 min(left, self.LOOK_SECONDS))[0]:
                continue
            chunk = os.read(self._fd, 4096)
            if not chunk:
                raise LeftTheTable()
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", "replace").strip()


def number(word: str) -> int | None:
    """``word`` as a number written in ASCII digits, or None (``'²'.isdigit()`` is true, ``int('²')`` fails)."""
    return int(word) if word.isascii() and word.isdigit() else None
