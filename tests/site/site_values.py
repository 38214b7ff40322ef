"""Values the site's fixtures and tests share, and typed readers of stored rows (a module of its own: every
test folder has a conftest.py, and a test importing from ``conftest`` gets whichever folder's was imported
first)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, TypeVar

from arena.db import Match
from engine.replay import Replay

T = TypeVar("T")

PROJECT = Path(__file__).resolve().parents[2]
EVIDENCE = "RuntimeError: </pre><script>alert(5)</script>"  # the last line of the hostile seat's stderr


def replay_of(match: Match) -> Replay:
    """The replay of a played game."""
    assert match.replay is not None, f"game {match.id} has no replay"
    return Replay.loads(match.replay)


def each_a(kind: type[T], rows: Iterable[object]) -> list[T]:
    """``rows``, each checked to be a ``kind`` (a board's rows are of its format's standing class)."""
    checked = []
    for row in rows:
        assert isinstance(row, kind), row
        checked.append(row)
    return checked
