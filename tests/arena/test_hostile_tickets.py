"""Buying a board with many tickets (issue 41, items 4 and 5), tried as authors who want to win, with the real
`arena` commands: one program under several names from several accounts, one author's bot under several names,
and a removed author's name given to someone else. Each attack has a harmless twin that must still pass."""
from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from arena_helpers import run_arena

BOTS = Path(__file__).resolve().parents[2] / "bots"

#: plays alone and nowhere else: its smoke games pass in solo only
SOLO_ONLY = '''"""Plays the solo game; refuses a table with others."""
from sandbox.sdk import Bot


class SoloOnly(Bot):
    def on_start(self, hello):
        if hello.players > 1:
            raise RuntimeError("this bot plays alone")
'''


#: never plants a second card (README's first bot): a program of its own
PASSER = """from sandbox.sdk import Bot, Pass


class MyBot(Bot):
    def plant_second(self, request):
        return Pass()
"""


def ladder_rows(db: Path) -> list[tuple[object, ...]]:
    """Everything a submission would change: bots with their authors, versions, the formats they play."""
    with sqlite3.connect(db) as conn:
        return [*conn.execute("SELECT id, name, author FROM bot ORDER BY id"),
                *conn.execute("SELECT id, bot_id, number, sha256, active FROM botversion ORDER BY id"),
                *conn.execute("SELECT * FROM versionformat ORDER BY version_id, variant")]


def plays(db: Path, bot: str) -> list[str]:
    """The formats the current version of ``bot`` plays."""
    with sqlite3.connect(db) as conn:
        return [v for (v,) in conn.execute(
            "SELECT variant FROM versionformat JOIN botversion ON botversion.id = versionformat.version_id "
            "JOIN bot ON bot.id = botversion.bot_id WHERE bot.name = ? AND botversion.active AND versionformat.plays "
            "ORDER BY variant", (bot,))]


def accounts(db: Path, *names: str) -> None:
    for name in names:
        added = run_arena("authors", "add", name, db=db)
        assert added.returncode == 0, added.stderr


def submitted(db: Path, path: Path, name: str, author: str) -> str:
    done = run_arena("submit", str(path), "--name", name, "--author", author, db=db)
    assert done.returncode == 0 and f"{name} version " in done.stdout, (name, done.stdout, done.stderr)
    return done.stdout + done.stderr


def refused(db: Path, *args: str) -> str:
    """The one line a command refused with, before any smoke game, having stored nothing."""
    before = ladder_rows(db)
    done = run_arena(*args, db=db)
    assert done.returncode == 2, (args, done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, (args, done.stderr)
    assert "smoke" not in done.stdout + done.stderr, args
    assert ladder_rows(db) == before, args
    return done.stderr


def disguised(source: str) -> str:
    """``source`` as a copier hands it in: a comment on top, its own docstring, two-space indents, more blank lines."""
    source = re.sub(r'^"""(.|\n)*?"""', '"""My very own trader."""', source, count=1)
    source = re.sub(r"(?m)^((?:    )+)", lambda m: "  " * (len(m.group(1)) // 4), source)
    return "# written by cy, 2026\n" + source.replace("\n\n", "\n\n\n")


def test_a_program_enters_the_ladder_once_whoever_sends_it(tmp_path: Path) -> None:
    """The finding: bots/trader_bot.py byte for byte under three names from three accounts, all ranked. Now the
    first is accepted and the others refused before any game, the disguised one too; the twin, a different program
    of another author, is accepted."""
    db = tmp_path / "ladder.sqlite"
    accounts(db, "ann", "bob", "cy")
    submitted(db, BOTS / "trader_bot.py", "trader-ann", "ann")
    bob = refused(db, "submit", str(BOTS / "trader_bot.py"), "--name", "trader-bob", "--author", "bob")
    assert "is the same program as an active bot of another author ('trader-ann')" in bob, bob
    copy = tmp_path / "cys_trader.py"
    copy.write_text(disguised((BOTS / "trader_bot.py").read_text()))
    assert copy.read_bytes() != (BOTS / "trader_bot.py").read_bytes()
    cy = refused(db, "submit", str(copy), "--name", "trader-cy", "--author", "cy")
    assert "same program as an active bot of another author ('trader-ann')" in cy and "def " not in cy, cy
    # twins: another program of another author; ann's own file again is her bot's unchanged version
    submitted(db, BOTS / "greedy_bot.py", "greedy-bob", "bob")
    again = run_arena("submit", str(BOTS / "trader_bot.py"), "--name", "trader-ann", "--author", "ann", db=db)
    assert again.returncode == 0 and "trader-ann is unchanged" in again.stdout, again.stderr
    # once ann's bot is retired, its program is free again
    assert run_arena("bots", "retire", "trader-ann", "--author", "ann", db=db).returncode == 0
    submitted(db, copy, "trader-cy", "cy")


def test_one_author_has_one_ticket_per_format(tmp_path: Path) -> None:
    """The finding: one author entered one bot under 8 names, and its best copy ranked first. Now a second name
    of ann's is refused in one line naming her bot and how to retire it; her bot's next version is not; the
    operator's bots-per-author setting lets in as many as it says."""
    db = tmp_path / "ladder.sqlite"
    accounts(db, "ann", "bob")
    submitted(db, BOTS / "trader_bot.py", "annbot", "ann")
    for i, path in enumerate((BOTS / "greedy_bot.py", BOTS / "random_bot.py")):
        line = refused(db, "submit", str(path), "--name", f"ticket{i}", "--author", "ann")
        assert "author 'ann' has 1 active bot in every format already: 'annbot' (classic, duel, solo)" in line, line
        assert "'arena bots retire annbot --author ann'" in line, line
    submitted(db, BOTS / "greedy_bot.py", "annbot", "ann")  # her bot's next version: of course
    submitted(db, BOTS / "random_bot.py", "bobbot", "bob")  # another author's first bot
    assert run_arena("ladder", db=db).stdout.startswith("bots-per-author 1")
    assert run_arena("ladder", "set", "bots-per-author", "0", db=db).returncode == 2
    assert run_arena("ladder", "set", "bots-per-author", "2", db=db).returncode == 0
    assert run_arena("ladder", db=db).stdout.startswith("bots-per-author 2")
    submitted(db, BOTS / "trader_bot.py", "annbot2", "ann")
    passer = tmp_path / "passer.py"
    passer.write_text(PASSER)
    line = refused(db, "submit", str(passer), "--name", "annbot3", "--author", "ann")
    assert "has 2 active bots in every format already: 'annbot' (classic, duel, solo), 'annbot2'" in line, line
    assert run_arena("bots", "retire", "annbot2", "--author", "ann", db=db).returncode == 0
    submitted(db, passer, "annbot3", "ann")  # a retired bot's ticket is free
    assert plays(db, "annbot3") == ["classic", "duel", "solo"]


def test_a_second_bot_plays_only_the_formats_its_author_has_no_bot_in(tmp_path: Path) -> None:
    """The cap is per format: bob's solo-only bot holds his solo ticket, so his second bot (the twin of the
    refused second name) is stored for classic and duel only, and says why not solo."""
    db = tmp_path / "ladder.sqlite"
    accounts(db, "bob")
    solo = tmp_path / "solo_only.py"
    solo.write_text(SOLO_ONLY)
    submitted(db, solo, "bobsolo", "bob")
    assert plays(db, "bobsolo") == ["solo"]
    said = submitted(db, BOTS / "greedy_bot.py", "bobgreedy", "bob")
    assert "registered for classic, duel (" in said and "not scheduled in solo: 'bobsolo' of author 'bob'" in said, said
    assert plays(db, "bobgreedy") == ["classic", "duel"] and plays(db, "bobsolo") == ["solo"]
    line = refused(db, "submit", str(BOTS / "random_bot.py"), "--name", "bobthird", "--author", "bob")
    assert "'bobgreedy' (classic, duel), 'bobsolo' (solo)" in line, line
    # a new version of bobsolo that now plays everywhere still plays only where bob has no other bot
    submitted(db, BOTS / "trader_bot.py", "bobsolo", "bob")
    assert plays(db, "bobsolo") == ["solo"] and plays(db, "bobgreedy") == ["classic", "duel"]


def test_a_removed_authors_name_is_not_given_again(tmp_path: Path) -> None:
    """The finding: after `authors remove ann` and `authors add ann` for someone else, the new ann made versions
    of the old ann's bots and retired them. Now the name stays reserved, the old bots are the operator's until
    `authors transfer` hands one over on purpose; a fresh name is the twin."""
    db = tmp_path / "ladder.sqlite"
    accounts(db, "ann", "dora")
    submitted(db, BOTS / "trader_bot.py", "annbot", "ann")
    assert run_arena("authors", "remove", "ann", db=db).returncode == 0
    for name in ("ann", "Ann", " ann "):
        line = refused(db, "authors", "add", name)
        assert "the name 'ann' belonged to an account removed on" in line and "choose another name" in line, line
    for args in (("submit", str(BOTS / "greedy_bot.py"), "--name", "annbot", "--author", "ann"),
                 ("bots", "retire", "annbot", "--author", "ann"), ("authors", "rotate", "ann"),
                 ("submit", str(BOTS / "greedy_bot.py"), "--name", "annbot", "--author", "dora"),
                 ("bots", "retire", "annbot", "--author", "dora")):
        line = refused(db, *args)
        assert "belonged to an account removed" in line or "belongs to another author ('ann')" in line, (args, line)
    assert "removed" in run_arena("authors", db=db).stdout.splitlines()[1]
    accounts(db, "annie")  # a fresh name is made as always
    line = refused(db, "authors", "transfer", "annbot", "--to", "ann")
    assert "belonged to an account removed" in line, line
    submitted(db, BOTS / "random_bot.py", "dorabot", "dora")
    line = refused(db, "authors", "transfer", "annbot", "--to", "dora")  # dora has her one bot in every format
    assert "where author 'dora' has 'dorabot' already (bots-per-author 1)" in line, line
    moved = run_arena("authors", "transfer", "annbot", "--to", "annie", db=db)
    assert moved.returncode == 0 and "bot annbot now belongs to annie (before: ann)" in moved.stdout, moved.stderr
    submitted(db, BOTS / "greedy_bot.py", "annbot", "annie")
    assert run_arena("bots", "retire", "annbot", "--author", "annie", db=db).returncode == 0
