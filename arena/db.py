"""The ladder's database (SQLModel): bots and versions, seasons, matches, seats, ratings."""
from __future__ import annotations

import fcntl
import hashlib
import os
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from sqlalchemy import BigInteger, UniqueConstraint, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlmodel import Field, Session, SQLModel, col, create_engine, select

from arena.paths import new_file_refused
from arena.text import storable

SCHEMA_VERSION = 7  # 2: what a version plays and starts from, per format, in VersionFormat rows;
#                    3: why a seat failed (MatchSeat.failure_*); 4: the language a version is written in;
#                    5: `arena test` runs (VersusTest, VersusBot, VersusPair: new tables, made by create_all)
#                    6: the integrity audit's flagged pairs (AuditFlag: a new table, made by create_all)
#                    7: MatchSeat.failure_step counts actions (the replay's step), no longer events
DEFAULT_DB = "sqlite:///arena.sqlite"
DB_ENV = "ARENA_DB"
ADVISORY_KEY = 424242  # PostgreSQL: the lock of the one writer (advisory locks are per database)


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
    language: str = "python"  # sandbox.languages: how the sandbox builds and runs the source
    sha256: str = Field(index=True)
    active: bool = True  # only the newest version of a bot is scheduled
    created_at: datetime = Field(default_factory=now)
    prior_sigma: float  # the uncertainty every version starts from (its means are per format: VersionFormat)


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


class Match(SQLModel, table=True):
    id: Optional[int] = Field(default=None, primary_key=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    number: int  # order of planning within the season
    table: int  # number of the first match of its table: a table's games are played together, every bot afresh in each
    seed: int = Field(sa_type=BigInteger)
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
    # why it failed, for its author (arena.referee.Failure): the request it was answering, the replay
    # step it was asked at, and its own last output on stderr
    failure_request: str = ""
    failure_step: Optional[int] = None
    failure_log: str = ""


class RatingSnapshot(SQLModel, table=True):
    """A version's rating right after one rated match."""

    id: Optional[int] = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    version_id: int = Field(foreign_key="botversion.id", index=True)
    variant: str
    mu: float
    sigma: float
    games: int


class VersusTest(SQLModel, table=True):
    """One `arena test NEW --against OLD`: its settings, and its verdict once it ended (arena/versus.py)."""

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


class VersusBot(SQLModel, table=True):
    """A bot of a test as given and as resolved: role 0 is NEW, 1 OLD, 2.. the field in seat order.
    The source is kept, so that resuming plays the same code."""

    test_id: int = Field(foreign_key="versustest.id", primary_key=True)
    role: int = Field(primary_key=True)
    spec: str  # as the user gave it: built-in name, file path, NAME or NAME@N
    name: str  # as resolved: the built-in's or file's name, NAME@N for a ladder bot
    sha256: str
    source: str
    language: str = "python"  # sandbox.languages


class VersusPair(SQLModel, table=True):
    """One counted pair of a test, in the order it was counted: its two deal scores for NEW (0, 0.5, 1)."""

    __table_args__ = (UniqueConstraint("test_id", "number"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="versustest.id", index=True)
    number: int  # 0, 1, 2, ... in counting order
    first: float
    second: float
    recorded_at: datetime = Field(default_factory=now)


class AuditFlag(SQLModel, table=True):
    """A pair of bots the integrity audit flagged (arena/audit.py): never seated together while the
    flag stands; ``arena audit clear A B`` clears it, and only games after ``cleared_after`` (a match
    id) can flag the pair again."""

    id: Optional[int] = Field(default=None, primary_key=True)
    bot_a: int = Field(foreign_key="bot.id", index=True)  # the pair in name order
    bot_b: int = Field(foreign_key="bot.id", index=True)
    flagged_at: datetime = Field(default_factory=now)
    scope: str  # what was audited: "variant classic", "season spring"
    evidence: str  # the finding's JSON (arena.audit.PairFinding.to_json)
    cleared_at: Optional[datetime] = None
    cleared_after: Optional[int] = None  # the last match id when it was cleared


def author_group(bot: Bot) -> str | None:
    """Bots of one author never share a table (they could play as a team); built-in bots are ours."""
    author = " ".join(bot.author.split()).casefold()
    return None if bot.builtin or not author else author


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def driver_url(url: str) -> str:
    """``url`` with a driver this arena installs: plain ``postgresql://`` means psycopg (version 3)."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def shown_url(url: str) -> str:
    """``url`` as error messages show it: the password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):
        return url


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def database_url(value: str) -> str:
    """What ``--db`` / ``$ARENA_DB`` name: a URL, or a plain file path meaning an SQLite file there."""
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


def sqlite_file_problem(url: str) -> str | None:
    """Why the SQLite file of ``url`` cannot be opened or made, said plainly (None if it can, or if
    ``url`` is not a file database). ``sqlite:///x`` is relative to the working folder, ``sqlite:////x`` absolute."""
    name = make_url(url).database if url.startswith("sqlite") else None
    if not name or name == ":memory:":
        return None
    path = Path(name)
    where = path if path.is_absolute() else Path.cwd() / path
    how = ("" if path.is_absolute() or url == DEFAULT_DB else
           f" ({url!r} is relative to the working folder {str(Path.cwd())!r}; 'sqlite:////…', four slashes, is an absolute path)")
    if where.is_dir():
        return f"the database {str(where)!r} is a folder, not a file{how}"
    folder = where.parent
    if not folder.is_dir():
        return f"cannot create the database {str(where)!r}: the folder {str(folder)!r} does not exist{how}"
    refused = new_file_refused(folder)  # SQLite writes its journal (and the season lock) beside the file
    if refused is not None:
        what = "the database file is there, but" if where.exists() else f"cannot create the database {str(where)!r}:"
        return (f"{what} the folder {str(folder)!r} is not writable ({refused}); "
                f"choose another with --db or ${DB_ENV}{how}")
    if where.exists() and not os.access(where, os.R_OK | os.W_OK):
        return f"the database file {str(where)!r} is not readable and writable{how}"
    return None


def make_engine(url: str, on_upgrade: Callable[[int, int], object] | None = None) -> Engine:
    """An engine for ``url`` (SQLite or PostgreSQL) with the schema created (or checked) on first use;
    ``on_upgrade(old, new)`` is told when an older schema was upgraded."""
    url = database_url(url)
    shown = shown_url(url)
    try:
        problem = sqlite_file_problem(url)
    except (ArgumentError, ValueError) as exc:
        raise DatabaseError(f"not a database URL: {shown!r} ({one_line(exc)})") from None
    if problem is not None:
        raise DatabaseError(problem)
    try:
        if url.startswith("sqlite"):
            engine = create_engine(url, connect_args={"timeout": 30})
        else:
            engine = create_engine(driver_url(url), pool_pre_ping=True,
                                   connect_args={"application_name": f"arena pid {os.getpid()}"}
                                   if url.startswith(("postgresql", "postgres:")) else {})
    except (ArgumentError, ValueError) as exc:
        raise DatabaseError(f"not a database URL: {shown!r} ({one_line(exc)})") from None
    except ModuleNotFoundError as exc:
        extra = " (pip install 'bohnanza-arena[postgres]')" if "psycopg" in str(exc) else ""
        raise DatabaseError(f"no driver for database URL {shown!r}: {exc}{extra}") from None
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "before_cursor_execute", _storable_parameters, retval=True)
    try:
        SQLModel.metadata.create_all(engine)
        with Session(engine) as session:
            row = session.get(Meta, "schema_version")
            version = SCHEMA_VERSION if row is None else int(row.value)
        if version > SCHEMA_VERSION:
            raise DatabaseError(f"database {shown!r} has schema version {version}, "
                                f"newer than this arena's {SCHEMA_VERSION}; upgrade the arena")
        if version < 2:
            _upgrade_to_2(engine)
        if version < 3:
            _upgrade_to_3(engine)
        if version < 4:
            _upgrade_to_4(engine)
        if version < 7:
            _upgrade_to_7(engine)
        with Session(engine) as session:
            row = session.get(Meta, "schema_version") or Meta(key="schema_version", value="")
            if row.value != str(SCHEMA_VERSION):
                row.value = str(SCHEMA_VERSION)
                session.add(row)
                session.commit()
        if version < SCHEMA_VERSION and on_upgrade is not None:
            on_upgrade(version, SCHEMA_VERSION)
    except (OperationalError, DBAPIError) as exc:
        raise DatabaseError(f"cannot open database {shown!r}: {one_line(exc.orig or exc)}") from None
    return engine


def _upgrade_to_2(engine: Engine) -> None:
    """Schema 1 -> 2, in one transaction: the formats a version plays and its starting means, kept in
    ``botversion`` as the texts ``variants`` ("classic,duel") and ``priors`` ("classic=31.2;duel=24.0",
    else ``prior_mu`` everywhere), become ``versionformat`` rows, and those columns go. Schema 1 gained
    columns during its life (``variants``, ``priors``, ``season.closed_at``): an older file lacks them,
    which means classic only, ``prior_mu`` in every format, and open seasons."""
    from sqlalchemy import inspect, text

    inspector = inspect(engine)
    columns = {c["name"] for c in inspector.get_columns("botversion")}
    season_columns = {c["name"] for c in inspector.get_columns("season")}
    with engine.begin() as conn:
        if "closed_at" not in season_columns:
            conn.execute(text("ALTER TABLE season ADD COLUMN closed_at TIMESTAMP NULL"))
        if "prior_mu" not in columns:
            return  # made by schema 2 already (a database whose version row was lost)
        pick = ", ".join(["id", "prior_mu", "variants" if "variants" in columns else "'classic'",
                          "priors" if "priors" in columns else "''"])
        known = ("classic", "duel", "solo")  # every format schema 1 knew: a row for each, as register() makes
        for version_id, prior_mu, variants, priors in conn.execute(text(f"SELECT {pick} FROM botversion")).all():
            plays = set(filter(None, variants.split(",")))
            means = dict(item.partition("=")[::2] for item in filter(None, priors.split(";")))
            for variant in sorted(set(known) | plays | set(means)):
                conn.execute(text("INSERT INTO versionformat (version_id, variant, plays, prior_mu) "
                                  "VALUES (:v, :f, :p, :mu)"),
                             {"v": version_id, "f": variant, "p": variant in plays,
                              "mu": float(means.get(variant, prior_mu))})
        for column in ("prior_mu", "variants", "priors"):
            if column in columns:
                conn.execute(text(f"ALTER TABLE botversion DROP COLUMN {column}"))
        conn.execute(text("UPDATE meta SET value = '2' WHERE key = 'schema_version'"))


def _upgrade_to_3(engine: Engine) -> None:
    """Schema 2 -> 3: the failure evidence of a seat (empty for the games recorded before)."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("matchseat")}
    added = {"failure_request": "VARCHAR NOT NULL DEFAULT ''", "failure_step": "INTEGER NULL",
             "failure_log": "VARCHAR NOT NULL DEFAULT ''"}
    with engine.begin() as conn:
        for column, kind in added.items():
            if column not in columns:
                conn.execute(text(f"ALTER TABLE matchseat ADD COLUMN {column} {kind}"))
        conn.execute(text("UPDATE meta SET value = '3' WHERE key = 'schema_version'"))


def _upgrade_to_4(engine: Engine) -> None:
    """Schema 3 -> 4: the language of a version (every version stored before is Python)."""
    from sqlalchemy import inspect, text

    columns = {c["name"] for c in inspect(engine).get_columns("botversion")}
    with engine.begin() as conn:
        if "language" not in columns:
            conn.execute(text("ALTER TABLE botversion ADD COLUMN language VARCHAR NOT NULL DEFAULT 'python'"))
        conn.execute(text("UPDATE meta SET value = '4' WHERE key = 'schema_version'"))


def _upgrade_to_7(engine: Engine) -> None:
    """Schema 6 -> 7: a failed seat's ``failure_step`` becomes the replay's step (actions played, the
    one numbering of engine/spectator.py) instead of the number of events before the request."""
    from sqlalchemy import text

    from engine.replay import Replay
    from engine.spectator import step_after_events

    with engine.begin() as conn:
        rows = conn.execute(text("SELECT matchseat.id, matchseat.failure_step, \"match\".replay FROM matchseat "
                                 "JOIN \"match\" ON \"match\".id = matchseat.match_id "
                                 "WHERE matchseat.failure_step IS NOT NULL")).all()
        for seat_id, events, replay in rows:
            try:
                step = step_after_events(Replay.loads(replay), int(events)) if replay else None
            except ValueError:  # a replay this arena cannot play again: the position is unknown
                step = None
            conn.execute(text("UPDATE matchseat SET failure_step = :s WHERE id = :i"), {"s": step, "i": seat_id})
        conn.execute(text("UPDATE meta SET value = '7' WHERE key = 'schema_version'"))


def _storable_parameters(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
                         executemany: bool) -> tuple[str, Any]:
    """Every text a statement writes, as the database can hold it (``arena.text.storable``): the one
    door through which a bot's failure log, a replay, a name or a source reaches SQLite or PostgreSQL."""
    return statement, _storable(parameters)


def _storable(value: Any) -> Any:
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {key: _storable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_storable(item) for item in value)
    return value


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

        # a session-level advisory lock, held by one connection for the whole run; autocommit keeps
        # that connection from sitting idle in a transaction. The server drops it if the process dies.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            got = conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": ADVISORY_KEY}).scalar()
            if not got:
                user = conn.execute(text(
                    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE l.locktype = 'advisory' AND l.granted AND l.database = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database()) AND l.objid = :key"),
                    {"key": ADVISORY_KEY}).scalar()
                raise DatabaseError(f"{what} refused: database {url.database!r} is in use by "
                                    f"{user or 'another run'}")
            try:
                yield
            finally:
                try:
                    conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_KEY})
                except DBAPIError:
                    pass  # a lost connection holds no lock
    else:
        yield


def stored_id(row: Any) -> int:
    """The id of a row that is in the database (SQLModel types ids as optional until a row is stored)."""
    if row.id is None:
        raise DatabaseError(f"{type(row).__name__} has no id: it was never stored")
    return int(row.id)


def active_versions(session: Session, variant: str | None = None) -> list[tuple[Bot, BotVersion]]:
    """The current version of every bot, by bot name; with ``variant``, only those that play it."""
    rows = session.exec(select(Bot, BotVersion).where(BotVersion.bot_id == Bot.id, BotVersion.active == True)  # noqa: E712
                        .order_by(col(Bot.name))).all()
    if variant is None:
        return list(rows)
    playing = set(session.exec(select(VersionFormat.version_id).where(
        VersionFormat.variant == variant, VersionFormat.plays == True)).all())  # noqa: E712
    return [(bot, version) for bot, version in rows if version.id in playing]


def prior_means(session: Session, variant: str) -> dict[int, float]:
    """The mean each version starts from in ``variant`` (versions without a row start from the default)."""
    return dict(session.exec(select(VersionFormat.version_id, VersionFormat.prior_mu)
                             .where(VersionFormat.variant == variant)).all())


def played_formats(session: Session, version_id: int) -> list[str]:
    """The formats a version plays, in no particular order."""
    return list(session.exec(select(VersionFormat.variant).where(
        VersionFormat.version_id == version_id, VersionFormat.plays == True)).all())  # noqa: E712
