"""What goes wrong with the database, and how its messages show an exception."""
from __future__ import annotations


class DatabaseError(RuntimeError):
    """The database cannot be used as asked (bad URL, newer schema, locked by another run)."""


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())
