"""The ladder in memory, as the site build reads it once from the database."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Sequence

from sqlalchemy import literal
from sqlalchemy import select as select_columns  # sqlmodel's select is typed for at most four columns
from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion, Match, MatchSeat, Season, prior_means, stored_id
from arena.audit.flag_games import not_rated
from arena.ladder.ratings import MU
from arena.formats import formats
from arena.ladder.seasons import NOT_CLOSE_VOIDED, deals_secret, leaderboard
from arena.ladder.rankings import Standing
from arena.text import shown


@dataclass
class Tally:
    """A version's or a bot's games, counted seat by seat (``add``)."""

    games: int = 0
    wins: int = 0
    coins: int = 0
    failures: int = 0

    def add(self, seat: SeatRow) -> None:
        self.games += 1
        self.wins += seat.rank == 1
        self.coins += seat.coins or 0
        self.failures += seat.status != "ok"

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def avg_coins(self) -> float | None:
        return self.coins / self.games if self.games else None

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.games if self.games else None


@dataclass(frozen=True)
class SeatRow:
    match_id: int
    seat: int
    version_id: int
    coins: int | None
    rank: int | None
    status: str | None
    detail: str
    failure_request: str = ""  # why it failed (arena.play.records.Failure), shown on its bot's page
    failure_step: int | None = None
    failure_log: str = ""


@dataclass(frozen=True)
class GameRow:
    id: int
    season_id: int
    number: int
    status: str
    rules_id: str
    finished_at: datetime | None
    seconds: float | None
    void_reason: str | None
    seats: list[SeatRow] = field(default_factory=list)
    not_rated: str | None = None  # why a flag took it out of the ratings (arena/audit/flag_games.py)
    flagged_pair: tuple[str, str] | None = None  # ... the pair of that flag, in name order


@dataclass(frozen=True)
class VersionInfo:
    id: int
    bot_id: int
    number: int
    active: bool
    created_at: datetime
    prior_mu: float
    prior_sigma: float
    paused: str | None = None  # why a live season seats it nowhere (BotVersion.paused)


@dataclass(frozen=True)
class BotInfo:
    id: int
    name: str
    author: str
    builtin: bool
    created_at: datetime
    versions: list[VersionInfo] = field(default_factory=list)


@dataclass(frozen=True)
class Ladder:
    bots: dict[int, BotInfo]
    versions: dict[int, VersionInfo]
    seasons: list[Season]
    games: list[GameRow]  # played (done or void), newest first
    board: Sequence[Standing]  # the leaderboard of the site's format
    season_names: dict[int, str] = field(default_factory=dict)
    boards: dict[str, Sequence[Standing]] = field(default_factory=dict)  # every variant's leaderboard
    logs: bool = False  # whether failed seats' stderr is shown (`site build --private-logs`); else it is not loaded

    def bot_of(self, version_id: int) -> BotInfo:
        return self.bots[self.versions[version_id].bot_id]


def load_ladder(session: Session, variant: str, logs: bool = False) -> Ladder:
    """Everything the pages show except the replays, with few queries and no ORM objects per row. A failed
    seat's stderr is read only with ``logs`` (a bot's output is its author's: docs/operating.md)."""
    bots = {stored_id(row): BotInfo(stored_id(row), row.name, shown(row.author), row.builtin, row.created_at)
            for row in session.exec(select(Bot)).all()}
    versions: dict[int, VersionInfo] = {}
    means = prior_means(session, variant)
    for vid, bot_id, number, active, created, sigma, paused in session.execute(select_columns(
            col(BotVersion.id), col(BotVersion.bot_id), col(BotVersion.number),
            col(BotVersion.active), col(BotVersion.created_at), col(BotVersion.prior_sigma), col(BotVersion.paused))
            .order_by(col(BotVersion.number))).all():
        versions[vid] = VersionInfo(vid, bot_id, number, active, created, means.get(vid, MU), sigma, paused)
        bots[bot_id].versions.append(versions[vid])
    seasons = list(session.exec(select(Season).order_by(col(Season.id))).all())
    secret = {s.id for s in seasons if deals_secret(s)}  # their standings are shown, never their games
    games: dict[int, GameRow] = {}
    taken = not_rated(session)
    for row in session.execute(select_columns(
            col(Match.id), col(Match.season_id), col(Match.number), col(Match.status),
            col(Match.rules_id), col(Match.finished_at), col(Match.seconds),
            col(Match.void_reason)).where(col(Match.status) != "planned", NOT_CLOSE_VOIDED)).all():
        if row[1] not in secret:
            made = GameRow(*row)
            out = taken.get(made.id)
            games[made.id] = made if out is None else replace(made, not_rated=out.words(), flagged_pair=out.pair)
    for row in session.execute(select_columns(
            col(MatchSeat.match_id), col(MatchSeat.seat), col(MatchSeat.version_id),
            col(MatchSeat.coins), col(MatchSeat.rank), col(MatchSeat.status),
            col(MatchSeat.detail), col(MatchSeat.failure_request), col(MatchSeat.failure_step),
            col(MatchSeat.failure_log) if logs else literal("")).order_by(col(MatchSeat.match_id),
                                                                          col(MatchSeat.seat))).all():
        game = games.get(row[0])
        if game is not None:
            game.seats.append(SeatRow(*row))
    ordered = sorted(games.values(), key=lambda g: (g.finished_at or datetime.min, g.id), reverse=True)
    names = {stored_id(s): s.name for s in seasons}
    boards = {f.name: leaderboard(session, f.name) for f in formats()}
    return Ladder(bots, versions, seasons, ordered, boards[variant], names, boards, logs)
