"""Upgrading a database of an older schema, on SQLite and PostgreSQL: schema 1 kept what a version
plays and its starting means as texts in ``botversion`` (``variants`` "classic,duel", ``priors``
"classic=31.5;duel=20.0", else ``prior_mu`` in every format); schema 2 keeps them in ``versionformat``
rows; schema 3 adds why a seat failed (``matchseat.failure_*``); schema 4 the language of a version
(``botversion.language``); schema 5 the tables of `arena test` (``versustest``, ``versusbot``,
``versuspair``); schema 9 author accounts (``author``, ``botversion.by_operator``). Each test makes a database of this
schema, turns it back into an older one with the statements the old arena ran, and opens it with
this arena."""
from __future__ import annotations

import zlib
from pathlib import Path
from typing import Callable

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.submissions.accounts import Actor
from arena.db import (SCHEMA_VERSION, AuditFlag, Author, Bot, BotVersion, DatabaseError, Match, MatchSeat, Meta, Season,
                      TestRun, TestRunPair, VersionFormat, make_engine, prior_means)
from arena.db import MatchStatus, SeatStatus
from arena.db.queries import stored_id
from arena.ladder.seasons import leaderboard
from arena.ladder.rankings import RatedStanding
from arena.submissions.errors import SubmissionError
from arena.submissions.versions import register
from engine.replay import Replay


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
        assert schema_version(session) == str(SCHEMA_VERSION) == "12"
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


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, db: Path) -> str:
    """A fresh database on each backend (PostgreSQL: a private server, tests/arena/conftest.py)."""
    return f"sqlite:///{db}" if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))


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
    from strategy.policies import random_action
    from engine.replay import Replay

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


TESTRUN_TABLES = ("versuspair", "versusbot", "versustest")  # in the order they can be dropped


def add_bot_kept(session: Session) -> None:
    """A bot "kept", that an upgrade must keep."""
    session.add(Bot(name="kept"))


def drop_testrun_tables(engine: Engine) -> None:
    with engine.begin() as conn:
        for table in TESTRUN_TABLES:
            conn.execute(text(f"DROP TABLE {table}"))
    assert not set(TESTRUN_TABLES) & set(inspect(engine).get_table_names())


def test_a_schema_4_database_gains_the_tables_of_arena_test(url: str) -> None:
    old_database(url, 4, add_bot_kept, drop_testrun_tables)
    engine = make_engine(url)
    assert set(TESTRUN_TABLES) <= set(inspect(engine).get_table_names())
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        assert [b.name for b in session.exec(select(Bot)).all()] == ["kept"]
        test = TestRun(name="t", variant="classic", elo0=0, elo1=5, alpha=0.05, beta=0.05, max_pairs=10)
        session.add(test)
        session.flush()
        session.add(TestRunPair(test_id=stored_id(test), number=0, first=1.0, second=0.5))
        session.commit()
        assert session.exec(select(TestRunPair.first, TestRunPair.second)).all() == [(1.0, 0.5)]
    engine.dispose()
    make_engine(url).dispose()  # opening it again changes nothing


def drop_audit_flags(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE auditflag"))


def test_a_schema_5_database_gains_the_audit_flags(url: str) -> None:
    old_database(url, 5, add_bot_kept, drop_audit_flags)
    engine = make_engine(url)
    assert "auditflag" in inspect(engine).get_table_names()
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        bot = session.exec(select(Bot)).one()
        session.add(AuditFlag(bot_a=stored_id(bot), bot_b=stored_id(bot), scope="variant classic", evidence="{}"))
        session.commit()
        assert [f.scope for f in session.exec(select(AuditFlag)).all()] == ["variant classic"]
    engine.dispose()


def plain_replays(engine: Engine) -> None:
    """Schema 7's replays: plain JSON text (PostgreSQL: a text column), as this arena wrote them then."""
    with engine.begin() as conn:
        rows = conn.execute(text('SELECT id FROM "match" WHERE replay IS NOT NULL')).all()
        if engine.dialect.name == "postgresql":
            conn.execute(text('ALTER TABLE "match" ALTER COLUMN replay TYPE text USING NULL'))
        for (match_id,) in rows:
            conn.execute(text('UPDATE "match" SET replay = :r WHERE id = :i'),
                         {"r": played_replay(match_id).dumps(), "i": match_id})


def played_replay(seed: int) -> Replay:
    """A whole game of random play, dealt from ``seed``."""
    import random

    from engine import new_game, rules_for
    from strategy.policies import random_action

    game = new_game(rules_for("classic"), 4, seed)
    rng = random.Random(seed)
    while not game.over:
        game.apply(random_action(game, rng))
    return Replay.of(game, ["a", "b", "c", "d"])


def test_a_schema_7_database_stores_its_replays_compressed(url: str) -> None:
    """Schema 8 stores a game's replay zlib-compressed (``CompressedText``): a schema-7 database's plain
    replays are rewritten on upgrade, read back as the same text, and take a fraction of their size."""
    def fill(session: Session) -> None:
        match_id, _ = crashed_match(session, "classic-v3", "{}")
        session.add(Match(season_id=1, number=1, table=1, seed=2, rules_id="classic-v3", status=MatchStatus.DONE))
        assert match_id == 1

    old_database(url, 7, fill, plain_replays)
    plain = played_replay(1).dumps()
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        assert [m.replay for m in session.exec(select(Match).order_by(col(Match.id))).all()] == [plain, None]
    with engine.begin() as conn:
        stored = conn.execute(text('SELECT replay FROM "match" WHERE id = 1')).scalar_one()
    assert isinstance(stored, (bytes, memoryview)) and zlib.decompress(bytes(stored)).decode() == plain
    assert len(bytes(stored)) * 8 < len(plain.encode()), (len(bytes(stored)), len(plain))
    if engine.dialect.name == "postgresql":
        assert str({c["name"]: c["type"] for c in inspect(engine).get_columns("match")}["replay"]) == "BYTEA"
    engine.dispose()
    engine = make_engine(url)  # opened again: nothing compressed twice
    with Session(engine) as session:
        assert session.exec(select(Match).where(Match.id == 1)).one().replay == plain
    engine.dispose()


def free_text_authors(engine: Engine) -> None:
    """Schema 8: no accounts (``author`` made by create_all is emptied) and no ``botversion.by_operator``."""
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM author"))
        conn.execute(text("ALTER TABLE botversion DROP COLUMN by_operator"))


def test_a_schema_8_databases_free_text_authors_become_accounts(url: str) -> None:
    """Schema 9 has author accounts: each free-text author of a submitted bot becomes one, without a token
    (names that differ only in case or spaces were one group at the tables, and become one account); the
    built-in bots' author "arena" does not; every version stored before was not the operator's."""
    def fill(session: Session) -> None:
        for name, author, builtin in (("a1", "Ann  Lee", False), ("a2", "ann lee", False), ("b1", "Bob", False),
                                      ("anon", "", False), ("greedy", "arena", True), ("fake", " Arena", False),
                                      ("esc", "evil\x1b[2J", False)):  # no account may take these two
            session.add(Bot(name=name, author=author, builtin=builtin))
        session.flush()
        session.add(BotVersion(bot_id=1, number=1, source="x", sha256="x".ljust(64, "0"), prior_sigma=2.0))

    old_database(url, 8, fill, free_text_authors)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        accounts = session.exec(select(Author).order_by(col(Author.id))).all()
        assert [(a.name, a.key, a.token_hash) for a in accounts] == [("Ann Lee", "ann lee", None), ("Bob", "bob", None)]
        assert session.exec(select(BotVersion)).one().by_operator is False
        a2 = session.exec(select(Bot).where(Bot.name == "a2")).one()
        register(session, "a2", "# next\n", Actor.author("Ann Lee"))  # the account owns both of its bots
        with pytest.raises(SubmissionError, match="belongs to another author"):
            register(session, "b1", "# taken\n", Actor.author("Ann Lee"))
        assert a2.author == "ann lee"
    engine.dispose()


def before_the_living_ladder(engine: Engine) -> None:
    """Schema 9: no ``season.live``, no ``botversion.paused`` nor ``paused_at``, no ``seatlog``."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE seatlog"))
        conn.execute(text("ALTER TABLE season DROP COLUMN live"))
        conn.execute(text("ALTER TABLE botversion DROP COLUMN paused"))
        conn.execute(text("ALTER TABLE botversion DROP COLUMN paused_at"))


def test_a_schema_9_database_gains_the_living_ladders_columns(url: str) -> None:
    """Schema 10: every older season was a batch, no version is paused, and the seats' logs table exists."""
    def fill(session: Session) -> None:
        add_version(session, "old", "x", "x".ljust(64, "0"))
        session.add(Season(name="s", variant="classic", games=1, min_players=3, max_players=3, seed=1))

    old_database(url, 9, fill, before_the_living_ladder)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION)
        assert session.exec(select(Season)).one().live is False
        version = session.exec(select(BotVersion)).one()
        assert (version.paused, version.paused_at) == (None, None)
    assert "seatlog" in inspect(engine).get_table_names()
    engine.dispose()


def unconfirmed_flags(engine: Engine) -> None:
    """Schema 10's flags: no ``confirmed_at`` (a flag stood until it was cleared)."""
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE auditflag DROP COLUMN confirmed_at"))


def test_a_schema_10_databases_flags_are_unconfirmed(url: str) -> None:
    """Schema 11: `arena audit confirm` marks a flag confirmed; every flag stored before stands or was cleared."""
    def fill(session: Session) -> None:
        add_bot_kept(session)
        session.flush()
        bot = session.exec(select(Bot)).one()
        session.add(AuditFlag(bot_a=stored_id(bot), bot_b=stored_id(bot), scope="variant classic", evidence="{}"))

    old_database(url, 10, fill, unconfirmed_flags)
    engine = make_engine(url)
    assert "confirmed_at" in {c["name"] for c in inspect(engine).get_columns("auditflag")}
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "12"
        assert [(f.scope, f.confirmed_at) for f in session.exec(select(AuditFlag)).all()] == [("variant classic", None)]
    engine.dispose()


def before_one_ticket(engine: Engine) -> None:
    """Schema 11: no ``botversion.program_sha256``, no ``author.removed_at`` (a removed account's row was deleted)."""
    with engine.begin() as conn:
        conn.execute(text("DROP INDEX ix_botversion_program_sha256"))
        conn.execute(text("ALTER TABLE botversion DROP COLUMN program_sha256"))
        conn.execute(text("ALTER TABLE author DROP COLUMN removed_at"))


def test_a_schema_11_database_hashes_its_programs_and_reserves_removed_names(url: str) -> None:
    """Schema 12: every version's program hash (arena/submissions/programs.py) is computed, and the author of a bot
    with no account (removed by `arena authors remove`, which deleted the row) becomes a removed account: reserved."""
    from arena.submissions.accounts import AccountError, add_author
    from arena.submissions.programs import program_hash

    sources = {"kept": ("# ann's\nx = 1\n", "python"), "orphan": ("int x; // gone's\n", "c")}

    def fill(session: Session) -> None:
        session.add(Author(name="ann", key="ann"))
        for name, (source, language) in sources.items():
            bot = Bot(name=name, author="ann" if name == "kept" else "Gone")
            session.add(bot)
            session.flush()
            session.add(BotVersion(bot_id=stored_id(bot), number=1, source=source, language=language,
                                   sha256="x".ljust(64, "0"), prior_sigma=2.0))

    old_database(url, 11, fill, before_one_ticket)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "12"
        for name, (source, language) in sources.items():
            version = session.exec(select(BotVersion).join(Bot).where(Bot.name == name)).one()
            assert version.program_sha256 == program_hash(source, language), name
        authors = {a.name: a for a in session.exec(select(Author)).all()}
        assert authors["ann"].removed_at is None and authors["Gone"].removed_at is not None
        assert authors["Gone"].token_hash is None
        with pytest.raises(AccountError, match="the name 'Gone' belonged to an account removed"):
            add_author(session, "gone")
    engine.dispose()
    make_engine(url).dispose()  # opening it again changes nothing
