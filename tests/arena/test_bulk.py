"""arena.db.bulk.execute_many, the coordinator's hot writes handed to the driver in one executemany, stores exactly
what ``connection.execute`` stores, on SQLite and PostgreSQL: the same season planned and recorded both ways leaves
the same rows, value for value as the database holds them."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest
from recording_helpers import made_up_outcome, planned_ladder
from sqlalchemy import Column, Integer, MetaData, String, Table, insert, text
from sqlmodel import Session

from arena.db import make_engine
from arena.db import bulk
from arena.ladder.rankings import load_book
from arena.ladder.recording import record_outcomes

#: the tables a season's planning and recording write, each with the columns that hold the time of the write
WRITTEN = {"match": ("planned_at", "finished_at"), "matchseat": (), "seatlog": (), "ratingsnapshot": (), "rating": (),
           "meta": ()}
STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{6})?$")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def two_urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two fresh databases on one backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'a.sqlite'}", f"sqlite:///{tmp_path / 'b.sqlite'}"
    else:
        server = request.getfixturevalue("postgres")
        yield server.create_database(), server.create_database()


def season_played(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Four bots, three planned tables of four seat-rotated games, recorded with ties, a failed seat (a NUL in its
    detail, which no database column holds) and a log; then every row of the tables written, as the database
    returns it (the times of the writes checked for their form and left out)."""
    engine, matches = planned_ladder(url)
    with Session(engine) as session:
        outcomes = [made_up_outcome(match, k, failed_detail="too\x00slow") for k, match in enumerate(matches)]
        assert record_outcomes(session, load_book(session, "classic"), outcomes) == [True] * 12
    rows: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as connection:
        for table, stamps in WRITTEN.items():
            result = connection.execute(text(f"SELECT * FROM {table} ORDER BY 1, 2"))
            names = list(result.keys())
            kept = [k for k, name in enumerate(names) if name not in stamps]
            rows[table] = []
            for row in result:
                for name in stamps:
                    value = row[names.index(name)]
                    assert value is not None and (not isinstance(value, str) or STAMP.match(value)), (name, value)
                rows[table].append(tuple(row[k] for k in kept))
    engine.dispose()
    return rows


def test_the_hot_writes_store_what_connection_execute_stores(two_urls: tuple[str, str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fast = season_played(two_urls[0])
    assert any(p.sql for p in bulk._PREPARED.values())  # the driver's executemany was used
    with monkeypatch.context() as patch:  # every statement through connection.execute
        patch.setattr(bulk, "_PREPARED", {})
        patch.setattr(bulk, "_prepare", lambda statement, dialect, keys: bulk._Prepared(statement, None))
        plain = season_played(two_urls[1])
    assert fast == plain
    assert len(fast["matchseat"]) == 48 and len(fast["ratingsnapshot"]) == 48 and len(fast["seatlog"]) == 12
    assert {row[-1] for row in fast["rating"]} == {12}  # every version rated in each of the 12 games
    assert sum("too\N{REPLACEMENT CHARACTER}slow" in row for row in fast["matchseat"]) == 12  # the door for text


def test_a_statement_with_a_default_to_compute_goes_through_connection_execute(tmp_path: Path) -> None:
    metadata = MetaData()
    counter = iter(range(100, 200))
    table = Table("t", metadata, Column("id", Integer, primary_key=True), Column("name", String),
                  Column("fixed", String, default="x"), Column("computed", Integer, default=lambda: next(counter)))
    engine = make_engine(f"sqlite:///{tmp_path / 'l.sqlite'}")
    metadata.create_all(engine)
    with_fixed = insert(table).values(computed=7)  # a value of its own: no fast path either
    with engine.begin() as connection:
        bulk.execute_many(connection, insert(table), [{"name": "a"}, {"name": "b"}])
        bulk.execute_many(connection, with_fixed, [{"name": "c", "fixed": "y"}])
        stored = connection.execute(text("SELECT name, fixed, computed FROM t ORDER BY id")).all()
    assert [tuple(row) for row in stored] == [("a", "x", 100), ("b", "x", 101), ("c", "y", 7)]
    engine.dispose()
