"""Many rows in one statement: a row class's table for Core statements, and an upsert of many rows."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Table, bindparam, insert, inspect, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> Table:
    """The table of a row class, for Core statements (many rows in one statement, no row objects)."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__!r} is not mapped to a table")
    return table


def upsert(connection: Connection, table: Table, fixed: dict[str, Any], key: str,
            rows: dict[Any, dict[str, Any]]) -> None:
    """Write ``rows`` (key value: the other columns) into ``table`` where the ``fixed`` columns have their values
    (``key`` and ``fixed``: the primary key): one ``INSERT ... ON CONFLICT DO UPDATE`` for the lot on SQLite and
    PostgreSQL, else an update of the rows there and an insert of the rest."""
    if not rows:
        return
    values = [{key: k, **fixed, **row} for k, row in rows.items()]
    columns = list(next(iter(rows.values())))
    if connection.dialect.name == "sqlite":
        lite = sqlite_insert(table)
        connection.execute(lite.on_conflict_do_update(index_elements=[key, *fixed],
                                                      set_={name: lite.excluded[name] for name in columns}), values)
        return
    if connection.dialect.name == "postgresql":
        pg = postgresql_insert(table)
        connection.execute(pg.on_conflict_do_update(index_elements=[key, *fixed],
                                                    set_={name: pg.excluded[name] for name in columns}), values)
        return
    where = [table.c[name] == value for name, value in fixed.items()]
    there = set(connection.execute(select(table.c[key]).where(table.c[key].in_(list(rows)), *where)).scalars())
    if there:
        connection.execute(update(table).where(table.c[key] == bindparam("b_" + key), *where)
                           .values({name: bindparam("b_" + name) for name in columns}),
                           [{"b_" + name: value for name, value in row.items()} for row in values if row[key] in there])
    if len(there) < len(values):
        connection.execute(insert(table), [row for row in values if row[key] not in there])
