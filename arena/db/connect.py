"""An engine for a database URL, with the schema made, checked or upgraded, and the hooks every
connection and statement passes."""
from __future__ import annotations

import os
from typing import Any, Callable

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlmodel import Session, SQLModel, create_engine

from arena.db.errors import DatabaseError, one_line
from arena.db.migrations import (_upgrade_to_2, _upgrade_to_3, _upgrade_to_4, _upgrade_to_7, _upgrade_to_8,
                                 _upgrade_to_9, _upgrade_to_10, _upgrade_to_11_confirmed_flags, _upgrade_to_12_tickets,
                                 _upgrade_to_13_flows, _upgrade_to_14_competitions,
                                 _upgrade_to_15_test_games, _upgrade_to_16_program_hashes,
                                 _upgrade_to_17_inheritance)
from arena.db.schema import SCHEMA_VERSION, Meta
from arena.db.urls import database_url, driver_url, shown_url, sqlite_file_problem
from arena.text import storable


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
        for reached, upgrade in UPGRADES:
            if version < reached:
                upgrade(engine)
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


#: each upgrade, in order, with the schema version it reaches (5 and 6 only added tables: ``create_all``)
UPGRADES: tuple[tuple[int, Callable[[Engine], None]], ...] = (
    (2, _upgrade_to_2), (3, _upgrade_to_3), (4, _upgrade_to_4), (7, _upgrade_to_7), (8, _upgrade_to_8),
    (9, _upgrade_to_9), (10, _upgrade_to_10), (11, _upgrade_to_11_confirmed_flags), (12, _upgrade_to_12_tickets),
    (13, _upgrade_to_13_flows), (14, _upgrade_to_14_competitions),
    (15, _upgrade_to_15_test_games), (16, _upgrade_to_16_program_hashes),
    (17, _upgrade_to_17_inheritance))


def _storable_parameters(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
                         executemany: bool) -> tuple[str, Any]:
    """Every text a statement writes, as the database can hold it (``arena.text.storable``): the one
    door through which a bot's failure log, a replay, a name or a source reaches SQLite or PostgreSQL."""
    return statement, _storable(parameters)


_HOLDS_TEXT = (str, dict, list, tuple)


def _plain_rows(rows: list[Any]) -> bool:
    """Whether many rows' texts are all ASCII without a NUL (what a coordinator's rows are), checked in one pass
    over their values rather than a call a row: False where one may need a change or holds a container."""
    kind = type(rows[0])
    if (kind is not tuple and kind is not dict) or not all(type(row) is kind for row in rows):
        return False
    texts: list[Any] = [item for row in rows for item in (row.values() if kind is dict else row)
                        if isinstance(item, _HOLDS_TEXT)]
    try:
        joined = "".join(texts)
    except TypeError:  # a container among the values
        return False
    return joined.isascii() and "\x00" not in joined


def _storable(value: Any) -> Any:
    if type(value) is list and value and _plain_rows(value):
        return value
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {key: _storable(item) if isinstance(item, _HOLDS_TEXT) else item for key, item in value.items()}
    if isinstance(value, (list, tuple)):  # many rows a statement: a number is passed as it is, with no call
        return type(value)([_storable(item) if isinstance(item, _HOLDS_TEXT) else item for item in value])
    return value


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the recording coordinator
    cursor.execute("PRAGMA synchronous=FULL")  # a recorded match survives a power cut
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
