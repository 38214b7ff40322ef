"""Author accounts (`arena authors`, arena/submissions/accounts.py): a token shown once and stored hashed, and a bot
that only its owner (or the operator, on purpose) changes — the takeovers a second author tried."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from arena_helpers import db_url, run_arena
from sqlmodel import Session, col, select

from arena.submissions.accounts import Actor, author_for_token, ensure_author
from arena.db import Author, Bot, BotVersion, make_engine
from arena.submissions.errors import SubmissionError
from arena.submissions.versions import register, register_bosses, retire

BOTS = Path(__file__).resolve().parents[2] / "bots"


def token_of(result: str) -> str:
    """The token an `authors add` or `authors rotate` printed on its last line."""
    token = result.strip().splitlines()[-1]
    assert len(token) >= 40 and " " not in token, result
    return token


def owner_of(db: Path, token: str) -> str | None:
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        author = author_for_token(session, token)
        name = None if author is None else author.name
    engine.dispose()
    return name


def test_a_token_is_shown_once_and_stored_only_as_its_hash(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    added = run_arena("authors", "add", "alice", db=db)
    assert added.returncode == 0, added.stderr
    token = token_of(added.stdout)
    assert owner_of(db, token) == "alice"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (stored,) = conn.execute("SELECT token_hash FROM author WHERE name = 'alice'").fetchone()
    assert stored.startswith("sha256:") and token not in stored
    assert token.encode() not in db.read_bytes()
    for name, why in (("ALICE", "exists already (as 'alice')"), ("arena", "reserved for the built-in bots"),
                      ("  ", "cannot be empty"), ("bad\x1bname", "author")):
        refused = run_arena("authors", "add", name, db=db)
        assert refused.returncode == 2 and why in refused.stderr, (name, refused.stderr)
        assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    rotated = run_arena("authors", "rotate", "Alice", db=db)
    assert rotated.returncode == 0, rotated.stderr
    fresh = token_of(rotated.stdout)
    assert fresh != token and owner_of(db, token) is None and owner_of(db, fresh) == "alice"
    listed = run_arena("authors", db=db)
    assert listed.stdout.split("\n")[1].split()[:3] == ["alice", "-", "yes"]  # no bots yet
    assert fresh not in listed.stdout
    removed = run_arena("authors", "remove", "alice", db=db)
    assert removed.returncode == 0 and "removed" in removed.stdout, removed.stderr
    assert owner_of(db, fresh) is None
    assert run_arena("authors", db=db).stdout.split("\n")[1].split()[:3] == ["alice", "-", "removed"]
    gone = run_arena("authors", "rotate", "alice", db=db)
    assert gone.returncode == 2 and "no author account 'alice': the name 'alice' belonged to an account removed" \
        in gone.stderr, gone.stderr


def ladder_rows(db: Path) -> list[tuple[object, ...]]:
    """Everything a takeover would change: bots with their authors, versions, their formats and means."""
    with sqlite3.connect(db) as conn:
        return [*conn.execute("SELECT id, name, author FROM bot ORDER BY id"),
                *conn.execute("SELECT id, bot_id, number, sha256, active, by_operator FROM botversion ORDER BY id"),
                *conn.execute("SELECT * FROM versionformat ORDER BY version_id, variant")]


@pytest.fixture
def owned(tmp_path: Path) -> Path:
    """A ladder where alice owns "victim" (submitted through the CLI, smoke games and all) and bob has an account."""
    db = tmp_path / "ladder.sqlite"
    for name in ("alice", "bob"):
        assert run_arena("authors", "add", name, db=db).returncode == 0
    first = run_arena("submit", str(BOTS / "greedy_bot.py"), "--name", "victim", "--author", "alice", db=db)
    assert first.returncode == 0, first.stderr
    return db


def test_a_second_author_cannot_make_a_version_of_or_retire_anothers_bot(owned: Path, tmp_path: Path) -> None:
    db = owned
    listed = {line.split()[0]: line.split()[1] for line in run_arena("authors", db=db).stdout.splitlines()[1:]}
    assert listed == {"alice": "victim", "bob": "-"}  # each account with its bots, by name
    mine = tmp_path / "x.py"
    mine.write_text((BOTS / "random_bot.py").read_text())
    before = ladder_rows(db)
    attempts = {  # the three takeovers of the issue, a name without an account, and retiring
        ("submit", str(mine), "--name", "victim", "--author", "bob"): "belongs to another author ('alice')",
        ("submit", str(mine), "--name", "victim"): "belongs to author 'alice': act as its owner with --author",
        ("submit", str(mine), "--name", "victim", "--author", "mallory"): "no author account 'mallory'",
        ("bots", "retire", "victim"): "belongs to author 'alice'",
        ("bots", "retire", "victim", "--author", "bob"): "'bob' cannot retire it",
    }
    for args, why in attempts.items():
        refused = run_arena(*args, db=db)
        assert refused.returncode == 2, (args, refused.stdout, refused.stderr)
        assert why in refused.stderr and len(refused.stderr.strip().splitlines()) == 1, (args, refused.stderr)
        assert "smoke" not in refused.stdout + refused.stderr  # refused before any game was played
        assert ladder_rows(db) == before, args
    again = run_arena("submit", str(mine), "--name", "victim", "--author", "Alice", db=db)  # the owner, any case
    assert again.returncode == 0 and "victim version 2 registered" in again.stdout, again.stderr
    by_operator = run_arena("submit", str(BOTS / "greedy_bot.py"), "--name", "victim", "--operator", db=db)
    assert by_operator.returncode == 0 and "victim version 3 registered" in by_operator.stdout, by_operator.stderr
    rows = ladder_rows(db)
    assert ("victim", "alice") in [row[1:3] for row in rows[:1]]  # the owner did not change
    assert [row[2::3] for row in rows if len(row) == 6] == [(1, 0), (2, 0), (3, 1)]  # (number, by_operator)
    retired = run_arena("bots", "retire", "victim", "--operator", db=db)
    assert retired.returncode == 0 and "victim retired (version 3" in retired.stdout, retired.stderr


def test_an_unowned_bot_is_changed_only_by_the_operator(tmp_path: Path) -> None:
    """A bot submitted without an account (or whose author's account was removed) belongs to nobody: no
    one but the operator makes its next version or retires it, and the operator may give it an owner."""
    engine = make_engine(db_url(tmp_path / "ladder.sqlite"))
    with Session(engine) as session:
        register(session, "stray", "# one\n")
        ann = ensure_author(session, "ann")
        for actor in (Actor.nobody(), ann):
            with pytest.raises(SubmissionError, match="'stray' has no owner: only the operator can"):
                register(session, "stray", "# two\n", actor)
            with pytest.raises(SubmissionError, match="has no owner"):
                retire(session, "stray", actor)
        done = register(session, "stray", "# two\n", Actor.operator("ann"))
        assert (done.version.number, done.version.by_operator, done.bot.author) == (2, True, "ann")
        register(session, "stray", "# three\n", ann)  # now ann's
        assert retire(session, "stray", ann).number == 3
        assert [v.by_operator for v in session.exec(select(BotVersion).order_by(col(BotVersion.number))).all()] == [
            False, True, False]
        assert session.exec(select(Bot)).one().author == "ann"
        assert [a.name for a in session.exec(select(Author)).all()] == ["ann"]
    engine.dispose()


def test_a_boss_is_retired_by_the_operator_alone(tmp_path: Path) -> None:
    engine = make_engine(db_url(tmp_path / "ladder.sqlite"))
    with Session(engine) as session:
        register_bosses(session, ["greedy"])
        for actor in (Actor.nobody(), ensure_author(session, "bob")):
            with pytest.raises(SubmissionError, match="'greedy' is a built-in reference bot .boss.: only the operator"):
                retire(session, "greedy", actor)
        assert retire(session, "greedy", Actor.operator()).number == 1
    engine.dispose()


def test_a_bot_name_that_reads_as_another_authors_bot_is_refused(owned: Path, tmp_path: Path) -> None:
    """bob cannot take a name that a board shows as alice's "victim" (case, separators, look-alike digits; fullwidth,
    Cyrillic and spaced names never pass the name rule); alice may, and so may bob for a name of his own."""
    db = owned
    listed = {line.split()[0]: line.split()[1] for line in run_arena("authors", db=db).stdout.splitlines()[1:]}
    assert listed == {"alice": "victim", "bob": "-"}  # each account with its bots, by name
    mine = tmp_path / "x.py"
    mine.write_text((BOTS / "random_bot.py").read_text())
    before = ladder_rows(db)
    lookalikes = {"Victim": "reads as the bot 'victim' of author 'alice'", "VICTIM": "reads as the bot 'victim'",
                  "vict1m": "reads as the bot 'victim'", "v_i-c.tim": "reads as the bot 'victim'",
                  "V1CT1M": "reads as the bot 'victim'",  # then a fullwidth v, a Cyrillic i
                  "\uff56ictim": "must be 1-40 letters", "v\u0456ctim": "must be 1-40 letters",
                  "vic tim": "must be 1-40 letters"}
    for name, why in lookalikes.items():
        for author in ("bob", "Bob"):
            refused = run_arena("submit", str(mine), "--name", name, "--author", author, db=db)
            assert refused.returncode == 2, (name, refused.stdout, refused.stderr)
            assert why in refused.stderr and len(refused.stderr.strip().splitlines()) == 1, (name, refused.stderr)
            assert "smoke" not in refused.stdout + refused.stderr  # refused before any game was played
            assert ladder_rows(db) == before, name
    unowned = run_arena("submit", str(mine), "--name", "VICTIM", db=db)  # no account: not alice either
    assert unowned.returncode == 2 and "reads as the bot 'victim' of author 'alice'" in unowned.stderr
    fullwidth = run_arena("authors", "add", "\uff21lice", db=db)  # fullwidth A: would read as alice on the board
    assert fullwidth.returncode == 2 and "write it as 'Alice'" in fullwidth.stderr, fullwidth.stderr
    assert ladder_rows(db) == before
    engine = make_engine(db_url(db))
    with Session(engine) as session:  # alice's own look-alike is hers to make; a name of bob's own is his
        assert register(session, "Victim", "# alice's other\n", Actor.author("alice")).bot.author == "alice"
        assert register(session, "bobs-victim", "# bob's\n", Actor.author("bob")).bot.author == "bob"
        with pytest.raises(SubmissionError, match="'bobs_v1ctim' reads as the bot 'bobs-victim' of author 'bob'"):
            register(session, "bobs_v1ctim", "# alice's\n", Actor.author("alice"))
    engine.dispose()
