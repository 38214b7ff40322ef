"""JSON-line framing over a bot's pipes: encoding, bounded line reading, deadline-driven exchange."""
from __future__ import annotations

import enum
import json
import logging
import os
import re
import select
import time
from dataclasses import dataclass
from typing import Any, Mapping

from .protocol import dumps

__all__ = ["FramingError", "splice_lists", "decode",
           "nesting_depth", "MAX_DEPTH", "LineBuffer", "Outcome", "Event", "Pipes"]

log = logging.getLogger(__name__)
CHUNK = 65536


class FramingError(ValueError):
    """A line from the bot is not one JSON object."""


def splice_lists(message: Mapping[str, Any], lists: Mapping[str, list[str]]) -> str:
    """The compact JSON of ``message`` (``protocol.dumps``) with the list at each key of ``lists`` made of the JSON
    texts there."""
    parts: list[str] = []
    plain: dict[str, Any] = {}
    for key, value in message.items():
        if key in lists:
            if plain:
                parts.append(dumps(plain)[1:-1])
                plain = {}
            parts.append(dumps(key) + ":[" + ",".join(lists[key]) + "]")
        else:
            plain[key] = value
    if plain:
        parts.append(dumps(plain)[1:-1])
    return "{" + ",".join(parts) + "}"


def _preview(line: bytes, limit: int = 60) -> str:
    text = line[:limit].decode("utf-8", "replace")
    return repr(text + ("..." if len(line) > limit else ""))


#: Deepest nesting a bot's line may have; a reply needs 3 (``{"action": {"want": [...]}}``). Checked
#: before the decoder, whose recursion a deeper line would exhaust.
MAX_DEPTH = 16
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb"[\[\]{}]")


def nesting_depth(line: bytes, stop: int = MAX_DEPTH) -> int:
    """How deep the arrays and objects of a JSON line nest (strings skipped); stops counting past ``stop``."""
    if line.count(b"[") + line.count(b"{") <= stop:
        return line.count(b"[") + line.count(b"{")  # an upper bound, already small enough
    depth = peak = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", line)):
        depth += 1 if bracket in b"[{" else -1
        if depth > peak:
            peak = depth
            if peak > stop:
                break
    return peak


_SCAN: Any = getattr(json.JSONDecoder(), "scan_once")  # the C scanner behind json.loads, without its wrapper


def _loads(text: str) -> Any:
    """``json.loads(text)``: the same values and the same refusals (as a ``ValueError``)."""
    text = text.strip(" \t\n\r")
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        raise ValueError("no JSON value") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


def decode(line: bytes, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Parse one line (without its newline) into a JSON object, or raise FramingError: whatever
    the line holds, no other exception escapes."""
    try:
        if nesting_depth(line, max_depth) > max_depth:
            raise FramingError(f"JSON nested deeper than {max_depth} levels: {_preview(line)}")
        value = _loads(line.decode("utf-8"))
    except FramingError:
        raise
    except Exception as exc:  # noqa: BLE001 - ValueError, UnicodeDecodeError, RecursionError, MemoryError...
        why = "" if isinstance(exc, ValueError) else f" ({type(exc).__name__})"
        raise FramingError(f"invalid JSON{why}: {_preview(line)}") from None
    if not isinstance(value, dict):
        raise FramingError(f"not a JSON object: {_preview(line)}")
    return value


class LineBuffer:
    """Accumulates bytes and yields complete lines; flags a line longer than the cap."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data

    def pop_line(self) -> bytes | None:
        """The next complete line without its newline, or None."""
        end = self._buf.find(b"\n", 0, self.max_line_bytes + 1)
        if end < 0:
            return None
        line = bytes(self._buf[:end])
        del self._buf[: end + 1]
        return line

    @property
    def overflow(self) -> bool:
        """True when the pending bytes already exceed the cap without a newline."""
        return len(self._buf) > self.max_line_bytes and self._buf.find(b"\n", 0, self.max_line_bytes + 1) < 0

    @property
    def pending(self) -> int:
        return len(self._buf)

    def clear(self) -> None:
        self._buf.clear()


class StderrTail:
    """Keeps only the last ``limit`` bytes written to stderr."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buf = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self._buf += data
        if len(self._buf) > self.limit:
            del self._buf[: len(self._buf) - self.limit]

    def text(self) -> str:
        return self._buf.decode("utf-8", "replace")


class Event(enum.Enum):
    LINE = "line"
    TIMEOUT = "timeout"
    EOF = "eof"
    OVERFLOW = "overflow"
    EXTRA = "extra"


@dataclass(frozen=True)
class Outcome:
    """What one exchange produced."""

    event: Event
    line: bytes | None
    elapsed_ms: float


class Pipes:
    """Non-blocking, poll-driven access to a bot's stdin (write), stdout and stderr (read).

    Stderr is drained in the same poll loop as stdout so a stderr flood can never block the bot
    on a full pipe while the referee waits for its reply, and writes never block the referee
    when the bot does not read its stdin.
    """

    def __init__(self, stdin: int, stdout: int, stderr: int, max_line_bytes: int, max_stderr_bytes: int) -> None:
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        for fd in (stdin, stdout, stderr):
            os.set_blocking(fd, False)
        self.lines = LineBuffer(max_line_bytes)
        self.err = StderrTail(max_stderr_bytes)
        self.stdout_eof = False
        self.stderr_eof = False
        self.stdin_broken = False

    def exchange(self, payload: bytes, deadline: float, want_line: bool) -> Outcome:
        """Write ``payload``, then (if ``want_line``) wait for one line, all before ``deadline`` (monotonic)."""
        start = time.monotonic()
        view = memoryview(payload)
        if view and not self.stdin_broken:  # a pipe with room takes it at once: no poll for the first write
            view = self._write(view)
        poller = select.poll()
        if view and not self.stdin_broken:
            poller.register(self.stdin, select.POLLOUT)
        if want_line and not self.stdout_eof:
            poller.register(self.stdout, select.POLLIN)
        if not self.stderr_eof:
            poller.register(self.stderr, select.POLLIN)

        def done(event: Event, line: bytes | None = None) -> Outcome:
            return Outcome(event, line, (time.monotonic() - start) * 1000.0)

        while True:
            if want_line:
                line = self.lines.pop_line()
                if line is not None:
                    if self.lines.pending:
                        return done(Event.EXTRA, line)
                    return done(Event.LINE, line)
                if self.lines.overflow:
                    return done(Event.OVERFLOW)
                if self.stdout_eof:
                    return done(Event.EOF)
            elif not view or self.stdin_broken:
                return done(Event.LINE)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return done(Event.TIMEOUT)
            try:
                ready = poller.poll(max(1, int(remaining * 1000 + 0.999)) if remaining < 3600 else None)
            except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for clarity
                continue
            for fd, mask in ready:
                if fd == self.stdin:
                    view = self._write(view)
                    if not view:
                        poller.unregister(fd)
                elif fd == self.stdout:
                    if not self._read_into_lines():
                        poller.unregister(fd)
                elif fd == self.stderr:
                    if not self._read_stderr():
                        poller.unregister(fd)

    def _write(self, view: memoryview) -> memoryview:
        """Write what the bot's stdin takes now; what is left (nothing once its pipe broke)."""
        try:
            return view[os.write(self.stdin, view):]
        except BlockingIOError:
            return view
        except OSError:  # BrokenPipeError and the like
            self.stdin_broken = True
            return view[len(view):]

    def _read_into_lines(self) -> bool:
        """Read what is available from stdout; False at EOF."""
        self.stdout_eof = not self._pump(self.stdout, self.lines)
        return not self.stdout_eof

    def _read_stderr(self) -> bool:
        """Read what is available from stderr; False at EOF."""
        self.stderr_eof = not self._pump(self.stderr, self.err)
        return not self.stderr_eof

    def _pump(self, fd: int, sink: Any) -> bool:
        """Feed what ``fd`` has into ``sink``; False at EOF (nothing available is not EOF)."""
        data = self._read(fd)
        if data:
            sink.feed(data)
        return data is None or bool(data)

    @staticmethod
    def _read(fd: int) -> bytes | None:
        """What is available on ``fd``: None if nothing yet, b"" at its end (or if it broke)."""
        try:
            return os.read(fd, CHUNK)
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def stdout_has_data(self) -> bool:
        """Non-blocking check for unsolicited output (or EOF) waiting on stdout."""
        if self.lines.pending:
            return True
        if self.stdout_eof:
            return False
        ready = select.poll()
        ready.register(self.stdout, select.POLLIN)
        if ready.poll(0):
            self._read_into_lines()
            return self.lines.pending > 0
        return False

    def take_stderr(self) -> None:
        """Read what stderr holds now, without waiting for its end (a bot just killed writes no more)."""
        while not self.stderr_eof:
            data = self._read(self.stderr)
            if data is None:
                return
            if not data:
                self.stderr_eof = True
                return
            self.err.feed(data)

    def drain_stderr(self, deadline: float) -> None:
        """Read stderr until EOF or the deadline (used after the bot is dead, for its last words)."""
        poller = select.poll()
        poller.register(self.stderr, select.POLLIN)
        while not self.stderr_eof:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if poller.poll(max(1, int(remaining * 1000))) and not self._read_stderr():
                return
