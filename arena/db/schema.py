"""The tables of the ladder (SQLModel): bots and versions, seasons, matches, seats, ratings, `arena test`
runs and audit flags, and the schema version they make."""
from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Optional

from sqlalchemy import BigInteger, UniqueConstraint
from sqlmodel import Field, SQLModel

from arena.db.columns import CompressedText, MatchStatus, SeatStatus, TextEnum

SCHEMA_VERSION = 17  # 2: what a version plays and starts from, per format, in VersionFormat rows;
#                    3: why a seat failed (MatchSeat.failure_*); 4: the language a version is written in;
#                    5: `arena test` runs (TestRun, TestRunBot, TestRunPair: new tables, made by create_all)
#                    6: the integrity audit's flagged pairs (AuditFlag: a new table, made by create_all)
#                    7: MatchSeat.failure_step counts actions (the replay's step), no longer events
#                    8: Match.replay stored compressed (CompressedText: bytes; a game's record ~15x smaller)
#                    9: author accounts (Author: a new table; the free-text authors of older bots become
#                       accounts without a token) and BotVersion.by_operator
#                   10: the living ladder: Season.live, BotVersion.paused (a sick version's probation) and
#                       every seat's own standard error for its owner (SeatLog: a new table, made by create_all)
#                   11: AuditFlag.confirmed_at (`arena audit confirm A B`: the flag stands for good, its giver retired)
#                   12: one ticket per author: BotVersion.program_sha256 (arena/submissions/programs.py)
#                       and Author.removed_at
#                       (a removed account's name stays reserved)
#                   13: Match.flows, the audit's trade flows counted as the game was played (None: an older
#                       record, played again by the audit)
#                   14: competitions (Competition, CompetitionEntry: new tables, made by create_all)
#                   15: the games of every counted `arena test` pair (TestRunGame: a new table, made by create_all)
#                   16: every program hash computed again (an f-string is one string on every Python: a database
#                       made under Python 3.12 hashed its parts)
#                   17: BotVersion.inherits_after, where a version took its predecessor's means (arena/ladder/
#                       inheritance.py; None for a version stored before: it keeps the means it was stored with)


def now() -> datetime:
    return datetime.now(timezone.utc)


class Meta(SQLModel, table=True):
    key: str = Field(primary_key=True)
    value: str


class Author(SQLModel, table=True):
    """An author's account (arena/submissions/accounts.py): the bots it first submitted are its own. The token is kept
    only as its hash; an account made from an older database's free-text author has none until rotated."""

    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    key: str = Field(unique=True)  # the name as bots are grouped by it: spaces collapsed, case folded
    token_hash: Optional[str] = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=now)
    # `arena authors remove`: the account is gone (no token), its name reserved so that nobody inherits its bots
    removed_at: Optional[datetime] = None


class Bot(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    author: str = ""  # its owner's account name (Author.name); empty for a bot submitted without one
    builtin: bool = False  # a reference bot ("boss") shipped with the arena
    created_at: datetime = Field(default_factory=now)


class BotVersion(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("bot_id", "number"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    number: int
    source: str
    language: str = "python"  # sandbox.languages: how the sandbox builds and runs the source
    sha256: str = Field(index=True)
    # the program without comments, docstrings and layout (arena.submissions.programs.program_hash): copies are refused
    program_sha256: str = Field(default="", index=True)
    active: bool = True  # only the newest version of a bot is scheduled
    by_operator: bool = False  # stored by the operator on the owner's behalf (`arena submit --operator`)
    # why a live season stopped seating it (failed every one of its latest games), when; None while it plays
    paused: Optional[str] = None
    paused_at: Optional[datetime] = None
    created_at: datetime = Field(default_factory=now)
    prior_sigma: float  # the uncertainty every version starts from (its means are per format: VersionFormat)
    # the last game recorded (Match.rated_order, 0: none yet) when it took its predecessor's means; None for a first
    # version: a recompute of the ratings takes the means again there (arena/ladder/inheritance.py)
    inherits_after: Optional[int] = None


class VersionFormat(SQLModel, table=True):
    """One format for one version: whether it plays there (its smoke game passed) and the mean it
    starts from there (its predecessor's mean, or the default for a first version)."""

    version_id: int = Field(foreign_key="botversion.id", primary_key=True)
    variant: str = Field(primary_key=True)
    plays: bool = True
    prior_mu: float


class Rating(SQLModel, table=True):
    """Current rating of a version in one variant; always equal to a replay of the snapshots."""

    version_id: int = Field(foreign_key="botversion.id", primary_key=True)
    variant: str = Field(primary_key=True)
    mu: float
    sigma: float
    games: int = 0


class Season(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    variant: str
    games: int  # matches planned in all
    min_players: int
    max_players: int
    rotate: bool = False  # play each deal once per seat rotation
    seed: int = Field(sa_type=BigInteger)  # 63 bits: PostgreSQL's INTEGER has 32
    created_at: datetime = Field(default_factory=now)
    finished_at: Optional[datetime] = None
    closed_at: Optional[datetime] = None  # `arena season close`: no more games; shared deals may be published
    live: bool = False  # `season run --live`: plays until stopped, ``games`` grows with what it planned


class Match(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    number: int  # order of planning within the season
    table: int  # number of the first match of its table: a table's games are played together, every bot afresh in each
    seed: int = Field(sa_type=BigInteger)
    rules_id: str
    status: MatchStatus = Field(default=MatchStatus.PLANNED, sa_type=TextEnum(MatchStatus), index=True)
    rated_order: Optional[int] = Field(default=None, index=True, unique=True)  # global order of recording
    planned_at: datetime = Field(default_factory=now)
    finished_at: Optional[datetime] = None
    seconds: Optional[float] = None
    void_reason: Optional[str] = None
    replay: Optional[str] = Field(default=None, sa_type=CompressedText)  # JSON of engine.replay.Replay
    flows: Optional[str] = None  # arena.audit.stats.TradeFlows.to_json(); None: the audit plays the replay again


class MatchSeat(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("match_id", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seat: int
    version_id: int = Field(foreign_key="botversion.id", index=True)
    coins: Optional[int] = None
    rank: Optional[int] = None
    status: Optional[SeatStatus] = Field(default=None, sa_type=TextEnum(SeatStatus))  # None until played
    detail: str = ""
    decisions: int = 0
    time_ms: float = 0.0
    # why it failed, for its author (arena.play.records.Failure): the request it was answering, the replay
    # step it was asked at, and its own last output on stderr
    failure_request: str = ""
    failure_step: Optional[int] = None
    failure_log: str = ""


class SeatLog(SQLModel, table=True):
    """A seat's own standard error in one game, capped, for its owner only (never on the public site): kept
    for a version's latest games only (arena/ladder/seat_logs.py), so that the database grows only by games."""

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    seat: int = Field(primary_key=True)
    version_id: int = Field(foreign_key="botversion.id", index=True)
    text: str = Field(sa_type=CompressedText)


class RatingSnapshot(SQLModel, table=True):
    """A version's rating right after one rated match."""

    id: Optional[int] = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    version_id: int = Field(foreign_key="botversion.id", index=True)
    variant: str
    mu: float
    sigma: float
    games: int


class TestRun(SQLModel, table=True):
    """One `arena test NEW --against OLD`: its settings, and its verdict once it ended (arena/testrun/run.py)."""

    # The tables keep the names of the feature's first version (``versustest``, ``versusbot``, ``versuspair``),
    # so that an existing database needs no migration for the rename.
    __tablename__ = "versustest"
    __test__ = False  # a row, not a test class for pytest

    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    variant: str  # the format its games are played in
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_pairs: int
    void: int = 0  # pairs lost to a machine fault (not counted)
    created_at: datetime = Field(default_factory=now)
    finished_at: Optional[datetime] = None
    verdict: Optional[str] = None  # H1 | H0 | None (undecided once finished: MAX-PAIRS reached)


class TestRunBot(SQLModel, table=True):
    """A bot of a test as given and as resolved: role 0 is NEW, 1 OLD, 2.. the field in seat order.
    The source is kept, so that resuming plays the same code."""

    __tablename__ = "versusbot"  # the name before the rename (TestRun)
    __test__ = False

    test_id: int = Field(foreign_key="versustest.id", primary_key=True)
    role: int = Field(primary_key=True)
    spec: str  # as the user gave it: built-in name, file path, NAME or NAME@N
    name: str  # as resolved: the built-in's or file's name, NAME@N for a ladder bot
    sha256: str
    source: str
    language: str = "python"  # sandbox.languages


class TestRunPair(SQLModel, table=True):
    """One counted pair of a test, in the order it was counted: its two deal scores for NEW (0, 0.5, 1)."""

    __tablename__ = "versuspair"  # the name before the rename (TestRun)
    __test__ = False
    __table_args__ = (UniqueConstraint("test_id", "number"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="versustest.id", index=True)
    number: int  # 0, 1, 2, ... in counting order
    first: float
    second: float
    recorded_at: datetime = Field(default_factory=now)


class TestRunGame(SQLModel, table=True):
    """One game of a counted pair of a test (stored with its pair, in the same transaction): who sat where, the
    deal, how each seat ended, and the referee's replay, so that the site shows it as it shows a season's game."""

    __test__ = False
    __table_args__ = (UniqueConstraint("test_id", "pair", "game"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="versustest.id", index=True)
    pair: int  # the pair's number (TestRunPair.number)
    game: int  # 0, 1, ... in the pair's order (arena.testrun.run.pair_games, duel_games)
    deal: int  # 0 or 1: which of the pair's deals (both games of a duel play deal 0)
    seed: int = Field(sa_type=BigInteger)  # the deck seed (a fresh random deal, never a ladder's)
    seats: str  # JSON: each seat's role, gold, rank, status and failure step (arena.testrun.store.GameSeat)
    seconds: float
    replay: str = Field(sa_type=CompressedText)  # JSON of engine.replay.Replay


class AuditFlag(SQLModel, table=True):
    """A pair of bots the integrity audit flagged (arena/audit/stats.py): never seated together, and the games they
    shared not rated (arena/audit/flag_games.py), while the flag stands or once it is confirmed; ``arena audit clear
    A B`` clears it, and only games after ``cleared_after`` (a match id) can flag the pair again."""

    id: Optional[int] = Field(default=None, primary_key=True)
    bot_a: int = Field(foreign_key="bot.id", index=True)  # the pair in name order
    bot_b: int = Field(foreign_key="bot.id", index=True)
    flagged_at: datetime = Field(default_factory=now)
    scope: str  # what was audited: "variant classic", "season spring"
    evidence: str  # the finding's JSON (arena.audit.stats.PairFinding.to_json)
    cleared_at: Optional[datetime] = None
    cleared_after: Optional[int] = None  # the last match id when it was cleared
    # `arena audit confirm A B`: the operator upheld it; its shared games stay out of the ratings for good
    confirmed_at: Optional[datetime] = None


class Competition(SQLModel, table=True):
    """A competition (arena/competition/): the open ladder of a format until ``deadline``, then a final among the
    ``finalists`` best entries, played as a season of its own (``season_id``) and ranked apart from the ladder."""

    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    variant: str
    deadline: datetime
    finalists: int
    final_games: int  # at least this many games in the final (deals per finalist in a same-deals format)
    created_at: datetime = Field(default_factory=now)
    frozen_at: Optional[datetime] = None  # when its entries were stored (the first look after the deadline)
    season_id: Optional[int] = Field(default=None, foreign_key="season.id")  # the final, once started
    kept_apart: str = ""  # JSON: the finalists' pairs the audit had flagged, never seated together in the final
    closed_at: Optional[datetime] = None  # `arena competition close`: the result stands, same deals are shown


class CompetitionEntry(SQLModel, table=True):
    """One bot's entry: its version current at the deadline and where the ladder had it then."""

    competition_id: int = Field(foreign_key="competition.id", primary_key=True)
    version_id: int = Field(foreign_key="botversion.id", primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    place: int  # 1 for the best on the ladder at the deadline
    score: float  # what the ladder ranked it by then (mu - 3 sigma, or the win rate)
    games: int  # its ladder games by then
    finalist: bool = False


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()
