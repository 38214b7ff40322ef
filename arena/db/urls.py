"""What ``--db`` / ``$ARENA_DB`` name, the URL as the driver and as messages see it, and why an SQLite
file cannot be used."""
from __future__ import annotations

import os
from pathlib import Path

from arena.paths import new_file_refused

DEFAULT_DB = "sqlite:///arena.sqlite"
DB_ENV = "ARENA_DB"


def driver_url(url: str) -> str:
    """``url`` with a driver this arena installs: plain ``postgresql://`` means psycopg (version 3)."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def shown_url(url: str) -> str:
    """``url`` as error messages show it: the password masked."""
    from sqlalchemy.engine import make_url  # here: a command that never opens a database does not import SQLAlchemy
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return url


def database_url(value: str) -> str:
    """What ``--db`` / ``$ARENA_DB`` name: a URL, or a plain file path meaning an SQLite file there."""
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


def sqlite_file_problem(url: str) -> str | None:
    """Why the SQLite file of ``url`` cannot be opened or made, said plainly (None if it can, or if
    ``url`` is not a file database). ``sqlite:///x`` is relative to the working folder, ``sqlite:////x`` absolute."""
    from sqlalchemy.engine import make_url

    name = make_url(url).database if url.startswith("sqlite") else None
    if not name or name == ":memory:":
        return None
    path = Path(name)
    where = path if path.is_absolute() else Path.cwd() / path
    how = ("" if path.is_absolute() or url == DEFAULT_DB else
           f" ({url!r} is relative to the working folder {str(Path.cwd())!r}; "
           f"'sqlite:////…', four slashes, is an absolute path)")
    if where.is_dir():
        return f"the database {str(where)!r} is a folder, not a file{how}"
    folder = where.parent
    if not folder.is_dir():
        return f"cannot create the database {str(where)!r}: the folder {str(folder)!r} does not exist{how}"
    refused = new_file_refused(folder)  # SQLite writes its journal (and the season lock) beside the file
    if refused is not None:
        what = "the database file is there, but" if where.exists() else f"cannot create the database {str(where)!r}:"
        return (f"{what} the folder {str(folder)!r} is not writable ({refused}); "
                f"choose another with --db or ${DB_ENV}{how}")
    if where.exists() and not os.access(where, os.R_OK | os.W_OK):
        return f"the database file {str(where)!r} is not readable and writable{how}"
    return None
