"""The rows the templates show, one frozen dataclass a kind: a leaderboard's, a season's, a bot's page's."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from markupsafe import Markup
from sqlmodel import Session, col, select

from arena.db import Match, RatingSnapshot, Season, stored_id
from arena.formats import format_of
from arena.ladder.rankings import Standing

from arena.site.chart import ChartPoint
from arena.site.model import BotInfo, GameRow, Ladder, SeatRow, Tally, VersionInfo


@dataclass(frozen=True)
class BoardRow:
    """One row of a leaderboard: its standing and bot, and (``tally``) the version's games in a rated
    format, which the page and the JSON show beside its rating."""

    standing: Standing
    bot_id: int
    tally: Tally | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as the leaderboard JSON files write it (then its bot's id and page)."""
        data = self.standing.to_json()
        if self.tally is not None:
            data |= {"win_rate": self.tally.win_rate, "avg_coins": self.tally.avg_coins,
                     "failure_rate": self.tally.failure_rate, "played": self.tally.games}
        return data


@dataclass(frozen=True)
class SeasonRow:
    """A season with its published games (newest first) and their figures."""

    season: Season
    games: Sequence[GameRow]
    done: int
    void: int
    first: datetime | None
    last: datetime | None

    @classmethod
    def of(cls, season: Season, games: Sequence[GameRow]) -> SeasonRow:
        dates = [g.finished_at for g in games if g.finished_at]
        return cls(season, games, sum(1 for g in games if g.status == "done"),
                   sum(1 for g in games if g.status == "void"), min(dates) if dates else None,
                   max(dates) if dates else None)


@dataclass(frozen=True)
class SeasonStanding:
    """A bot's games in one season."""

    bot: BotInfo
    tally: Tally


@dataclass(frozen=True)
class HeadToHead:
    """A bot's record against one other bot at the same tables (from the bot's side)."""

    bot: BotInfo  # the other bot
    games: int
    wins: int
    losses: int
    win_rate: float
    coin_diff: float  # the bot's coins minus the other's, per game


@dataclass(frozen=True)
class VersionRow:
    """One version of a bot, with its games and the version that replaced it."""

    version: VersionInfo
    tally: Tally
    superseded_by: int | None


@dataclass(frozen=True)
class BotFormat:
    """One format's section of a bot's page: its standing on that board, rating chart, versions, failures and
    head to head, all counted on that format's games only."""

    name: str  # the format's name ("classic", "duel", "solo")
    title: str
    rated: bool
    multi_seat: bool  # head to head means something only where bots share a table
    row: BoardRow | None
    chart: Markup | None  # None: an unrated format has no rating history
    versions: list[VersionRow]
    head: list[HeadToHead]
    head_rows: Markup
    failures: list[tuple[str, int]]
    failed: list[tuple[GameRow, SeatRow]]
    games: int


def version_stats(ladder: Ladder, variant: str) -> dict[int, Tally]:
    """Per version, its rated games of ``variant``."""
    stats: dict[int, Tally] = {}
    for game in ladder.games:
        if game.status == "done" and format_of(game.rules_id).name == variant:
            for seat in game.seats:
                stats.setdefault(seat.version_id, Tally()).add(seat)
    return stats


def board_rows(ladder: Ladder, board: Sequence[Standing], stats: dict[int, Tally] | None) -> list[BoardRow]:
    """A board's rows, each with its bot's id and (``stats``: a rated board's) its version's figures."""
    return [BoardRow(row, ladder.versions[row.version_id].bot_id,
                     None if stats is None else stats.get(row.version_id, Tally())) for row in board]


def season_rows(ladder: Ladder) -> list[SeasonRow]:
    """Every season, newest first."""
    by_season: dict[int, list[GameRow]] = {}
    for game in ladder.games:
        by_season.setdefault(game.season_id, []).append(game)
    return [SeasonRow.of(season, by_season.get(stored_id(season), [])) for season in reversed(ladder.seasons)]


def rating_history(session: Session, ladder: Ladder, variant: str) -> dict[int, list[ChartPoint]]:
    """Per bot, every rating after a rated game, in recording order, each version starting at its prior."""
    rows = session.exec(select(RatingSnapshot.version_id, RatingSnapshot.mu, RatingSnapshot.sigma)
                        .where(RatingSnapshot.match_id == Match.id, RatingSnapshot.variant == variant)
                        .order_by(col(Match.rated_order))).all()
    history: dict[int, list[ChartPoint]] = {}
    for version_id, mu, sigma in rows:
        version = ladder.versions[version_id]
        points = history.setdefault(version.bot_id, [])
        if not points or points[-1].version != version.number:
            points.append(ChartPoint(len(points) and points[-1].game, version.prior_mu, version.prior_sigma,
                                     version.number))
        points.append(ChartPoint(points[-1].game + 1, mu, sigma, version.number))
    return history
