"""The ladder's database (SQLModel): bots and versions, seasons, matches, seats, ratings."""
from __future__ import annotations

import fcntl
import hashlib
import os
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Optional

from sqlalchemy import UniqueConstraint, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlmodel import Field, Session, SQLModel, create_engine, select

SCHEMA_VERSION = 1
DEFAULT_DB = "sqlite:///arena.sqlite"
DB_ENV = "ARENA_DB"


def now() -> datetime:
    return datetime.now(timezone.utc)


class DatabaseError(RuntimeError):
    """The database cannot be used as asked (bad URL, newer schema, locked by another run)."""


class Meta(SQLModel, table=True):
    key: str = Field(primary_key=True)
    value: str


class Bot(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    author: str = ""
    builtin: bool = False  # a reference bot ("boss") shipped with the arena
    created_at: datetime = Field(default_factory=now)


class BotVersion(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("bot_id", "number"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    number: int
    source: str
    sha256: str = Field(index=True)
    active: bool = True  # only the newest version of a bot is scheduled
    created_at: datetime = Field(default_factory=now)
    prior_mu: float  # the rating a version starts from: its predecessor's mean, fresh uncertainty
    prior_sigma: float
    variants: str = "classic"  # comma list of the rules variants whose smoke game it passed: only those schedule it

    def plays(self, variant: str) -> bool:
        return variant in self.variants.split(",")


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
    seed: int
    created_at: datetime = Field(default_factory=now)
    finished_at: Optional[datetime] = None


class Match(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    number: int  # order of planning within the season
    table: int  # number of the first match of its table: a table's games share one set of bot processes
    seed: int
    rules_id: str
    status: str = Field(default="planned", index=True)  # planned | done | void
    rated_order: Optional[int] = Field(default=None, index=True, unique=True)  # global order of recording
    planned_at: datetime = Field(default_factory=now)
    finished_at: Optional[datetime] = None
    seconds: Optional[float] = None
    void_reason: Optional[str] = None
    replay: Optional[str] = None  # JSON of engine.replay.Replay


class MatchSeat(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("match_id", "seat"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seat: int
    version_id: int = Field(foreign_key="botversion.id", index=True)
    coins: Optional[int] = None
    rank: Optional[int] = None
    status: Optional[str] = None  # ok | timeout | crash | illegal | protocol | disconnect
    detail: str = ""
    decisions: int = 0
    time_ms: float = 0.0


class RatingSnapshot(SQLModel, table=True):
    """A version's rating right after one rated match."""

    id: Optional[int] = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    version_id: int = Field(foreign_key="botversion.id", index=True)
    variant: str
    mu: float
    sigma: float
    games: int


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def make_engine(url: str) -> Engine:
    """An engine for ``url`` with the schema created (or checked) on first use."""
    try:
        engine = create_engine(url, connect_args={"timeout": 30} if url.startswith("sqlite") else {})
    except (ArgumentError, ValueError) as exc:
        raise DatabaseError(f"not a database URL: {url!r} ({exc})") from None
    except ModuleNotFoundError as exc:
        raise DatabaseError(f"no driver for database URL {url!r}: {exc}") from None
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        SQLModel.metadata.create_all(engine)
        _add_missing_columns(engine)
        with Session(engine) as session:
            row = session.get(Meta, "schema_version")
            if row is None:
                session.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
                session.commit()
            elif int(row.value) > SCHEMA_VERSION:
                raise DatabaseError(f"database {url!r} has schema version {row.value}, "
                                    f"newer than this arena's {SCHEMA_VERSION}; upgrade the arena")
    except OperationalError as exc:
        raise DatabaseError(f"cannot open database {url!r}: {exc.orig}") from None
    return engine


def _add_missing_columns(engine: Engine) -> None:
    """Columns added to a table after a database was created (schema version 1, before any release):
    ``botversion.variants``, for which an older database's versions count as classic-only."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("botversion")}
    if "variants" not in columns:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN variants VARCHAR NOT NULL DEFAULT 'classic'"))


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the recording coordinator
    cursor.execute("PRAGMA synchronous=FULL")  # a recorded match survives a power cut
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


@contextmanager
def exclusive_run(engine: Engine, what: str) -> Iterator[None]:
    """Refuse a second writer on the same database (a lock the OS drops if the process dies)."""
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        lock_path = Path(url.database).resolve().with_name(Path(url.database).name + ".lock")
        handle = open(lock_path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise DatabaseError(f"{what} refused: database {url.database!r} is in use by {holder}") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
    elif url.get_backend_name() == "postgresql":
        from sqlalchemy import text

        with engine.connect() as conn:
            got = conn.execute(text("SELECT pg_try_advisory_lock(424242)")).scalar()
            if not got:
                raise DatabaseError(f"{what} refused: the database is in use by another run")
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(424242)"))
    else:
        yield


def active_versions(session: Session, variant: str | None = None) -> list[tuple[Bot, BotVersion]]:
    """The current version of every bot, by bot name; with ``variant``, only those that play it."""
    rows = session.exec(select(Bot, BotVersion).where(BotVersion.bot_id == Bot.id, BotVersion.active == True)  # noqa: E712
                        .order_by(Bot.name)).all()
    return [(bot, version) for bot, version in rows if variant is None or version.plays(variant)]
