"""The closed sets the tables store (a match's and a seat's status), and the column type that stores
such a set as its text, so that the columns, their values and every JSON form stay plain strings."""
from __future__ import annotations

import enum
from typing import Any, TypeVar

from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel.sql.sqltypes import AutoString

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

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else self.kind(value).value

    def process_result_value(self, value: Any, dialect: Dialect) -> _Set | None:
        return None if value is None else self.kind(value)
