"""Upgrading a database of schema 4 and later, on SQLite and PostgreSQL: the tables of `arena test` (schema 5),
the audit's flags (6), compressed replays (8), author accounts (9), the living ladder's columns (10), confirmed
flags (11), program hashes (12), the games' trade flows (13), competitions (14) and the games of `arena test`'s
pairs (15), and where a new version took its means (17). As in test_migrations.py, each
test makes a database of this schema, turns it back into the older one with the statements the old arena ran, and
opens it with this arena."""
from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from migration_helpers import add_version, crashed_match, old_database, schema_version
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.audit.store import rerate_all
from arena.db import (SCHEMA_VERSION, AuditFlag, Author, Bot, BotVersion, Match, MatchStatus, Season, TestRun,
                      TestRunPair, VersionFormat, make_engine)
from arena.db.queries import stored_id
from arena.submissions.accounts import Actor
from arena.submissions.errors import SubmissionError
from arena.submissions.versions import register
from engine.replay import Replay

TESTRUN_TABLES = ("testrungame", "versuspair", "versusbot", "versustest")  # in the order they can be dropped


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
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
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
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
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


def before_flows(engine: Engine) -> None:
    """Schema 12: no ``match.flows`` (the audit played every recorded game again)."""
    with engine.begin() as conn:
        conn.execute(text('ALTER TABLE "match" DROP COLUMN flows'))


def test_a_schema_12_databases_games_are_audited_from_their_replays(url: str) -> None:
    """Schema 13 stores each game's trade flows as its worker counted them; an older game has none, so the audit
    plays its replay again and finds the same flows; a game recorded with flows is read without its replay."""
    from arena.audit.stats import trade_flows
    from arena.audit.store import recorded_games
    from arena.db import MatchSeat
    from engine import classic_rules
    from arena.play.players import InProcessPlayer
    from arena.play.referee import play_game

    rules = classic_rules()
    bots = Path(__file__).resolve().parents[2] / "bots"
    players = [InProcessPlayer(bots / f"{stem}_bot.py", name)
               for name, stem in zip("abc", ("trader", "random", "trader"))]
    replay = play_game(rules, 5, players, bot_seeds=[1, 2, 3]).replay  # a real game with deals
    flows = trade_flows(replay)
    assert flows, "the traders' game closed a deal that moved value"

    def fill(session: Session) -> None:
        versions = [add_version(session, name, f"# {name}", name.ljust(64, "0")) for name in "abc"]
        season = Season(name="s", variant="classic", games=1, min_players=3, max_players=3, seed=1)
        session.add(season)
        session.flush()
        match = Match(season_id=stored_id(season), number=0, table=0, seed=5, rules_id=rules.id,
                      status=MatchStatus.DONE, replay=replay.dumps())
        session.add(match)
        session.flush()
        for seat, version in enumerate(versions):
            session.add(MatchSeat(match_id=stored_id(match), seat=seat, version_id=stored_id(version), rank=seat + 1))

    old_database(url, 12, fill, before_flows)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
        match = session.exec(select(Match)).one()
        assert match.flows is None
        [game] = recorded_games(session, season="s")
        assert game.bots == ("a", "b", "c") and game.flows == flows
        match.flows, match.replay = '[[0,1,2.5]]', "not a replay"  # a new record: its flows, never its replay
        session.add(match)
        session.commit()
        [game] = recorded_games(session, season="s")
        assert game.flows == {(0, 1): 2.5}
    engine.dispose()


def no_competitions(engine: Engine) -> None:
    """Schema 13: no competitions."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE competitionentry"))
        conn.execute(text("DROP TABLE competition"))


def test_a_schema_13_database_gains_the_competition_tables(url: str) -> None:
    """Schema 14: the competitions' tables are made, and what was stored stays."""
    from datetime import datetime, timezone

    from arena.db import Competition

    old_database(url, 13, add_bot_kept, no_competitions)
    engine = make_engine(url)
    assert {"competition", "competitionentry"} <= set(inspect(engine).get_table_names())
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
        assert [b.name for b in session.exec(select(Bot)).all()] == ["kept"]
        session.add(Competition(name="cup", variant="classic", deadline=datetime(2026, 1, 1, tzinfo=timezone.utc),
                                finalists=3, final_games=12))
        session.commit()
        assert [c.name for c in session.exec(select(Competition)).all()] == ["cup"]
    engine.dispose()


def no_test_games(engine: Engine) -> None:
    """Schema 14: a test's pairs were stored without their games."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE testrungame"))


def test_a_schema_14_databases_pairs_keep_their_scores_and_new_pairs_store_their_games(url: str) -> None:
    """Schema 15 stores each counted pair's games with it (``testrungame``, made on upgrade): a pair counted before
    keeps its scores and has no games (its test page lists it unlinked); a pair counted after has its games."""
    from arena.db import TestRunGame
    from arena.testrun.store import GameSeat, TestGame, load_test, record_pair, stored_games

    def fill(session: Session) -> None:
        test = TestRun(name="t", variant="duel", elo0=0, elo1=5, alpha=0.05, beta=0.05, max_pairs=10)
        session.add(test)
        session.flush()
        session.add(TestRunPair(test_id=stored_id(test), number=0, first=1.0, second=0.5))

    old_database(url, 14, fill, no_test_games)
    engine = make_engine(url)
    assert "testrungame" in inspect(engine).get_table_names()
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
        stored = load_test(session, "t")
        assert stored is not None and stored.scores == [(1.0, 0.5)] and stored.games == 0
    replay = played_replay(3).dumps()
    seats = (GameSeat(0, 7, 1, "ok"), GameSeat(1, 2, 2, "timeout", 12))
    record_pair(engine, stored.id, 1, (0.5, 0.5), None, False, [TestGame(1, 0, 0, 2**62 + 1, seats, 1.5, replay)])
    with Session(engine) as session:
        again = load_test(session, "t")
        assert again is not None and again.scores == [(1.0, 0.5), (0.5, 0.5)] and again.games == 1
        [game] = stored_games(session, stored.id, replays=True)
        assert (game.pair, game.game, game.deal, game.seed, game.seats, game.replay) == (1, 0, 0, 2**62 + 1, seats,
                                                                                         replay)
        assert session.exec(select(TestRunGame.pair)).all() == [1]
    engine.dispose()
    make_engine(url).dispose()  # opening it again changes nothing


def test_a_schema_16_databases_versions_keep_the_means_they_were_stored_with(url: str) -> None:
    """Schema 17 keeps where a new version took its predecessor's means (``inherits_after``, arena/ladder/
    inheritance.py): a version stored before has none, and keeps its stored mean when the ratings are computed
    again; a version stored after the upgrade has its place."""
    def fill(session: Session) -> None:
        bot = Bot(name="kept")
        session.add(bot)
        session.flush()
        for number, mean in ((1, 25.0), (2, 31.5)):
            version = BotVersion(bot_id=stored_id(bot), number=number, source=f"# {number}\n", active=number == 2,
                                 sha256=str(number).ljust(64, "0"), prior_sigma=2.0)
            session.add(version)
            session.flush()
            session.add(VersionFormat(version_id=stored_id(version), variant="classic", prior_mu=mean))

    def before_inheritance(engine: Engine) -> None:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE botversion DROP COLUMN inherits_after"))

    old_database(url, 16, fill, before_inheritance)
    engine = make_engine(url)
    with Session(engine) as session:
        assert schema_version(session) == str(SCHEMA_VERSION) == "17"
        rerate_all(session)
        places = select(BotVersion.inherits_after, VersionFormat.prior_mu).join(VersionFormat).where(
            VersionFormat.variant == "classic").order_by(col(BotVersion.number))
        assert [tuple(r) for r in session.exec(places).all()] == [(None, 25.0), (None, 31.5)]
        register(session, "kept", "# 3\n", Actor.operator(), variants=["classic"])
        assert [tuple(r) for r in session.exec(places).all()] == [(None, 25.0), (None, 31.5), (0, 31.5)]
    engine.dispose()
