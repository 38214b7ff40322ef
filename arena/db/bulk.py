"""Many rows in one statement: a row class's table for Core statements, and an upsert of many rows."""
from __future__ import annotations

from typing import Any, Callable

from sqlalchemy import Connection, Table, bindparam, insert, inspect, select, update
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> Table:
    """The table of a row class, for Core statements (many rows in one statement, no row objects)."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__!r} is not mapped to a table")
    return table


def _upsert_insert(dialect: str) -> Callable[[Table], Any] | None:
    """The dialect's own INSERT with ON CONFLICT, if it has one; imported when first asked (the PostgreSQL
    dialect's modules cost ~50 ms of every command's start, ``bench/cli_start.py``)."""
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert
        return sqlite_insert
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert
        return postgresql_insert
    return None


#: each upsert's statement, made once for its shape (dialect, table, key, fixed columns, columns): a statement
#: built again for every recording cost more CPU than its execution (bench/coordinator.py)
_UPSERT_STATEMENTS: dict[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], Any] = {}


def upsert(connection: Connection, table: Table, fixed: dict[str, Any], key: str,
            rows: dict[Any, dict[str, Any]]) -> None:
    """Write ``rows`` (key value: the other columns) into ``table`` where the ``fixed`` columns have their values
    (``key`` and ``fixed``: the primary key): one ``INSERT ... ON CONFLICT DO UPDATE`` for the lot on SQLite and
    PostgreSQL, else an update of the rows there and an insert of the rest."""
    if not rows:
        return
    values = [{key: k, **fixed, **row} for k, row in rows.items()]
    columns = tuple(next(iter(rows.values())))
    dialect = connection.dialect.name
    shape = (dialect, table.name, key, tuple(fixed), columns)
    statement = _UPSERT_STATEMENTS.get(shape)
    if statement is None and (make := _upsert_insert(dialect)) is not None:
        made = make(table)
        statement = _UPSERT_STATEMENTS[shape] = made.on_conflict_do_update(
            index_elements=[key, *fixed], set_={name: made.excluded[name] for name in columns})
    if statement is not None:
        connection.execute(statement, values)
        return
    where = [table.c[name] == value for name, value in fixed.items()]
    there = set(connection.execute(select(table.c[key]).where(table.c[key].in_(list(rows)), *where)).scalars())
    if there:
        connection.execute(update(table).where(table.c[key] == bindparam("b_" + key), *where)
                           .values({name: bindparam("b_" + name) for name in columns}),
                           [{"b_" + name: value for name, value in row.items()} for row in values if row[key] in there])
    if len(there) < len(values):
        connection.execute(insert(table), [row for row in values if row[key] not in there])
