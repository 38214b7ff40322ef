"""Free text that users give (an author, a season name): checked when it comes in, made safe when shown.
Text a bot or a file controls is made storable once, at the database's door (``storable``), and
printable once, on its way to a terminal (``terminal``)."""
from __future__ import annotations

import re

#: The longest author or season name accepted; the site and the terminal never show more.
MAX_TEXT = 64


class TextError(ValueError):
    """A piece of free text is refused; the message says which and why."""


def check_text(value: str, what: str, limit: int = MAX_TEXT) -> str:
    """``value`` if it is at most ``limit`` printable characters (no control characters, no line breaks)."""
    if len(value) > limit:
        raise TextError(f"{what} is {len(value)} characters long; at most {limit} are allowed: {value[:24]!r}...")
    bad = next((c for c in value if not c.isprintable()), None)
    if bad is not None:
        raise TextError(f"{what} {value[:40]!r} contains the control character {bad!r}; "
                        "only printable characters are allowed")
    return value


#: what no database column of text can hold: NUL (PostgreSQL refuses it) and lone surrogates (from
#: decoding with errors="surrogateescape"; no UTF-8 encoder takes them)
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(value: str) -> str:
    """``value`` with every character a database cannot store replaced by U+FFFD."""
    if value.isascii():  # the usual case, checked in C: no surrogate is ASCII, so only a NUL can be there
        return value.replace("\x00", "\N{REPLACEMENT CHARACTER}") if "\x00" in value else value
    return _UNSTORABLE.sub("\N{REPLACEMENT CHARACTER}", value)


def _printable(line: str) -> str:
    return line if line.isprintable() else "".join(c if c.isprintable() else "\N{REPLACEMENT CHARACTER}" for c in line)


def terminal(text: str) -> str:
    """``text`` as it may reach a terminal: line breaks kept, every other control character (escape
    sequences, CR, BEL, tabs, bidirectional overrides...) replaced by U+FFFD."""
    return "\n".join(_printable(line) for line in text.split("\n"))


def shown(value: str | None, limit: int = MAX_TEXT) -> str:
    """Text stored before it was checked, as it may be shown: control characters replaced, clipped."""
    text = _printable((value or "")[: limit + 1])
    return text if len(text) <= limit else text[: limit - 1] + "\N{HORIZONTAL ELLIPSIS}"


def plural(count: int, noun: str) -> str:
    """``1 coin``, ``2 coins``: a count with its noun (nouns with a plain plural only)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def solo_result(rank: int | None) -> str:
    """A game played alone as a person would say it: rank 1 is a win, anything else a loss."""
    return "-" if rank is None else "won" if rank == 1 else "lost"


def failure_text(seat: int, name: str, status: str, detail: str, request: str, step: int | None, log: str) -> str:
    """Why a seat failed, for its author: the status and detail, the request it was answering (and
    the replay step it was asked at: ``arena game show N --step K`` shows that position), then its
    own last output on stderr, each line marked, control characters
    replaced (the bot wrote it)."""
    lines = [f"seat {seat} ({shown(name)}) {status}: {shown(detail, 500)}"]
    if request:
        lines.append(f"  while answering {shown(request)}"
                     + (f" (at step {step} of the replay)" if step is not None else ""))
    for line in log.rstrip("\n").splitlines() if log.strip() else ["(it wrote nothing on stderr)"]:
        lines.append("  | " + shown(line, 500))
    return "\n".join(lines)
