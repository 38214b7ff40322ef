"""Many rows in one statement: a row class's table for Core statements, and an upsert of many rows."""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Callable, Mapping, Sequence

from sqlalchemy import Connection, Table, bindparam, insert, inspect, select, update
from sqlalchemy.sql.dml import UpdateBase
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> Table:
    """The table of a row class, for Core statements (many rows in one statement, no row objects)."""
    table = inspect(model).local_table
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__!r} is not mapped to a table")
    return table


@dataclass(frozen=True)
class _Prepared:
    """A statement compiled for one dialect's executemany: its SQL, its parameters in order, what a row leaves out
    (the columns' fixed defaults), and the bind processor of each parameter that has one, by position."""

    statement: UpdateBase
    sql: str | None  # None: the statement goes through ``connection.execute``
    names: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    processors: tuple[tuple[int, Callable[[Any], Any]], ...] = ()


#: by statement (its id: the statements are made once, at import), dialect, driver and parameter style
_PREPARED: dict[tuple[int, str, str, str], _Prepared] = {}


def execute_many(connection: Connection, statement: UpdateBase, rows: Sequence[Mapping[str, Any]]) -> None:
    """``connection.execute(statement, rows)`` for a statement the coordinator runs again and again with many rows:
    compiled once for the dialect, each value converted by its column type's own bind processor (what SQLAlchemy
    would store), a column a row leaves out given its fixed default, then handed to the driver in one executemany
    (``exec_driver_sql``, through the same events), without SQLAlchemy building each row's parameters again
    (docs/benchmarks.md, "The coordinator keeps up with a table's end every millisecond"). A statement with a
    default to compute or a value of its own goes through ``connection.execute``."""
    if not rows:
        return
    dialect = connection.dialect
    key = (id(statement), dialect.name, dialect.driver, dialect.paramstyle)  # the SQL's form is the driver's
    prepared = _PREPARED.get(key)
    if prepared is None or prepared.statement is not statement:
        prepared = _PREPARED[key] = _prepare(statement, dialect, list(rows[0]))
    if prepared.sql is None:
        connection.execute(statement, list(rows))
        return
    if prepared.defaults.keys() - rows[0].keys():
        rows = [{**prepared.defaults, **row} for row in rows]
    names = prepared.names
    values: list[Any] = [(value,) for value in map(itemgetter(*names), rows)] if len(names) == 1 else list(
        map(itemgetter(*names), rows))  # each row's values in the statement's order, in C
    if prepared.processors:
        for k, row_values in enumerate(values):
            converted = list(row_values)
            for index, process in prepared.processors:
                converted[index] = process(converted[index])
            values[k] = tuple(converted)
    if not dialect.positional:
        values = [dict(zip(names, row_values)) for row_values in values]
    connection.exec_driver_sql(prepared.sql, values)


def _prepare(statement: UpdateBase, dialect: Any, keys: list[str]) -> _Prepared:
    # for executemany: no RETURNING of the new row's key, which a single row's INSERT gets on PostgreSQL
    compiled: Any = statement.compile(dialect=dialect, column_keys=keys, for_executemany=True)
    names = tuple(compiled.positiontup or ()) if compiled.positional else tuple(compiled.binds)
    defaults: dict[str, Any] = {}
    for column in getattr(compiled, "insert_prefetch", ()):  # an INSERT's columns left out, with a default
        if column.default is None or not column.default.is_scalar:
            return _Prepared(statement, None)
        defaults[column.key] = column.default.arg
    if (set(names) != set(keys) | set(defaults) or len(names) != len(compiled.binds)
            or getattr(compiled, "escaped_bind_names", None)):
        return _Prepared(statement, None)
    processors = ((k, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
                  for k, name in enumerate(names))
    return _Prepared(statement, compiled.string, names, defaults,
                     tuple((k, process) for k, process in processors if process is not None))


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
        execute_many(connection, statement, values)
        return
    where = [table.c[name] == value for name, value in fixed.items()]
    there = set(connection.execute(select(table.c[key]).where(table.c[key].in_(list(rows)), *where)).scalars())
    if there:
        connection.execute(update(table).where(table.c[key] == bindparam("b_" + key), *where)
                           .values({name: bindparam("b_" + name) for name in columns}),
                           [{"b_" + name: value for name, value in row.items()} for row in values if row[key] in there])
    if len(there) < len(values):
        connection.execute(insert(table), [row for row in values if row[key] not in there])
