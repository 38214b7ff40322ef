"""Running the real `arena` command from tests."""
from __future__ import annotations

import os
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


def process_tree() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, comm, cmdline) of every live process."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat.rsplit(")", 1)[1].split()
        if rest[0] not in ("Z", "X"):
            tree[int(entry)] = (int(rest[1]), comm, cmdline)
    return tree


def descendants(pid: int, tree: dict[int, tuple[int, str, str]]) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, (parent, _, _) in tree.items() if parent == p]
        found += kids
        frontier += kids
    return found


def alive(pids: list[int]) -> list[int]:
    tree = process_tree()
    return [p for p in pids if p in tree]
