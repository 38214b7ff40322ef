"""Planning a season: its settings, the seeds of its deals, and the next table, chosen from the ratings
and this season's seats by the matchmaker (or, for a format where every bot plays the same deals,
each bot's next deals)."""
from __future__ import annotations

import logging
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Collection, Iterator, Sequence

from sqlalchemy import func, insert
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from arena.audit.store import Seating, flag_seating
from arena.db import (Bot, BotVersion, Match, MatchSeat, MatchStatus, Season, SeatedVersion, author_group, now,
                      execute_many, seated_versions, stored_id, table_of)
from arena.formats import default_format, format_of
from arena.play.tables import GameSpec, SeatEntry, TableTask
from arena.ladder.matchmaking import Candidate, Matchmaker, distinct
from arena.ladder.rankings import starting_skills
from arena.ladder.ratings import RatingBook
from arena.ladder.seat_counts import SeatCounts
from arena.ladder.random_seeds import (bot_seeds, database_key, derived_random, keyed, match_seed, private_deals,
                                       random_seed, solo_seeds)
from engine import rules_for
from sandbox import Limits, Tier

log = logging.getLogger(__name__)


MATCHES, SEATS = table_of(Match), table_of(MatchSeat)
_INSERT_MATCHES = insert(MATCHES).returning(MATCHES.c.number, MATCHES.c.id)
_INSERT_SEATS = insert(SEATS)
#: a planned match: its deck's seed and its version ids in seat order
Game = tuple[int, tuple[int, ...]]


class LadderError(RuntimeError):
    """A season cannot run as asked (too few bots, a machine fault during a match)."""


class TooFewBots(LadderError):
    """Too few active bots (or authors) play a season's format for one table."""


def check_enough_bots(session: Session, name: str, variant: str, min_players: int, builtin_only: bool = False) -> None:
    """Raise ``TooFewBots`` unless the active bots of ``variant`` fill a table of ``min_players`` bots of
    different authors (checked before a season is made, so that a refused one leaves nothing behind)."""
    enough_bots(name, variant, min_players, seated_versions(session, variant, builtin_only))


def enough_bots(name: str, variant: str, min_players: int, versions: Sequence[SeatedVersion]) -> None:
    """``check_enough_bots`` of the active ``versions`` read already."""
    need = max(1, min_players)
    if len(versions) < need:
        have = "none is" if not versions else "1 is" if len(versions) == 1 else f"{len(versions)} are"
        raise TooFewBots(f"season {name!r} needs at least {need} active "
                         f"{'bot that plays' if need == 1 else 'bots that play'} "
                         f"{variant}; {have} registered")
    groups = [author_group(v) for v in versions]
    authors = len({g for g in groups if g is not None}) + groups.count(None)  # as ``distinct`` counts them
    if authors < need:
        raise TooFewBots(f"season {name!r} needs bots of at least {need} different authors that play {variant}; "
                         f"{authors} {'is' if authors == 1 else 'are'} active")


#: what a live season has left to plan: always a table more (``Planner.remaining``)
LIVE_TABLES = 1_000_000
SOLO_TABLE = 10  # seasons of the same deals: one bot's deals planned as one table (each game starts it afresh)


@dataclass(frozen=True, slots=True)
class PlannedMatch:
    """A match as it was planned (its row is stored ``planned``): what a worker's task is made of."""

    id: int
    number: int
    table: int  # the number of its table's first match
    seed: int
    rules_id: str
    versions: tuple[int, ...]  # in seat order


@dataclass(frozen=True)
class SeasonSettings:
    name: str
    variant: str = field(default_factory=lambda: default_format().name)
    games: int | None = None  # None: the existing season's number, or its format's season_games for a new one
    min_players: int | None = None  # None: the variant's own range (classic 3-5, duel 2, solo 1)
    max_players: int | None = None
    rotate: bool = True  # seat-rotated deals: luck cancels out (every game starts every bot afresh)
    seed: int | None = None
    builtin_only: bool = False  # seat only built-in bots (the project's own code), e.g. in the plain tier


def get_or_create_season(session: Session, settings: SeasonSettings) -> Season:
    season = session.exec(select(Season).where(Season.name == settings.name)).first()
    rules = rules_for(settings.variant)
    if season is None:
        low = settings.min_players if settings.min_players is not None else rules.min_players
        high = settings.max_players if settings.max_players is not None else max(low, rules.max_players)
        if not rules.min_players <= low <= high <= rules.max_players:
            raise LadderError(f"{rules.id} is played by {rules.min_players}-{rules.max_players} players, "
                              f"not {low}-{high}")
        games = settings.games or format_of(rules.variant).season_games
        chosen = settings.seed  # a chosen seed is keyed with the database's secret (arena/ladder/random_seeds.py)
        # keyed with the name too: two seasons never share deals, which a closed one publishes
        seed = random_seed() if chosen is None else keyed(database_key(session), "season", settings.name, chosen)
        season = Season(name=settings.name, variant=rules.variant, games=games,
                        min_players=low, max_players=high, rotate=settings.rotate, seed=seed)
        session.add(season)
        session.commit()
        session.refresh(season)
    elif season.closed_at is not None:
        raise LadderError(f"season {season.name!r} is closed ({season.closed_at:%Y-%m-%d %H:%M}); start a new one")
    elif settings.games is not None and settings.games > season.games:
        season.games = settings.games
        season.finished_at = None
        session.add(season)
        session.commit()
    return season


@dataclass(frozen=True, slots=True)
class SeasonSpec:
    """What a planner reads of its season, as a value (only a live season's ``games`` changes, and only by it)."""

    id: int
    name: str
    variant: str
    games: int
    min_players: int
    max_players: int
    rotate: bool
    seed: int
    live: bool

    @classmethod
    def of(cls, season: Season) -> SeasonSpec:
        return cls(stored_id(season), season.name, season.variant, season.games, season.min_players,
                   season.max_players, season.rotate, season.seed, season.live)


class Planner:
    """Plans the next matches of a season from the current ratings and schedule.

    ``seats_active``: it seats the active versions (a season needs enough of them); a competition's final seats its
    finalists, whatever became of them since.

    Seasons of a format where every bot plays the same deals (``Format.same_deals``: solo) plan differently:
    ``season.games`` is the number of deals, and every active bot that plays the format gets one match per deal
    (the same seeds for all, ``solo_seeds``), a bot's deals grouped into tables of ``SOLO_TABLE``. Bots added
    later get the same deals when the season is resumed.
    """

    seats_active = True

    def __init__(self, session: Session, season: Season, book: RatingBook, builtin_only: bool = False) -> None:
        self.session = session
        self.builtin_only = builtin_only
        self.season = season  # the row, written by a live season; its settings are read from ``spec``
        self.spec = SeasonSpec.of(season)  # read once: each commit expires the row, which a read would load again
        self.book = book
        self.rules = rules_for(season.variant)
        count = session.exec(select(func.count()).select_from(Match).where(Match.season_id == season.id)).one()
        self.number = int(count)
        self.matchmaker = Matchmaker(derived_random(season.seed, "tables", self.number))
        # the matchmaker's fairness guard: this season's seats by version (a live season's: by bot, of late)
        self.seats = SeatCounts(session, stored_id(season), self.spec.live,
                                len(self._versions()) if self.spec.live else 0)
        self.same_deals = format_of(season.variant).same_deals
        self._in_round = False  # within ``one_round``: ``_read`` keeps what the round's first table read
        self._read: tuple[list[SeatedVersion], Seating] | None = None
        self.missing_deals: list[tuple[int, list[int]]] = self._missing_deals() if self.same_deals else []

    def _missing_deals(self) -> list[tuple[int, list[int]]]:
        """(version id, seeds) of every table of the same deals still to plan, in chunks of ``SOLO_TABLE``, the bots
        taking turns chunk by chunk. A bot plays each deal once, whichever of its versions played it: a version
        entered while the season is open plays only the private deals its bot has not played yet, never the public
        half again (``private_deals``), so that a resubmission is no new draw on deals whose results it saw."""
        seeds = solo_seeds(self.spec.seed, self.spec.games)
        private = private_deals(self.spec.seed, self.spec.games)
        played: dict[int, set[int]] = {}  # bot id: the seeds any of its versions has a match for
        earlier: set[int] = set()  # bots that played this season under another version than the active one
        versions = self._versions()
        active = {v.version_id for v in versions}
        for version_id, bot_id, seed in self.session.exec(select(MatchSeat.version_id, BotVersion.bot_id, Match.seed)
                                                          .where(MatchSeat.match_id == Match.id,
                                                                 MatchSeat.version_id == BotVersion.id,
                                                                 Match.season_id == self.spec.id)).all():
            played.setdefault(bot_id, set()).add(seed)
            if version_id not in active:
                earlier.add(bot_id)
        per_bot: list[list[tuple[int, list[int]]]] = []
        if not versions and not self.spec.live:  # a live season waits for its first bot
            check_enough_bots(self.session, self.spec.name, self.spec.variant, 1, self.builtin_only)
        for version in versions:
            mine = played.get(version.bot_id, set())
            todo = [seed for seed in seeds if seed not in mine and (version.bot_id not in earlier or seed in private)]
            per_bot.append([(version.version_id, todo[k:k + SOLO_TABLE]) for k in range(0, len(todo), SOLO_TABLE)])
        tables: list[tuple[int, list[int]]] = []
        for round_ in range(max((len(chunks) for chunks in per_bot), default=0)):
            tables.extend(chunks[round_] for chunks in per_bot if round_ < len(chunks))
        return tables

    def _versions(self) -> list[SeatedVersion]:
        return seated_versions(self.session, self.spec.variant, self.builtin_only)

    @contextmanager
    def one_round(self) -> Iterator[None]:
        """Within it, the tables planned read the seated versions and the flags once, for the first (a
        coordinator's round, planned in one transaction: nothing else writes them meanwhile)."""
        self._in_round = True
        try:
            yield
        finally:
            self._in_round, self._read = False, None

    def refresh(self) -> None:
        """Take in what changed since the planner was made (a live season): the same deals of versions that
        entered since, and the starting ratings of versions the book does not know yet."""
        self.spec = SeasonSpec.of(self.season)  # the row again: its deals may have grown since
        known = self.book.priors
        fresh = {v: skill for v, skill in starting_skills(self.session, self.spec.variant).items() if v not in known}
        known.update(fresh)
        if self.same_deals:
            self.missing_deals = self._missing_deals()

    def remaining(self) -> int:
        if self.same_deals:
            return sum(len(seeds) for _, seeds in self.missing_deals)
        if self.spec.live:  # plays until it is stopped
            return LIVE_TABLES
        return self.spec.games - self.number

    def plan(self, placing: int | None = None, commit: bool = True) -> list[PlannedMatch]:
        """Plan one table (several matches when deals are seat-rotated) and store it, committed unless ``commit`` is
        False (the caller commits); ``placing`` (a version id) anchors a placement table: that version against a
        spread of the ladder."""
        return self._insert([self._stage(self.choose(placing))], commit)[0]

    def plan_many(self, count: int, commit: bool = True) -> list[list[PlannedMatch]]:
        """Plan up to ``count`` tables (fewer when fewer are left) and store them together: one statement for their
        matches and one for their seats (a coordinator's round: bench/scaling.py --coordinator-only)."""
        staged: list[tuple[int, Sequence[Game]]] = []
        while len(staged) < count and self.remaining() > 0:
            staged.append(self._stage(self.choose()))
        return self._insert(staged, commit)

    def choose(self, placing: int | None = None) -> list[Game]:
        """The next table's matches, (deck seed, version ids in seat order) each, not yet stored: a bot's next deals
        (a format of the same deals), else a table the matchmaker seats."""
        if self.same_deals:
            version_id, seeds = self.missing_deals.pop(0)
            return [(seed, (version_id,)) for seed in seeds]
        if self._read is not None:
            versions, flags = self._read
        else:  # the active versions (read once for the check and the table) and the flags
            versions, flags = self._versions(), flag_seating(self.session)
            if self._in_round:
                self._read = versions, flags
        enough_bots(self.spec.name, self.spec.variant, self.spec.min_players, versions)
        self.seats.fit(len(versions))
        candidates = [Candidate(v.version_id, self.book.get(v.version_id), self.seats.of(v),
                                author_group(v)) for v in versions]
        size = self.matchmaker.size(self.spec.min_players, self.spec.max_players, distinct(candidates))
        low = self.spec.min_players
        if placing is not None and any(c.version_id == placing for c in candidates):
            table = self.matchmaker.placement(placing, candidates, size, flags.apart, flags.receivers, low)
        else:
            table = self.matchmaker.table(candidates, size, flags.apart, flags.receivers, low)
        if len(table) < self.spec.min_players:
            raise LadderError(f"season {self.spec.name!r}: the pairs the audit flagged leave no table of "
                              f"{self.spec.min_players} bots (arena audit; arena audit clear A B)")
        size = len(table)
        seed = match_seed(self.spec.seed, self.number)
        tables = [table[k:] + table[:k] for k in range(size)] if self.spec.rotate else [table]
        return [(seed, tuple(seating)) for seating in tables[: max(1, self.remaining())]]

    def _stage(self, games: Sequence[Game]) -> tuple[int, Sequence[Game]]:
        """Number one table's matches and count their seats (the next table is chosen knowing them); (its first
        number, its matches), for ``_insert``."""
        first = self.number
        for _, seating in games:
            self.seats.add(seating)
        self.number += len(games)
        if self.spec.live and not self.same_deals:  # a season of the same deals counts its deals in ``games``
            self.season.games = self.number
            self.session.add(self.season)
        return first, games

    def _insert(self, tables: Sequence[tuple[int, Sequence[Game]]], commit: bool) -> list[list[PlannedMatch]]:
        """Store staged tables in a statement for their matches and one for their seats, and commit (unless
        ``commit`` is False)."""
        stamp, rules_id = now(), self.rules.id
        connection = self.session.connection()
        rows = [{"season_id": self.spec.id, "number": first + k, "table": first, "seed": seed, "rules_id": rules_id,
                 "status": MatchStatus.PLANNED, "planned_at": stamp}
                for first, games in tables for k, (seed, _) in enumerate(games)]
        # returned with their numbers, in no promised order: one statement for the lot (SQLAlchemy asked for the
        # order inserts one row a statement on SQLite)
        by_number = {number: match_id for number, match_id in connection.execute(_INSERT_MATCHES, rows)} if rows else {}
        planned = [[PlannedMatch(by_number[first + k], first + k, first, seed, rules_id, seating)
                    for k, (seed, seating) in enumerate(games)] for first, games in tables]
        execute_many(connection, _INSERT_SEATS, [{"match_id": match.id, "seat": seat, "version_id": version_id}
                                                 for table in planned for match in table
                                                 for seat, version_id in enumerate(match.versions)])
        if commit:
            self.session.commit()
        return planned


def table_task(session: Session, matches: Sequence[PlannedMatch], limits: Limits, tier: Tier, key: bytes,
               entries: dict[int, SeatEntry] | None = None) -> TableTask:
    """The worker's task for the matches of one table (their bots, their seatings, the bots' seeds
    keyed with the database's ``key``). ``entries`` keeps the bots read for earlier tables (a version's source
    and name never change): only the versions it lacks are read, and added to it."""
    entries = {} if entries is None else entries
    wanted = list({v for match in matches for v in match.versions if v not in entries})
    if wanted:
        entries.update({version_id: SeatEntry(version_id, f"{name} v{number}" if number > 1 else name, source,
                                              language)
                        for version_id, number, source, language, name in session.execute(
                            core_select(col(BotVersion.id), col(BotVersion.number), col(BotVersion.source),
                                        col(BotVersion.language), col(Bot.name))
                            .where(col(BotVersion.id).in_(wanted), col(BotVersion.bot_id) == col(Bot.id))).all()
                        if version_id is not None})
    bots: list[SeatEntry] = []
    index: dict[int, int] = {}
    games = []
    seeds: dict[tuple[int, int], tuple[int, ...]] = {}  # a seat-rotated table deals one deck seed to all its games
    for match in matches:
        seating = []
        for version_id in match.versions:
            if version_id not in index:
                index[version_id] = len(bots)
                bots.append(entries[version_id])
            seating.append(index[version_id])
        dealt = (match.seed, len(seating))
        if dealt not in seeds:
            seeds[dealt] = bot_seeds(key, *dealt)
        games.append(GameSpec(match.id, match.seed, tuple(seating), seeds[dealt]))
    return TableTask(matches[0].rules_id, tuple(bots), tuple(games), limits, tier)


def planned_tables(session: Session, season_id: int, leave: Collection[int] = ()) -> list[list[PlannedMatch]]:
    """The planned matches of a season (but those of ids in ``leave``), grouped by table, in planning order."""
    seats: dict[int, list[tuple[int, int]]] = {}
    matches = session.execute(core_select(MATCHES.c.id, MATCHES.c.number, MATCHES.c.table, MATCHES.c.seed,
                                          MATCHES.c.rules_id).where(
        MATCHES.c.season_id == season_id, MATCHES.c.status == MatchStatus.PLANNED)).all()
    wanted = [match_id for match_id, *_ in matches if match_id is not None and match_id not in leave]
    for match_id, seat, version_id in session.exec(select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.version_id)
                                                   .where(col(MatchSeat.match_id).in_(wanted))).all():
        seats.setdefault(match_id, []).append((seat, version_id))
    return group_tables([PlannedMatch(match_id, number, table, seed, rules_id,
                                      tuple(v for _, v in sorted(seats.get(match_id, []))))
                         for match_id, number, table, seed, rules_id in matches
                         if match_id is not None and match_id not in leave])


def group_tables(matches: Sequence[PlannedMatch]) -> list[list[PlannedMatch]]:
    """Planned matches grouped by table, in planning order."""
    tables: dict[int, list[PlannedMatch]] = {}
    for match in sorted(matches, key=lambda m: m.number):
        tables.setdefault(match.table, []).append(match)
    return list(tables.values())
