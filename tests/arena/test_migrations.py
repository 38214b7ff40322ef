"""Upgrading a database of an older schema, on SQLite and PostgreSQL (schemas 1 to 6; the later ones in
test_migrations_later.py): schema 1 kept what a version plays and its starting means as texts in ``botversion``
(``variants`` "classic,duel", ``priors`` "classic=31.5;duel=20.0", else ``prior_mu`` in every format); schema 2
keeps them in ``versionformat`` rows; schema 3 adds why a seat failed (``matchseat.failure_*``); schema 4 the
language of a version (``botversion.language``); a newer schema is refused. Each test makes a database of this
schema, turns it back into an older one with the statements the old arena ran, and opens it with this arena."""
from __future__ import annotations

from pathlib import Path

import pytest
from migration_helpers import add_version, crashed_match, old_database, schema_version
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import (SCHEMA_VERSION, Author, Bot, BotVersion, DatabaseError, MatchSeat, Meta, SeatStatus,
                      VersionFormat, make_engine, prior_means, stored_id)
from arena.ladder.rankings import RatedStanding
from arena.ladder.seasons import leaderboard
from arena.submissions.accounts import Actor


def as_schema_1(url: str) -> None:
    """A database as the schema-1 arena left it: three versions, one with per-format means, one with
    only ``prior_mu``, one from before ``variants`` and ``priors`` existed (classic only)."""
    def fill(session: Session) -> None:
        for name in ("both", "old", "oldest"):
            add_version(session, name, name, name.ljust(64, "0"))

    old_database(url, 1, fill, drop_failure_columns, drop_language_column, per_version_text_columns)


def per_version_text_columns(engine: Engine) -> None:
    """Schema 1's texts in ``botversion`` instead of ``versionformat`` rows."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE versionformat"))
        conn.execute(text("ALTER TABLE botversion ADD COLUMN prior_mu FLOAT NOT NULL DEFAULT 25.0"))
        conn.execute(text("ALTER TABLE botversion ADD COLUMN variants VARCHAR NOT NULL DEFAULT 'classic'"))
        conn.execute(text("ALTER TABLE botversion ADD COLUMN priors VARCHAR NOT NULL DEFAULT ''"))
        conn.execute(text("UPDATE botversion SET prior_mu = 31.0, variants = 'classic,duel', "
                          "priors = 'classic=31.5;duel=20.0' WHERE source = 'both'"))
        conn.execute(text("UPDATE botversion SET prior_mu = 28.0, variants = 'classic,solo' WHERE source = 'old'"))
    assert {"prior_mu", "variants", "priors"} <= {c["name"] for c in inspect(engine).get_columns("botversion")}


FAILURE_COLUMNS = {"failure_request", "failure_step", "failure_log"}


def drop_failure_columns(engine: Engine) -> None:
    with engine.begin() as conn:
        for column in sorted(FAILURE_COLUMNS):
            conn.execute(text(f"ALTER TABLE matchseat DROP COLUMN {column}"))
    assert not FAILURE_COLUMNS & {c["name"] for c in inspect(engine).get_columns("matchseat")}


def drop_language_column(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE botversion DROP COLUMN language"))
    assert "language" not in {c["name"] for c in inspect(engine).get_columns("botversion")}


def check_upgraded(url: str) -> None:
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
        ids = {b.name: session.exec(select(BotVersion.id).where(BotVersion.bot_id == b.id)).one()
               for b in session.exec(select(Bot)).all()}
        plays = {(row.version_id, row.variant) for row in session.exec(select(VersionFormat)).all() if row.plays}
        assert plays == {(ids["both"], "classic"), (ids["both"], "duel"), (ids["old"], "classic"),
                         (ids["old"], "solo"), (ids["oldest"], "classic")}
        assert prior_means(session, "classic") == {ids["both"]: 31.5, ids["old"]: 28.0, ids["oldest"]: 25.0}
        assert prior_means(session, "duel") == {ids["both"]: 20.0, ids["old"]: 28.0, ids["oldest"]: 25.0}
        board = leaderboard(session, "classic")
        assert all(isinstance(r, RatedStanding) for r in board)
        assert [(r.name, r.mu) for r in board if isinstance(r, RatedStanding)] == [
            ("both", 31.5), ("old", 28.0), ("oldest", 25.0)]
        assert [r.name for r in leaderboard(session, "duel")] == ["both"]
        assert {v.language for v in session.exec(select(BotVersion)).all()} == {"python"}
    assert not {"prior_mu", "variants", "priors"} & {c["name"] for c in inspect(engine).get_columns("botversion")}
    assert FAILURE_COLUMNS <= {c["name"] for c in inspect(engine).get_columns("matchseat")}
    engine.dispose()
    make_engine(url).dispose()  # opening it again changes nothing


def test_a_schema_1_database_is_upgraded(url: str) -> None:
    as_schema_1(url)
    check_upgraded(url)


def as_schema_2(url: str) -> None:
    """A database as the schema-2 arena left it: a game whose seat crashed, without failure columns."""
    def fill(session: Session) -> None:
        match_id, version_id = crashed_match(session, "classic-v2")
        session.add(MatchSeat(match_id=match_id, seat=0, version_id=version_id, status=SeatStatus.CRASH,
                              detail="exited with code 3 during request"))

    old_database(url, 2, fill, drop_failure_columns, drop_language_column)


def check_upgraded_from_2(url: str) -> None:
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        seat = session.exec(select(MatchSeat)).one()
        assert (seat.status, seat.detail) == ("crash", "exited with code 3 during request")  # kept as it was
        assert (seat.failure_request, seat.failure_step, seat.failure_log) == ("", None, "")  # not known then
    engine.dispose()


def test_a_schema_2_database_gains_the_failure_columns(url: str) -> None:
    as_schema_2(url)
    check_upgraded_from_2(url)


def test_a_schema_3_database_learns_that_its_versions_are_python(url: str) -> None:
    old_database(url, 3, lambda session: add_version(session, "old", "def act(m): pass", "a" * 64),
                 drop_language_column)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        version = session.exec(select(BotVersion)).one()
        assert (version.source, version.language) == ("def act(m): pass", "python")
        session.add(BotVersion(bot_id=version.bot_id, number=2, source="int main(){}", sha256="b" * 64, prior_sigma=2.0,
                               language="c"))
        session.commit()
        assert sorted(v.language for v in session.exec(select(BotVersion)).all()) == ["c", "python"]
    engine.dispose()


def test_a_schema_6_failure_step_of_events_becomes_the_replays_step(url: str) -> None:
    """Schema 7 counts a failed seat's step in actions (the one step numbering, engine/spectator.py):
    a schema-6 row counted the events before the request, and is converted by replaying the game."""
    import random

    from engine import new_game, rules_for
    from engine.replay import Replay
    from strategy.policies import random_action

    game = new_game(rules_for("classic"), 3, 9)
    rng = random.Random(9)
    events_at = []  # the events before each action (what schema 6 stored for a request then)
    while not game.over:
        events_at.append(len(game.events))
        game.apply(random_action(game, rng))
    replay = Replay.of(game, ["a", "b", "c"])
    asked = {0: 0, 1: 17, 2: len(replay.actions) - 1}  # seat -> the action (step) its failed request came before

    def fill(session: Session) -> None:
        match_id, version_id = crashed_match(session, replay.rules_id, replay.dumps())
        for seat, step in asked.items():
            session.add(MatchSeat(match_id=match_id, seat=seat, version_id=version_id, status=SeatStatus.CRASH,
                                  failure_request="trade_respond", failure_step=events_at[step]))

    old_database(url, 6, fill)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        steps = {s.seat: s.failure_step for s in session.exec(select(MatchSeat)).all()}
    engine.dispose()
    assert steps == asked
    engine = make_engine(url)  # opened again: nothing converted twice
    with Session(engine) as session:
        assert {s.seat: s.failure_step for s in session.exec(select(MatchSeat)).all()} == asked
    engine.dispose()


def test_a_newer_schema_is_refused_and_left_alone(db: Path) -> None:
    url = f"sqlite:///{db}"
    make_engine(url).dispose()
    engine = make_engine(url)
    with Session(engine) as session:
        row = session.get(Meta, "schema_version")
        assert row is not None
        row.value = "99"
        session.add(row)
        session.commit()
    engine.dispose()
    with pytest.raises(DatabaseError, match=f"schema version 99, newer than this arena's {SCHEMA_VERSION}"):
        make_engine(url)


def test_a_schema_15_database_hashes_its_programs_again_alike_on_every_python(url: str) -> None:
    """Schema 16: every program hash is computed again, so that one made under Python 3.12 of a program with an
    f-string (its parts hashed) becomes the hash every Python makes now, and a copy of that bot is refused; a hash
    that was right already is left as it was."""
    from arena.submissions.programs import program_hash
    from arena.submissions.tickets import TicketError
    from arena.submissions.versions import check_program

    fstring = "def act(message):\n    return {'say': f\"{message['type']}!\"}\n"
    plain = "def act(message):\n    return {}\n"
    made_under_312 = "3" * 64  # not what this arena computes for the program: to be computed again

    def fill(session: Session) -> None:
        session.add(Author(name="ann", key="ann"))
        session.add(Author(name="bob", key="bob"))
        right = program_hash(plain, "python")
        for name, source, digest in (("sayer", fstring, made_under_312), ("quiet", plain, right)):
            bot = Bot(name=name, author="ann")
            session.add(bot)
            session.flush()
            session.add(BotVersion(bot_id=stored_id(bot), number=1, source=source, language="python",
                                   sha256=name.ljust(64, "0"), prior_sigma=2.0, program_sha256=digest))

    old_database(url, 15, fill)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
        hashes = {bot.name: version.program_sha256 for version, bot in session.exec(
            select(BotVersion, Bot).where(BotVersion.bot_id == Bot.id)).all()}
        assert hashes == {"sayer": program_hash(fstring, "python"), "quiet": program_hash(plain, "python")}
        assert hashes["sayer"] != made_under_312
        copy = "# bob's own, surely\n" + fstring.replace("    ", "  ")
        with pytest.raises(TicketError, match="'copycat' is the same program as an active bot of another author"):
            check_program(session, "copycat", Actor.author("bob"), copy, "python")
    engine.dispose()
    make_engine(url).dispose()  # opening it again changes nothing
