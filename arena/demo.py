"""``arena demo``: the example bots entered as bosses, and a short seat-rotated season of the default format."""
from __future__ import annotations

import secrets

from sqlmodel import Session

from arena.formats import default_format
from arena.ladder.planning import SeasonSettings
from arena.submissions.names import builtin_bots, names_taken_by_submissions
from arena.submissions.versions import register_bosses


def enter_example_bots(session: Session) -> list[str]:
    """Enter every built-in bot as a boss (they play every format: tests/bots), except those whose
    names submitted bots took; the names left out."""
    names = list(builtin_bots())
    taken = names_taken_by_submissions(session, names)
    register_bosses(session, [name for name in names if name not in taken])
    return taken


def demo_season(games: int, builtin_only: bool) -> SeasonSettings:
    """A new season of ``games`` seat-rotated games at the default format's table sizes, under a fresh name."""
    low, high = default_format().players
    return SeasonSettings(name=f"demo-{secrets.token_hex(3)}", games=games, min_players=low, max_players=high,
                          rotate=True, builtin_only=builtin_only)
