"""The ladder's database (SQLModel): bots and versions, seasons, matches, seats, ratings.

One job a module: ``schema`` (the tables and the schema version), ``values`` (the statuses they store),
``urls`` (what ``--db`` names, and why an SQLite file cannot be used), ``connect`` (``make_engine``),
``migrations`` (upgrading an older schema), ``lock`` (one writer at a time), ``queries`` (reading rows), ``bulk``
(many rows a statement),
``errors``. Import every name from here: ``from arena.db import X``."""
from __future__ import annotations

from arena.db.connect import make_engine
from arena.db.errors import DatabaseError, one_line
from arena.db.lock import ADVISORY_KEY, exclusive_run
from arena.db.queries import (SeatedVersion, active_versions, author_group, author_key, bot_key, name_key,
                              played_formats, prior_means, seated_versions, stored_id)
from arena.db.bulk import table_of, upsert
from arena.db.schema import (SCHEMA_VERSION, AuditFlag, Author, Bot, BotVersion, Competition, CompetitionEntry,
                             Match, MatchSeat, Meta, Rating, RatingSnapshot, Season, SeatLog, TestRun, TestRunBot,
                             TestRunGame, TestRunPair, VersionFormat, now, source_hash)
from arena.db.columns import MatchStatus, SeatStatus
from arena.db.urls import DB_ENV, DEFAULT_DB, database_url, driver_url, shown_url, sqlite_file_problem

__all__ = [
    "ADVISORY_KEY", "DB_ENV", "DEFAULT_DB", "SCHEMA_VERSION",
    "AuditFlag", "Author", "Bot", "BotVersion", "Competition", "CompetitionEntry", "DatabaseError", "Match",
    "MatchSeat", "MatchStatus", "Meta",
    "Rating", "RatingSnapshot", "Season", "SeatLog", "SeatStatus", "TestRun", "TestRunBot", "TestRunGame",
    "SeatedVersion", "TestRunPair",
    "VersionFormat",
    "active_versions", "author_group", "author_key", "bot_key", "database_url", "driver_url", "exclusive_run",
    "make_engine", "name_key", "now", "one_line", "played_formats", "prior_means", "seated_versions", "shown_url",
    "source_hash", "sqlite_file_problem", "stored_id", "table_of", "upsert",
]
