"""Every user mistake is one line: a path that cannot be written, a database URL that points nowhere,
a working folder that cannot hold the default database. Each case: exactly one line on stderr, a
non-zero exit, no traceback, and nothing lost (nothing played or written for nothing). /sys refuses
new files even to root, so these hold for any user."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from arena_helpers import run_arena

UNWRITABLE = Path("/sys")  # exists, is a folder, refuses new files to everyone


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in ``cwd``: in the test's process for a command the tests run there (arena_helpers.IN_PROCESS,
    checked against a real process in test_in_process.py), else a real `python -m arena`."""
    return run_arena(*args, timeout=120, cwd=cwd)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


def test_a_replay_path_in_a_missing_folder_is_refused_before_the_game(tmp_path: Path) -> None:
    line = one_line(arena("play", "random", "greedy", "trader", "--replay", str(tmp_path / "nope" / "r.json"),
                          cwd=tmp_path))
    assert line == (f"Error: --replay {str(tmp_path / 'nope' / 'r.json')!r}: "
                    f"the folder {str(tmp_path / 'nope')!r} does not exist")


def test_an_unwritable_log_file_is_one_line(tmp_path: Path) -> None:
    line = one_line(arena("--log-file", str(UNWRITABLE / "arena.log"), "bots", cwd=tmp_path))
    assert line.startswith(f"Error: cannot write the log file {str(UNWRITABLE / 'arena.log')!r}: ")


def test_an_unwritable_site_folder_is_one_line_and_the_database_is_untouched(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    assert arena("--db", str(db), "bots", cwd=tmp_path).returncode == 0
    before = db.read_bytes()
    line = one_line(arena("--db", str(db), "site", "build", "--out", str(UNWRITABLE / "arena-site"), cwd=tmp_path))
    assert line.startswith(f"Error: cannot write the site to {str(UNWRITABLE / 'arena-site')!r}: ")
    assert db.read_bytes() == before


def test_a_plain_path_is_an_sqlite_database(tmp_path: Path) -> None:
    result = arena("--db", "plain.sqlite", "bots", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "plain.sqlite").is_file()


@pytest.mark.parametrize("url, says", [
    ("sqlite:///rel/x.sqlite", "the folder '{tmp}/rel' does not exist ('sqlite:///rel/x.sqlite' is relative to the "
                               "working folder '{tmp}'; 'sqlite:////…', four slashes, is an absolute path)"),
    ("sqlite:////nowhere-at-all/x.sqlite", "the folder '/nowhere-at-all' does not exist"),
    ("sqlite:///{tmp}", "is a folder, not a file"),
    ("sqlite:////sys/x.sqlite", "the folder '/sys' is not writable"),
])
def test_a_database_that_cannot_be_opened_says_why(tmp_path: Path, url: str, says: str) -> None:
    line = one_line(arena("--db", url.format(tmp=tmp_path), "bots", cwd=tmp_path))
    assert says.format(tmp=tmp_path) in line, line


def test_a_working_folder_that_cannot_hold_the_default_database_says_so() -> None:
    line = one_line(arena("bots", cwd=UNWRITABLE))
    assert line == ("Error: cannot create the database '/sys/arena.sqlite': the folder '/sys' is not writable "
                    "(Permission denied); choose another with --db or $ARENA_DB")


@pytest.mark.slow  # four real submissions, each with its sandboxed smoke games
def test_a_version_suffix_on_a_new_name_gets_a_hint(tmp_path: Path) -> None:
    """`arena submit mybot_v2.py` when `mybot` exists: still a new bot (as asked), with a note on --name."""
    db = tmp_path / "ladder.sqlite"
    source = (Path(__file__).resolve().parents[2] / "bots" / "random_bot.py").read_text()
    (tmp_path / "mybot.py").write_text(source)
    (tmp_path / "mybot_v2.py").write_text(source + "\n# v2\n")
    assert arena("--db", str(db), "submit", str(tmp_path / "mybot.py"), cwd=tmp_path).returncode == 0
    second = arena("--db", str(db), "submit", str(tmp_path / "mybot_v2.py"), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert ("note: no bot is named 'mybot_v2', so this is a new bot; to make it the next version of 'mybot', "
            "submit it with --name mybot") in second.stderr
    assert "mybot_v2 version 1 registered" in second.stdout
    third = arena("--db", str(db), "submit", str(tmp_path / "mybot_v2.py"), "--name", "mybot", "--operator",
                  cwd=tmp_path)  # mybot has no owner (no --author): only the operator makes its next version
    assert third.returncode == 0 and "mybot version 2 registered" in third.stdout and "note:" not in third.stderr
    restored = arena("--db", str(db), "submit", str(tmp_path / "mybot.py"), "--operator", cwd=tmp_path)
    assert restored.returncode == 0, restored.stderr  # version 1's file again: said, as a new version
    assert "mybot version 3 registered" in restored.stdout and "it is the same file as version 1" in restored.stdout


def test_a_bot_in_a_language_the_ladder_does_not_take_is_told_which_it_takes(tmp_path: Path) -> None:
    bot = tmp_path / "bot.rb"
    bot.write_text('puts "{}"\n')
    line = one_line(arena("--db", str(tmp_path / "ladder.sqlite"), "submit", str(bot), cwd=tmp_path))
    assert line == (f"Error: {str(bot)!r} is not a bot file the ladder knows: it takes python (.py), "
                    "javascript (.js/.cjs), c (.c) (docs/protocol.md); a bot in another language plays locally "
                    "with 'arena play exec:COMMAND … --unsafe'")
    broken = tmp_path / "broken.py"
    broken.write_text("def act(message):\n    return {\n")
    assert "has a syntax error at line" in one_line(arena("--db", str(tmp_path / "ladder.sqlite"), "submit",
                                                          str(broken), cwd=tmp_path))


@pytest.mark.slow  # a real season and a site build
def test_a_damaged_stored_replay_is_one_line_and_the_other_games_still_show(tmp_path: Path) -> None:
    """A replay damaged in the database (compressed bytes that do not inflate, or a cut JSON text of an
    older schema) makes `game show --turns` say which game, in one line, and `site build` leave that game's page
    out with one warning line naming it and build the rest; the database is left as it was and the other games
    still show."""
    import sqlite3

    db = tmp_path / "ladder.sqlite"
    season = arena("--db", str(db), "season", "run", "--games", "3", "--workers", "1",
                   "--bosses", "random,greedy,trader", cwd=tmp_path)
    assert season.returncode == 0, season.stderr
    with sqlite3.connect(db) as con:
        con.execute("UPDATE match SET replay = ? WHERE id = 1", (b"\x78\x9cnot a zlib stream",))
        con.execute("UPDATE match SET replay = ? WHERE id = 2", ('{"format": 1, "rules_id": "classic-v3"',))
    before = dump(db)
    inflated = one_line(arena("--db", str(db), "game", "show", "1", "--turns", cwd=tmp_path))
    assert inflated.startswith("Error: game 1: its stored replay cannot be read: ")
    assert "damaged stored text" in inflated
    cut = one_line(arena("--db", str(db), "game", "show", "2", "--turns", cwd=tmp_path))
    assert cut.startswith("Error: game 2: its stored replay cannot be read: replay is not JSON")
    built = arena("--db", str(db), "site", "build", "--out", str(tmp_path / "site"), cwd=tmp_path)
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
    warnings = [line for line in built.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2, built.stderr  # one line a damaged game: its page is left out, the rest is built
    assert warnings[0].startswith("warning: game 1: ") and "damaged stored text" in warnings[0]
    assert warnings[1].startswith("warning: game 2: ") and "malformed replay" in warnings[1]
    games = tmp_path / "site" / "games"
    assert not (games / "1.html").exists() and not (games / "2.html").exists() and (games / "3.html").is_file()
    assert dump(db) == before
    shown = arena("--db", str(db), "game", "show", "3", "--turns", cwd=tmp_path)
    assert shown.returncode == 0 and "Game over." in shown.stdout, shown.stderr


def dump(db: Path) -> list[str]:
    """Every row of an SQLite database as SQL (its content, whatever the WAL has checkpointed into the file)."""
    import sqlite3

    with sqlite3.connect(db) as con:
        return list(con.iterdump())
