"""The bots of the ladder as ``arena bots`` lists them: each with its versions and its standing in every
format, best first on the default format's board."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlmodel import Session, select

from arena.db import Bot, BotVersion, stored_id
from arena.formats import Format, default_format, formats
from arena.ladder.seasons import leaderboard
from arena.ladder.rankings import Standing

UNPLACED = 10**9  # the place of a bot that is not on the default format's board (sorted last)


@dataclass(frozen=True)
class BotListing:
    """One bot: its current version (None: retired), how many versions it has, and its row on each
    format's board (None where it does not play)."""

    name: str
    author: str
    builtin: bool
    current: int | None
    versions: int
    standings: tuple[Standing | None, ...]  # one a format of ``Roster.formats``
    paused: str | None = None  # why a live season seats its current version nowhere (``BotVersion.paused``)


@dataclass(frozen=True)
class Roster:
    formats: tuple[Format, ...]
    bots: tuple[BotListing, ...]


def roster(session: Session) -> Roster:
    """Every bot, by its place on the default format's board, then by name."""
    shown = tuple(formats())
    rows = {f.name: leaderboard(session, f.name) for f in shown}
    boards = {name: {row.name: row for row in board} for name, board in rows.items()}
    board = rows[default_format().name]  # ranked rows first, then the new ones (``RANKED_AFTER``), as listed
    places = {row.name: k for k, row in enumerate(board)} if any(row.games for row in board) else {}
    versions: dict[int, list[tuple[int, bool, str | None]]] = defaultdict(list)
    for bot_id, number, active, paused in session.exec(select(BotVersion.bot_id, BotVersion.number, BotVersion.active,
                                                              BotVersion.paused)).all():
        versions[bot_id].append((number, active, paused))
    listed = []
    for bot in session.exec(select(Bot)).all():
        mine = versions[stored_id(bot)]
        current = max((v for v in mine if v[1]), key=lambda v: v[0], default=None)  # (number, active, paused)
        listed.append(BotListing(bot.name, bot.author, bot.builtin, current[0] if current else None, len(mine),
                                 tuple(boards[f.name].get(bot.name) for f in shown),
                                 current[2] if current else None))

    def place(bot: BotListing) -> int:
        return places.get(bot.name, UNPLACED)

    return Roster(shown, tuple(sorted(listed, key=lambda bot: (place(bot), bot.name))))
