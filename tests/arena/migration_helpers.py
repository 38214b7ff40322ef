"""What the migration tests share (test_migrations.py, test_migrations_later.py): old databases made the way
the old arena made them. The database of each backend is conftest.py's ``url``."""
from __future__ import annotations

from typing import Callable

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.db import Bot, BotVersion, Match, MatchStatus, Meta, Season, make_engine
from arena.db.queries import stored_id


def schema_version(session: Session) -> str:
    """The schema version a database records."""
    row = session.get(Meta, "schema_version")
    assert row is not None
    return row.value


def add_version(session: Session, name: str, source: str, sha256: str) -> BotVersion:
    """A bot ``name`` and its version 1 of ``source``, flushed (both have their ids)."""
    bot = Bot(name=name)
    session.add(bot)
    session.flush()
    version = BotVersion(bot_id=stored_id(bot), number=1, source=source, sha256=sha256, prior_sigma=2.0)
    session.add(version)
    session.flush()
    return version


def crashed_match(session: Session, rules_id: str, replay: str | None = None) -> tuple[int, int]:
    """A finished game of ``rules_id`` in a season "s" and the version of a bot "crasher" that is to crash
    there, flushed: their ids (match, version), for the caller's seats."""
    version = add_version(session, "crasher", "x", "x".ljust(64, "0"))
    season = Season(name="s", variant="classic", games=1, min_players=3, max_players=3, seed=1)
    session.add(season)
    session.flush()
    match = Match(season_id=stored_id(season), number=0, table=0, seed=1, rules_id=rules_id,
                  status=MatchStatus.DONE, replay=replay)
    session.add(match)
    session.flush()
    return stored_id(match), stored_id(version)


def old_database(url: str, version: int, fill: Callable[[Session], object], *back: Callable[[Engine], None]) -> None:
    """A database of this schema at ``url`` with the rows ``fill`` adds, turned back by the steps ``back``
    (the statements the old arena ran) and recorded as of schema ``version``."""
    engine = make_engine(url)
    with Session(engine) as session:
        fill(session)
        session.commit()
    for step in back:
        step(engine)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE meta SET value = '{version}' WHERE key = 'schema_version'"))
    engine.dispose()
