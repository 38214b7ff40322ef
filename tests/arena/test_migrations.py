"""Upgrading a database of an older schema, on SQLite and PostgreSQL: schema 1 kept what a version
plays and its starting means as texts in ``botversion`` (``variants`` "classic,duel", ``priors``
"classic=31.5;duel=20.0", else ``prior_mu`` in every format); schema 2 keeps them in ``versionformat``
rows. The test makes a schema-2 database, turns it back into schema 1 with the statements the old
arena ran, and opens it with this arena."""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlmodel import Session, select

from arena.db import SCHEMA_VERSION, Bot, BotVersion, DatabaseError, Meta, VersionFormat, make_engine, prior_means
from arena.ladder import leaderboard


def as_schema_1(url: str) -> None:
    """A database as the schema-1 arena left it: three versions, one with per-format means, one with
    only ``prior_mu``, one from before ``variants`` and ``priors`` existed (classic only)."""
    engine = make_engine(url)
    with Session(engine) as session:
        for name in ("both", "old", "oldest"):
            bot = Bot(name=name)
            session.add(bot)
            session.flush()
            session.add(BotVersion(bot_id=bot.id, number=1, source=name, sha256=name.ljust(64, "0"), prior_sigma=2.0))
        session.commit()
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE versionformat"))
        conn.execute(text("ALTER TABLE botversion ADD COLUMN prior_mu FLOAT NOT NULL DEFAULT 25.0"))
        conn.execute(text("ALTER TABLE botversion ADD COLUMN variants VARCHAR NOT NULL DEFAULT 'classic'"))
        conn.execute(text("ALTER TABLE botversion ADD COLUMN priors VARCHAR NOT NULL DEFAULT ''"))
        conn.execute(text("UPDATE botversion SET prior_mu = 31.0, variants = 'classic,duel', "
                          "priors = 'classic=31.5;duel=20.0' WHERE source = 'both'"))
        conn.execute(text("UPDATE botversion SET prior_mu = 28.0, variants = 'classic,solo' WHERE source = 'old'"))
        conn.execute(text("UPDATE meta SET value = '1' WHERE key = 'schema_version'"))
    columns = {c["name"] for c in inspect(engine).get_columns("botversion")}
    engine.dispose()
    assert {"prior_mu", "variants", "priors"} <= columns


def check_upgraded(url: str) -> None:
    engine = make_engine(url)
    with Session(engine) as session:
        assert session.get(Meta, "schema_version").value == str(SCHEMA_VERSION) == "2"  # type: ignore[union-attr]
        ids = {b.name: session.exec(select(BotVersion.id).where(BotVersion.bot_id == b.id)).one()
               for b in session.exec(select(Bot)).all()}
        plays = {(row.version_id, row.variant) for row in session.exec(select(VersionFormat)).all() if row.plays}
        assert plays == {(ids["both"], "classic"), (ids["both"], "duel"), (ids["old"], "classic"),
                         (ids["old"], "solo"), (ids["oldest"], "classic")}
        assert prior_means(session, "classic") == {ids["both"]: 31.5, ids["old"]: 28.0, ids["oldest"]: 25.0}
        assert prior_means(session, "duel") == {ids["both"]: 20.0, ids["old"]: 28.0, ids["oldest"]: 25.0}
        board = leaderboard(session, "classic")
        assert [(r.name, r.mu) for r in board] == [("both", 31.5), ("old", 28.0), ("oldest", 25.0)]
        assert [r.name for r in leaderboard(session, "duel")] == ["both"]
    assert not {"prior_mu", "variants", "priors"} & {c["name"] for c in inspect(engine).get_columns("botversion")}
    engine.dispose()
    make_engine(url).dispose()  # opening it again changes nothing


def test_a_schema_1_sqlite_database_is_upgraded(db: Path) -> None:
    url = f"sqlite:///{db}"
    as_schema_1(url)
    check_upgraded(url)


def test_a_schema_1_postgresql_database_is_upgraded(pg_url: str) -> None:
    as_schema_1(pg_url)
    check_upgraded(pg_url)


def test_a_newer_schema_is_refused_and_left_alone(db: Path) -> None:
    url = f"sqlite:///{db}"
    make_engine(url).dispose()
    engine = make_engine(url)
    with Session(engine) as session:
        row = session.get(Meta, "schema_version")
        row.value = "99"  # type: ignore[union-attr]
        session.add(row)
        session.commit()
    engine.dispose()
    with pytest.raises(DatabaseError, match="schema version 99, newer than this arena's 2"):
        make_engine(url)
