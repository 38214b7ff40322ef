"""The ladder's database (SQLModel): bots and versions, seasons, matches, seats, ratings.

One job a module: ``schema`` (the tables and the schema version), ``columns`` (their column types and the
statuses they store), ``urls`` (what ``--db`` names, and why an SQLite file cannot be used), ``connect``
(``make_engine``), ``migrations`` (upgrading an older schema), ``lock`` (one writer at a time), ``queries`` (reading
rows), ``bulk`` (many rows a statement), ``errors``. Import every name from here: ``from arena.db import X``.

Names are imported lazily (PEP 562, as ``engine`` does): a command that never opens the database (``arena status
--to URL``, ``arena submit --to URL``, an author's client) does not import SQLAlchemy and SQLModel (~0.5 s of CPU
at every start)."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "arena.db.connect": ("make_engine",),
    "arena.db.errors": ("DatabaseError", "one_line"),
    "arena.db.lock": ("ADVISORY_KEY", "exclusive_run"),
    "arena.db.queries": ("SeatedVersion", "active_versions", "author_group", "author_key", "bot_key", "name_key",
                         "played_formats", "prior_means", "seated_versions", "stored_id"),
    "arena.db.bulk": ("execute_many", "table_of", "upsert"),
    "arena.db.schema": ("SCHEMA_VERSION", "AuditFlag", "Author", "Bot", "BotVersion", "Competition",
                        "CompetitionEntry", "Match", "MatchSeat", "Meta", "Rating", "RatingSnapshot", "Season",
                        "SeatLog", "TestRun", "TestRunBot", "TestRunGame", "TestRunPair", "VersionFormat", "now",
                        "source_hash"),
    "arena.db.columns": ("MatchStatus", "SeatStatus"),
    "arena.db.urls": ("DB_ENV", "DEFAULT_DB", "database_url", "driver_url", "shown_url", "sqlite_file_problem"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)

if TYPE_CHECKING:  # explicit re-exports (``X as X``): the names a type checker sees here
    from arena.db.bulk import execute_many as execute_many, table_of as table_of, upsert as upsert
    from arena.db.columns import MatchStatus as MatchStatus, SeatStatus as SeatStatus
    from arena.db.connect import make_engine as make_engine
    from arena.db.errors import DatabaseError as DatabaseError, one_line as one_line
    from arena.db.lock import ADVISORY_KEY as ADVISORY_KEY, exclusive_run as exclusive_run
    from arena.db.queries import (
        SeatedVersion as SeatedVersion, active_versions as active_versions, author_group as author_group,
        author_key as author_key, bot_key as bot_key, name_key as name_key, played_formats as played_formats,
        prior_means as prior_means, seated_versions as seated_versions, stored_id as stored_id,
    )
    from arena.db.schema import (
        SCHEMA_VERSION as SCHEMA_VERSION, AuditFlag as AuditFlag, Author as Author, Bot as Bot,
        BotVersion as BotVersion, Competition as Competition, CompetitionEntry as CompetitionEntry, Match as Match,
        MatchSeat as MatchSeat, Meta as Meta, Rating as Rating, RatingSnapshot as RatingSnapshot, Season as Season,
        SeatLog as SeatLog, TestRun as TestRun, TestRunBot as TestRunBot, TestRunGame as TestRunGame,
        TestRunPair as TestRunPair, VersionFormat as VersionFormat, now as now, source_hash as source_hash,
    )
    from arena.db.urls import (
        DB_ENV as DB_ENV, DEFAULT_DB as DEFAULT_DB, database_url as database_url, driver_url as driver_url,
        shown_url as shown_url, sqlite_file_problem as sqlite_file_problem,
    )


def _load(name: str) -> Any:
    """The exported ``name``, imported from its module the first time it is asked for."""
    module = _WHERE.get(name)
    if module is None:  # a submodule (``arena.db.schema``), as an eager package would have it once imported
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
        raise AttributeError(f"module 'arena.db' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:  # hidden from the type checker, so that it refuses a name arena.db does not export
    __getattr__ = _load
