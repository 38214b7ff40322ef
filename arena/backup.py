"""A consistent copy of the ladder's SQLite file, taken while a season may be writing it."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy.engine import Engine


class BackupError(RuntimeError):
    """The copy cannot be made as asked; nothing was written."""


def backup_sqlite(engine: Engine, target: Path) -> int:
    """Copy the database behind ``engine`` into ``target`` (a new file) with SQLite's online backup:
    a snapshot of one committed state, even while the coordinator records games. Returns the pages copied."""
    if engine.url.get_backend_name() != "sqlite":
        raise BackupError(f"'arena backup' copies SQLite files; for {engine.url.get_backend_name()} use its own "
                          "tools (PostgreSQL: pg_dump)")
    source = engine.url.database
    if not source or source == ":memory:":
        raise BackupError("the database is not a file")
    if target.exists():
        raise BackupError(f"{str(target)!r} exists; choose a new file")
    if not target.parent.is_dir():
        raise BackupError(f"folder {str(target.parent)!r} does not exist")
    partial = target.with_name(target.name + ".partial")
    src = dst = None
    try:
        src = sqlite3.connect(source, timeout=30)
        dst = sqlite3.connect(partial)
        src.backup(dst)  # page by page; restarts by itself if the source changes meanwhile
        pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
        dst.close()
        dst = None
        partial.rename(target)  # only a complete copy gets the name asked for
    except (sqlite3.Error, OSError) as exc:
        raise BackupError(f"cannot copy {source!r} to {str(target)!r}: {exc}") from None
    finally:
        for conn in (src, dst):
            if conn is not None:
                conn.close()
        partial.unlink(missing_ok=True)
    return pages
