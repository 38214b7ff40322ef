"""Free text that users give (an author, a season name): checked when it comes in, made safe when shown."""
from __future__ import annotations

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


def shown(value: str | None, limit: int = MAX_TEXT) -> str:
    """Text stored before it was checked, as it may be shown: control characters replaced, clipped."""
    text = "".join(c if c.isprintable() else "\N{REPLACEMENT CHARACTER}" for c in (value or "")[: limit + 1])
    return text if len(text) <= limit else text[: limit - 1] + "\N{HORIZONTAL ELLIPSIS}"


def failure_text(seat: int, name: str, status: str, detail: str, request: str, step: int | None, log: str) -> str:
    """Why a seat failed, for its author: the status and detail, the request it was answering (and
    the replay step), then its own last output on stderr, each line marked, control characters
    replaced (the bot wrote it)."""
    lines = [f"seat {seat} ({shown(name)}) {status}: {shown(detail, 500)}"]
    if request:
        lines.append(f"  while answering {shown(request)}" + (f" (after event {step} of the replay)" if step is not None else ""))
    for line in log.rstrip("\n").splitlines() if log.strip() else ["(it wrote nothing on stderr)"]:
        lines.append("  | " + shown(line, 500))
    return "\n".join(lines)
