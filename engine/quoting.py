"""Quoting an input in an error message briefly, and the error a malformed wire value raises: a bot writes these
inputs, and a failure's detail that quotes them is printed on public pages (arena/play/referee.py)."""
from __future__ import annotations

#: How much of an input an error message quotes: enough to recognise it, too little to pass for a message.
QUOTE = 60


def quote(value: object, limit: int = QUOTE) -> str:
    """``value`` as Python quotes it, at most ``limit`` characters of it and always as a closed quote (a
    longer value's text is clipped inside its quotes, then ``…``): an input a bot wrote may sit in an error
    message the site prints, and must never read as the message's own words."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # noqa: BLE001 - a value that cannot be shown (too deep, an int of too many digits)
        return f"<{type(value).__name__} that cannot be shown>"
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    return repr(text[:limit]) + "\N{HORIZONTAL ELLIPSIS}"


class WireError(ValueError):
    """A JSON value that is not the wire form it should be. The message quotes the input whole; ``brief`` says
    the same naming the type and field, the bad value quoted briefly (``quote``): a bot wrote it."""

    def __init__(self, message: str, brief: str) -> None:
        super().__init__(message)
        self.brief = brief
