"""One writer at a time on a database: a lock file beside SQLite, an advisory lock on PostgreSQL."""
from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from arena.db.errors import DatabaseError

ADVISORY_KEY = 424242  # PostgreSQL: the lock of the one writer (advisory locks are per database)


@contextmanager
def exclusive_run(engine: Engine, what: str) -> Iterator[None]:
    """Refuse a second writer on the same database (a lock the OS drops if the process dies)."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        lock_path = Path(url.database).resolve().with_name(Path(url.database).name + ".lock")
        handle = open(lock_path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DatabaseError(f"{what} refused: database {url.database!r} is in use by {holder}") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
    elif url.get_backend_name() == "postgresql":
        from sqlalchemy import text

        # a session-level advisory lock, held by one connection for the whole run; autocommit keeps
        # that connection from sitting idle in a transaction. The server drops it if the process dies.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            got = conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": ADVISORY_KEY}).scalar()
            if not got:
                user = conn.execute(text(
                    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE l.locktype = 'advisory' AND l.granted AND l.database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database()) AND l.objid = :key"),
                    {"key": ADVISORY_KEY}).scalar()
                raise DatabaseError(f"{what} refused: database {url.database!r} is in use by "
                                    f"{user or 'another run'}")
            try:
                yield
            finally:
                try:
                    conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_KEY})
                except DBAPIError:
                    pass  # a lost connection holds no lock
    else:
        yield
