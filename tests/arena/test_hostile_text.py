"""Issue 24, names, text and files: an author who takes a boss's name, a bot that writes NUL and
control bytes before it fails, a replay file or a bot file whose names carry terminal escapes, and
bot files that are links, FIFOs or huge. Real `arena` commands, real databases, the strong sandbox."""
from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import ARENA, db_url, fix_seed_key, run_arena, run_in_process
from sqlalchemy import text
from sqlmodel import Session

from arena.db import make_engine
from arena.ladder.executors import LocalPoolExecutor
from arena.play.tables import MatchOutcome
from arena.submissions.versions import register
from sandbox import Limits, Tier, detect_tier

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox" / "hostile"
BOTS = Path(__file__).resolve().parents[2] / "bots"
STRONG = detect_tier() is Tier.STRONG
strong = pytest.mark.skipif(not STRONG, reason="strong tier (bubblewrap + seccomp, root) unavailable")


def bot_names(db: Path) -> list[str]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as con:
        return [name for (name,) in con.execute("SELECT name FROM bot ORDER BY name")]


def control_characters(output: str) -> list[str]:
    return sorted({c for c in output if not c.isprintable() and c != "\n"})


# ----------------------------------------------------------------- names
def test_reserved_names_cover_case_separators_versions_and_look_alikes() -> None:
    from arena.submissions.names import reserved_for

    for name in ("trader", "Trader", "TRADER", "trader_bot", "trader-bot", "Trader.Bot", "trader2", "trader-v3",
                 "tr4der", "Tr4d3r_B0T", "rand0m", "greedy_bot", "Search"):
        assert reserved_for(name) is not None, name
    for name in ("mytrader", "traders", "hostile", "mybot", "alpha", "bot", "s"):
        assert reserved_for(name) is None, name


@pytest.mark.parametrize("name", ["trader", "Trader", "trader_bot", "TRADER-2", "tr4der", "greedy", "Random_Bot"])
def test_a_submission_under_a_boss_name_is_refused_before_the_bosses_exist(tmp_path: Path, name: str) -> None:
    db = tmp_path / "ladder.sqlite"
    def run(*args: str, db: Path) -> subprocess.CompletedProcess[str]:  # the real command once; the names, in process
        return run_arena(*args, db=db) if name == "trader" else run_in_process(["--db", db_url(db), *args])
    result = run("submit", str(BOTS / "trader_bot.py"), "--name", name, "--author", "mallory", db=db)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().count("\n") == 0 and "is reserved" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert bot_names(db) == []


def test_a_file_named_after_a_boss_is_refused_under_its_own_name(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    result = run_arena("submit", str(BOTS / "greedy_bot.py"), db=db)  # the name would be greedy_bot
    assert result.returncode == 2 and "'greedy_bot' is reserved" in result.stderr, result.stderr
    assert bot_names(db) == []


@strong
def test_after_refused_squatters_the_boards_show_the_real_boss(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    for name in ("trader", "Trader", "trader_bot"):  # the real refusal: test_a_submission_under_a_boss_name_...
        assert run_in_process(["--db", db_url(db), "submit", str(HOSTILE / "nul_writer.py"),
                               "--name", name]).returncode == 2
    result = run_arena("season", "run", "--name", "s", "--variant", "duel", "--games", "2", "--seed", "3",
                       "--bosses", "trader,random", db=db, timeout=600)
    assert result.returncode == 0, result.stderr
    assert bot_names(db) == ["random", "trader"]
    listing = run_arena("bots", db=db).stdout
    assert "trader (boss)" in listing and "random (boss)" in listing, listing
    with sqlite3.connect(db) as con:
        (author,) = con.execute("SELECT author FROM bot WHERE name = 'trader'").fetchone()
    assert author == "arena"


def test_a_squatter_stored_before_names_were_reserved_is_named_when_its_boss_is_asked_for(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with engine.begin() as conn:  # as an older arena stored it
        conn.execute(text("INSERT INTO bot (name, author, builtin, created_at) "
                          "VALUES ('trader', 'mallory', 0, '2024-05-01 10:00:00')"))
    engine.dispose()
    result = run_arena("season", "run", "--name", "s", "--games", "1", "--bosses", "random,trader", db=db)
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip()
    assert "\n" not in line and "'trader'" in line and "mallory" in line and "2024-05-01" in line, line
    assert bot_names(db) == ["trader"]  # the refused run entered no boss, not even random


# ----------------------------------------------------------------- text a bot writes
def test_storable_replaces_what_no_database_holds_and_nothing_else() -> None:
    from arena.text import storable, terminal

    assert storable("a\x00b\udcff\ud800c") == "a\ufffdb\ufffd\ufffdc"
    assert storable("tab\there \x1b[31m é 🫘") == "tab\there \x1b[31m é 🫘"
    assert storable("ascii\x00only\x00") == "ascii\ufffdonly\ufffd"  # the ASCII path
    plain = "ascii, nothing to replace"
    assert storable(plain) is plain
    assert terminal("x\x1b]0;t\x07\ry\n\tz\u202e") == "x\ufffd]0;t\ufffd\ufffdy\n\ufffdz\ufffd"


@pytest.mark.parametrize("bad", ["late\x00nul", "a surrogate \udcff", "é then \ud800"])
@pytest.mark.parametrize("where", [0, 25, 50])
@pytest.mark.parametrize("shape", ["tuples", "dicts", "nested"])
def test_many_rows_pass_the_door_as_they_are_only_while_every_text_is_storable(bad: str, where: int,
                                                                               shape: str) -> None:
    """A statement's many rows (the coordinator's executemany) are checked in one pass: rows of plain text are
    handed on as they are, and one text the database cannot hold, in any row, gets every row checked."""
    from arena.db.connect import _storable
    from arena.text import storable

    def rows(odd: str) -> list[object]:
        values = [(k, odd if k == where else f"seat {k}", None, b"\x00raw bytes", 1.5) for k in range(51)]
        if shape == "dicts":
            return [dict(zip("abcde", row)) for row in values]
        if shape == "nested":
            return [(row[0], (row[1],)) for row in values]
        return list(values)

    plain = rows("plain ascii text")
    stored = _storable(plain)
    assert stored == plain and (shape == "nested" or stored is plain)
    fixed = _storable(rows(bad))
    assert fixed != rows(bad) and fixed[:where] + fixed[where + 1:] == (rows(bad)[:where] + rows(bad)[where + 1:])
    row = fixed[where]
    text = row["b"] if isinstance(row, dict) else row[1][0] if shape == "nested" else row[1]
    assert text == storable(bad) and "\ufffd" in text


def test_rows_of_mixed_kinds_are_looked_into_row_by_row() -> None:
    """A dict among tuples: its values, not its keys, are what reach the database."""
    from arena.db.connect import _storable

    assert _storable([(1, "a"), (2, "b"), {"b": "x\x00"}]) == [(1, "a"), (2, "b"), {"b": "x\ufffd"}]
    assert _storable([{"a": "x"}, (1, "y\udcff")]) == [{"a": "x"}, (1, "y\ufffd")]


@strong
def test_a_nul_writer_does_not_stop_a_postgresql_season(pg_url: str) -> None:
    engine = make_engine(pg_url)
    with Session(engine) as session:
        register(session, "poison", (HOSTILE / "nul_writer.py").read_text(encoding="utf-8"),
                 ensure_author(session, "mallory"),
                 variants=("classic",))
    engine.dispose()
    fix_seed_key(pg_url)  # the same deals every run: the bot crashes in the games whose first hand it dislikes
    games = 8
    result = run_arena("season", "run", "--name", "nul", "--games", str(games), "--players", "4", "--seed", "5",
                       "--workers", "2", "--bosses", "random,greedy,trader", db=pg_url, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    engine = make_engine(pg_url)
    with engine.connect() as conn:
        statuses = [s for (s,) in conn.execute(text("SELECT status FROM match"))]
        seats = conn.execute(text(
            "SELECT matchseat.status, matchseat.failure_log, matchseat.detail FROM matchseat "
            "JOIN botversion ON matchseat.version_id = botversion.id JOIN bot ON botversion.bot_id = bot.id "
            "WHERE bot.name = 'poison'")).all()
        seats_per_match = conn.execute(text("SELECT count(*) FROM matchseat GROUP BY match_id")).scalars().all()
    engine.dispose()
    assert len(statuses) == games and statuses.count("done") == games, statuses  # each game done, once
    assert len(seats_per_match) == games and set(seats_per_match) == {4}
    crashed = [(log, detail) for status, log, detail in seats if status != "ok"]
    assert 0 < len(crashed) < games, [s for s, _, _ in seats]  # it failed in some games, not in all
    for log, detail in crashed:
        assert "before\ufffdafter" in log, log  # the log is kept, cleaned
        assert "\x00" not in log and "\x00" not in detail
    again = run_arena("season", "run", "--name", "nul", db=pg_url, timeout=300)  # nothing left to replay
    assert again.returncode == 0 and f"{games} games rated, 0 void" in again.stdout, again.stdout + again.stderr


class OneRecordUnstorable(LocalPoolExecutor):
    """A real pool playing real tables; of the second table that comes back, the first game's record
    reaches the coordinator with a seat's coins at 2**40, beyond PostgreSQL's INTEGER."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.tables = 0
        self.spoiled: int | None = None

    def next_result(self) -> list[MatchOutcome]:
        outcomes = super().next_result()
        self.tables += 1
        if self.tables == 2:
            first = outcomes[0]
            assert first.record is not None and len(outcomes) > 1, first  # played, with games after it
            seats = (dataclasses.replace(first.record.seats[0], coins=2**40), *first.record.seats[1:])
            outcomes[0] = dataclasses.replace(first, record=dataclasses.replace(first.record, seats=seats))
            self.spoiled = first.match_id
        return outcomes


def test_a_record_the_database_refuses_voids_its_game_and_the_season_goes_on(pg_url: str) -> None:
    from arena.ladder.seasons import SeasonSettings, rerate, run_season
    from arena.submissions.versions import register_bosses

    games = 9  # three tables of three seat-rotated games
    executor = OneRecordUnstorable(2)
    progress = run_season(make_engine(pg_url), SeasonSettings("refused", games=games, min_players=3, max_players=3,
                                                              seed=8), executor, Limits(),
                          lambda started: started.detect_tier(),
                          prepare=lambda session: register_bosses(session, ["random", "greedy", "trader"]))
    assert executor.spoiled is not None
    assert (progress.done, progress.void, progress.played_now) == (games - 1, 1, games)
    engine = make_engine(pg_url)
    with engine.connect() as conn:
        rows = {i: (status, reason, rated, replay) for i, status, reason, rated, replay in conn.execute(
            text("SELECT id, status, void_reason, rated_order, replay FROM match"))}
        seats = {i: (n, top) for i, n, top in conn.execute(
            text("SELECT match_id, count(*), max(coins) FROM matchseat GROUP BY match_id"))}
        finished = conn.execute(text("SELECT finished_at FROM season WHERE name = 'refused'")).scalar_one()
    with Session(engine) as session:
        differences = rerate(session, "classic", write=False)
    engine.dispose()
    status, reason, rated, replay = rows.pop(executor.spoiled)
    assert status == "void" and rated is None and replay is None and seats.pop(executor.spoiled) == (3, None)
    assert reason.startswith("the database refused its record: ") and "integer out of range" in reason, reason
    assert "\n" not in reason
    assert len(rows) == games - 1 and {status for status, *_ in rows.values()} == {"done"}  # each other game done, once
    assert sorted(rated for _, _, rated, _ in rows.values()) == list(range(1, games))
    assert all(replay for *_, replay in rows.values())
    assert set(seats) == set(rows) and all(n == 3 and 0 <= top < 100 for n, top in seats.values())
    assert finished is not None
    assert differences == []  # the stored ratings are those of the recorded games


# ----------------------------------------------------------------- text a file carries
EVIL = "ev\x1b]0;owned\x07il\r\x1b[2J\x1b[31m\x08\x9b1m\u202e"


def test_a_replay_file_prints_no_control_character(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    replay = tmp_path / "game.json"
    played = run_arena("play", "random", "greedy", "--variant", "duel", "--seed", "4", "--replay", str(replay), db=db)
    assert played.returncode == 0, played.stderr
    data = json.loads(replay.read_text())
    data["seats"] = [EVIL + str(i) for i in range(len(data["seats"]))]
    replay.write_text(json.dumps(data))
    for extra in ((), ("--turns",), ("--step", "3")):
        result = run_arena("replay", str(replay), *extra)
        assert result.returncode == 0, result.stderr
        assert "ev\ufffd]0;owned" in result.stdout  # the name is there, made harmless
        assert control_characters(result.stdout + result.stderr) == [], (extra, result.stdout[:400])


@strong
def test_a_bot_file_name_prints_no_control_character(tmp_path: Path) -> None:
    bot = tmp_path / f"{EVIL}.py"
    bot.write_text((BOTS / "random_bot.py").read_text())
    result = run_arena("play", str(bot), "greedy", "--variant", "duel", "--stderr")
    assert result.returncode == 0, result.stderr
    assert "ev\ufffd]0;owned" in result.stdout
    assert control_characters(result.stdout + result.stderr) == []


# ----------------------------------------------------------------- files
def test_a_symlink_to_a_bot_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    link = tmp_path / "mine.py"
    link.symlink_to(BOTS / "random_bot.py")
    for command in (("submit", str(link)), ("play", str(link), "random", "--variant", "duel")):
        result = run_arena(*command, db=db)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert result.stderr.strip() == f"Error: {str(link)!r} is a symbolic link; give the bot file itself"
    assert bot_names(db) == []


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    fifo = tmp_path / "mine.py"
    os.mkfifo(fifo)  # nobody writes to it: reading it would wait for ever (run_arena's timeout)
    for command in (("submit", str(fifo)), ("play", str(fifo), "random", "--variant", "duel")):
        result = run_arena(*command, db=db, timeout=120)
        assert result.returncode == 2, (command, result.stderr)
        assert result.stderr.strip() == f"Error: {str(fifo)!r} is a FIFO, not a bot file"
    assert bot_names(db) == []


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    huge = tmp_path / "huge.py"
    with open(huge, "wb") as f:  # sparse: 400 MB that take no disk
        f.truncate(400 * 1024 * 1024)
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(r.stderr)\n")
    result = subprocess.run([sys.executable, "-c", probe, *ARENA, "--db", db_url(db), "submit", str(huge)],
                            capture_output=True, text=True, timeout=300)
    code, peak_kib = map(int, result.stdout.split())
    assert code == 2 and result.stderr.strip() == (f"Error: {str(huge)!r} is {400 * 1024 * 1024} bytes; "
                                                   f"the limit is 262144")
    assert peak_kib < 150 * 1024, peak_kib  # the interpreter and its imports, never the file
    assert bot_names(db) == []
