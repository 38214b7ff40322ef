"""The closed sets the tables store (a match's and a seat's status), the column type that stores such
a set as its text (so that the columns, their values and every JSON form stay plain strings), and the
column type that stores a long text compressed (a game's replay)."""
from __future__ import annotations

import enum
import zlib
from typing import Any, TypeVar

from sqlalchemy.engine import Dialect
from sqlalchemy.types import LargeBinary, TypeDecorator
from sqlmodel.sql.sqltypes import AutoString

from arena.text import storable
from sandbox import Status


class MatchStatus(enum.StrEnum):
    """Where a match stands: planned, played and recorded (done), or void (not played to a result)."""

    PLANNED = "planned"
    DONE = "done"
    VOID = "void"


class SeatStatus(enum.StrEnum):
    """How a seat of a recorded match ended: the sandbox's ``Status`` as the database stores it."""

    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"
    PROTOCOL = "protocol"
    DISCONNECT = "disconnect"
    ILLEGAL = "illegal"

    @classmethod
    def of(cls, status: Status) -> SeatStatus:
        """The stored form of a seat's ``Status``."""
        return cls(status.value)


_Set = TypeVar("_Set", bound=enum.StrEnum)


class TextEnum(TypeDecorator[_Set]):
    """A column of one ``StrEnum``: VARCHAR in the database (as a ``str`` field makes it), the member in Python."""

    impl = AutoString
    cache_ok = True

    def __init__(self, kind: type[_Set]) -> None:
        super().__init__()
        self.kind = kind
        #: each member's text, found by the member or by the text (a member hashes and compares as its text)
        self._texts = {member.value: str(member.value) for member in kind}

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        try:
            text = self._texts.get(value)
        except TypeError:  # unhashable: not a member either
            text = None
        return text if text is not None else self.kind(value).value  # not a member: the set's own error

    def process_result_value(self, value: Any, dialect: Dialect) -> _Set | None:
        return None if value is None else self.kind(value)


#: zlib's level for stored texts. 30 random 4-player replays (median 50.9 KB): level 6 makes 3.5 KB in 0.73 ms,
#: level 9 3.3 KB in 1.82 ms, level 1 6.9 KB in 0.32 ms (the recording coordinator pays it once a game)
COMPRESSION = 6


class CompressedText(TypeDecorator[str]):
    """A long text (a game's replay JSON) stored zlib-compressed as bytes, read back as the same text. A value
    stored as plain text before schema 8 (SQLite keeps such a row's type) reads as it is."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> bytes | None:
        if value is None:
            return None
        return bytes(value if isinstance(value, Compressed) else compressed(str(value)))

    def process_result_value(self, value: Any, dialect: Dialect) -> str | None:
        if value is None or isinstance(value, str):
            return value
        try:
            return stored_text(bytes(value))
        except ValueError as exc:  # a damaged row must not stop every query that reads its table
            return f"<{exc}>"  # no JSON: a reader of this replay reports it, naming the damage


class Compressed(bytes):
    """A text as ``CompressedText`` stores it, compressed where it was made (a season's worker compresses its
    games' replays, so that the one coordinator does not): stored as it is."""


def compressed(text: str) -> Compressed:
    """``text`` as ``CompressedText`` stores it (storable, UTF-8, zlib)."""
    return Compressed(zlib.compress(storable(text).encode("utf-8"), COMPRESSION))


def stored_text(data: bytes) -> str:
    """The text of a stored value: compressed (schema 8 on), or the UTF-8 of a plain one (before);
    ``ValueError`` naming the damage if it is neither."""
    try:
        return data.decode("utf-8") if is_plain(data) else zlib.decompress(data).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError(f"damaged stored text ({len(data)} bytes): {exc}") from None


def is_plain(data: bytes) -> bool:
    """Whether stored bytes are a text as it was written before schema 8 (a JSON object), not compressed
    (a zlib stream starts with 0x78, never with ``{``)."""
    return data[:1] == b"{"
