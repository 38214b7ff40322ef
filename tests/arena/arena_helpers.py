"""Running the real `arena` command from tests."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ARENA = [sys.executable, "-m", "arena"]


def db_url(db: Path | str) -> str:
    """A database URL: a path is a SQLite file, a string with ``://`` is already a URL."""
    return db if isinstance(db, str) and "://" in db else f"sqlite:///{db}"


def run_arena(*args: str, db: Path | str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    prefix = ["--db", db_url(db)] if db else []
    return subprocess.run([*ARENA, *prefix, *args], capture_output=True, text=True, timeout=timeout)
