"""`arena test` keeps its tests: every counted pair is stored with its games as it arrives, whole or not at all, a
test stopped by SIGTERM or killed resumes with its pairs, a finished one says its verdict again without playing, a
changed bot refuses the resume, duels play NEW against OLD; real sandboxed bots through the command line."""
from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

from arena_helpers import db_url, run_arena
from sqlmodel import Session, col, select

import pytest
from sqlalchemy.exc import IntegrityError

from arena.db import TestRun, TestRunBot, TestRunGame, TestRunPair, make_engine
from arena.testrun.sprt import Hypotheses
from arena.testrun.store import (Candidate, GameSeat, TestGame, TestRunSettings, create_test, load_test, record_pair,
                                 stored_games)
from engine import new_game, rules_for
from engine.replay import Replay, Resimulation
from forked_arena import arena_popen

BOTS = Path(__file__).resolve().parents[2] / "bots"


def stored_pairs(db: Path, name: str) -> list[tuple[int, float, float]]:
    engine = make_engine(db_url(db))
    try:
        with Session(engine) as session:
            test = session.exec(select(TestRun).where(TestRun.name == name)).first()
            if test is None:
                return []
            return [(p.number, p.first, p.second) for p in session.exec(
                select(TestRunPair).where(TestRunPair.test_id == test.id).order_by(col(TestRunPair.number))).all()]
    finally:
        engine.dispose()


def games_by_pair(db: Path, name: str) -> dict[int, list[TestGame]]:
    """Test ``name``'s stored games with their replays, by pair."""
    engine = make_engine(db_url(db))
    try:
        with Session(engine) as session:
            test = load_test(session, name)
            assert test is not None
            games: dict[int, list[TestGame]] = {}
            for game in stored_games(session, test.id, replays=True):
                games.setdefault(game.pair, []).append(game)
            return games
    finally:
        engine.dispose()


def pair_count(db: Path, name: str) -> int:
    """How many pairs test ``name`` has stored: one SQL query, cheap enough to poll (an engine per poll
    costs ~13 ms of CPU)."""
    if not db.exists():
        return 0
    try:
        with closing(sqlite3.connect(db, timeout=5)) as con:
            return int(con.execute("SELECT count(*) FROM versuspair "
                                   "JOIN versustest ON versuspair.test_id = versustest.id "
                                   "WHERE versustest.name = ?", (name,)).fetchone()[0])
    except sqlite3.OperationalError:  # no tables yet, or the file is being written: ask again
        return 0


def stop_after(db: Path, name: str, args: list[str], pairs: int,
               how: signal.Signals) -> subprocess.CompletedProcess[str]:
    """Run ``arena test ARGS`` until ``pairs`` more pairs of test ``name`` are stored, then send ``how``."""
    before = len(stored_pairs(db, name))
    process = arena_popen(["--db", db_url(db), "test", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while pair_count(db, name) < before + pairs:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no pairs stored in time"
            time.sleep(0.1)
        process.send_signal(how)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_a_stopped_test_resumes_with_its_pairs_and_a_finished_one_only_says_its_verdict(tmp_path: Path) -> None:
    """Also the end-to-end check that a bot against its own copy never reaches H1."""
    db = tmp_path / "ladder.sqlite"
    copy = tmp_path / "greedy_copy.py"
    shutil.copy(BOTS / "greedy_bot.py", copy)  # a copy of OLD: every pair level, never H1 (H0 after 18 pairs)
    args = [str(copy), "--against", "greedy", "--field", "random,trader", "--elo1", "50", "--max-pairs", "8",
            "--name", "copy"]
    stopped = stop_after(db, "copy", args, 3, signal.SIGTERM)
    assert stopped.returncode == 1, stopped.stderr
    assert stopped.stderr.strip().splitlines()[-1] == (
        "Error: interrupted; the counted pairs are saved: 'arena test resume copy' continues the test")
    first = stored_pairs(db, "copy")
    assert len(first) >= 3 and [n for n, _, _ in first] == list(range(len(first)))
    listed = run_arena("test", "list", db=db)
    assert listed.returncode == 0 and "copy" in listed.stdout and "stopped" in listed.stdout
    # the same command again resumes, and is killed outright this time
    killed = stop_after(db, "copy", args, 2, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    second = stored_pairs(db, "copy")
    assert second[:len(first)] == first and len(second) >= len(first) + 2
    assert "resuming at" in killed.stderr
    games = games_by_pair(db, "copy")  # killed outright: each stored pair has its four games, no game is without one
    assert sorted(games) == [n for n, _, _ in second] and all(len(g) == 4 for g in games.values())
    done = run_arena("test", "resume", "copy", db=db)
    assert done.returncode in (3, 4), done.stdout + done.stderr  # H0 or undecided, never H1
    final = stored_pairs(db, "copy")
    assert final[:len(second)] == second and [n for n, _, _ in final] == list(range(len(final)))
    assert f"pairs {len(final)} " in done.stdout  # the verdict counts every stored pair, no more
    assert done.returncode == 3 or (len(final) == 8 and done.stdout.startswith("inconclusive after 8 pairs"))
    assert done.stdout.startswith(("H0: greedy_copy is not better than greedy_bot", "inconclusive after 8 pairs"))
    again = run_arena("test", "resume", "copy", db=db)
    assert (again.returncode, again.stdout) == (done.returncode, done.stdout)  # said again, nothing played
    assert stored_pairs(db, "copy") == final
    shown = run_arena("test", "list", db=db).stdout
    assert "stopped" not in shown
    header, row = shown.splitlines()
    assert header.split()[4:6] == ["pairs", "games"] and row.split()[4:6] == [str(len(final)), str(4 * len(final))]


def test_a_resume_refuses_a_changed_bot_and_plays_the_stored_source_of_a_removed_one(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    bot = tmp_path / "mine.py"
    shutil.copy(BOTS / "trader_bot.py", bot)
    trader = bot.read_text()
    engine = make_engine(db_url(db))
    settings = TestRunSettings("mine", "classic", Hypotheses(0, 50), 2, (
        Candidate(str(bot), "mine", trader), Candidate("random", "random_bot", (BOTS / "random_bot.py").read_text()),
        Candidate("random", "random_bot", (BOTS / "random_bot.py").read_text()),
        Candidate("greedy", "greedy_bot", (BOTS / "greedy_bot.py").read_text())))
    create_test(engine, settings)
    engine.dispose()
    bot.write_text(trader + "\n# changed after the test started\n")
    changed = run_arena("test", "resume", "mine", db=db)
    assert changed.returncode == 2 and changed.stderr.strip() == (
        f"Error: test 'mine' cannot resume: NEW {str(bot)!r} changed since it started (other code than the stored "
        "one); start a new test with another --name")
    same_command = run_arena("test", str(bot), "--against", "random", "--field", "random,greedy", "--elo1", "50",
                             "--max-pairs", "2", "--name", "mine", db=db)
    assert same_command.returncode == 2 and "NEW" in same_command.stderr and "changed since" in same_command.stderr
    bot.unlink()
    gone = run_arena("test", "resume", "mine", db=db)
    assert gone.returncode in (0, 4), gone.stdout + gone.stderr
    assert f"note: NEW {str(bot)!r} is gone; playing the source stored with the test" in gone.stderr
    assert len(stored_pairs(db, "mine")) == 2 and gone.stdout.startswith(("H1: mine is better", "inconclusive after 2"))


def test_a_duel_test_plays_new_against_old(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    duel = run_arena("-q", "test", "trader", "--against", "random", "--format", "duel", "--elo1", "50",
                     "--max-pairs", "40", db=db)
    assert duel.returncode == 0, duel.stdout + duel.stderr
    assert duel.stdout.startswith("H1: trader_bot is better than random_bot (pairs ")
    pairs = stored_pairs(db, "test-1")  # the name a test started without --name gets
    assert f"games {2 * len(pairs)}:" in duel.stdout  # two games a pair head to head
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        test = session.exec(select(TestRun)).one()
        assert (test.variant, test.verdict, test.finished_at is not None) == ("duel", "H1", True)
        assert [b.name for b in session.exec(select(TestRunBot).order_by(col(TestRunBot.role))).all()] == [
            "trader_bot", "random_bot"]  # no field
    engine.dispose()
    games = games_by_pair(db, "test-1")
    assert sorted(games) == [n for n, _, _ in pairs]
    for number, first, second in pairs:  # each pair: one deal, NEW in seat 0 then in seat 1, its replays real games
        swapped, again = games[number]
        assert (swapped.game, again.game, swapped.deal, again.deal, swapped.seed) == (0, 1, 0, 0, again.seed)
        assert [s.role for s in swapped.seats] == [0, 1] and [s.role for s in again.seats] == [1, 0]
        for game in (swapped, again):
            replay = Replay.loads(game.replay)
            assert (replay.rules_id, replay.seed, replay.seats) == ("duel-v1", game.seed, ("trader_bot", "random_bot")
                                                                    if game.game == 0 else ("random_bot", "trader_bot"))
            assert replay.result is not None and list(replay.result.ranks) == [s.rank for s in game.seats]
            assert list(replay.result.coins) == [s.coins for s in game.seats]
            assert Resimulation.of(replay, check=True).to_end().over  # the record re-simulates to its end
        new_rank, old_rank = swapped.seats[0].rank, swapped.seats[1].rank
        assert first == (1.0 if new_rank < old_rank else 0.5 if new_rank == old_rank else 0.0)
    listed = run_arena("test", "list", db=db).stdout.splitlines()[1].split()
    assert listed[4:6] == [str(len(pairs)), str(2 * len(pairs))]  # the games column: what is stored


def test_bad_stored_test_input_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    cases = {
        ("test", "resume", "nothing"): "Error: no test named 'nothing' (arena test list shows the stored ones)",
        ("test", "--name", "nothing"): "Error: no test named 'nothing': start one with "
                                       "'arena test NEW --against OLD --name nothing'",
        ("test", "trader", "--against", "random", "--format", "duel", "--field", "greedy"):
            "Error: --field makes no sense in format 'duel': its tables hold 2 players, so NEW plays OLD directly "
            "(the same deal twice, seats swapped)",
        ("test", "trader", "--against", "random", "--format", "solo"):
            "Error: format 'solo' is played by 1 player: a test needs NEW and OLD at tables of two or more",
        ("test", "trader", "--against", str(tmp_path / "missing.py")):
            f"Error: no bot {str(tmp_path / 'missing.py')!r}: not a file, not a built-in bot",
        ("test", "trader"): "Error: Missing option '--against': the version NEW has to beat",
    }
    for args, line in cases.items():
        result = run_arena(*args, db=db)
        assert result.returncode == 2 and result.stderr.strip().startswith(line), (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert run_arena("test", "list", db=db).stdout.strip() == (
        "no tests yet: start one with 'arena test NEW --against OLD'")


def test_a_test_is_refused_in_one_line_while_another_run_holds_the_database(tmp_path: Path) -> None:
    from arena.db import exclusive_run

    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with exclusive_run(engine, "a season"):
        refused = run_arena("test", "trader", "--against", "random", "--name", "busy", db=db)
    assert refused.returncode == 1 and refused.stderr.strip().splitlines() == [
        f"Error: arena test 'busy' refused: database {str(db)!r} is in use by pid {os.getpid()}"]
    assert run_arena("test", "list", db=db).stdout.startswith("no tests yet")  # nothing was stored
    engine.dispose()


def test_a_pair_whose_games_cannot_be_stored_is_not_stored_either(tmp_path: Path) -> None:
    """A pair and its games are one transaction: a failure while storing a game (here a game stored twice, refused by
    the database) leaves neither the pair nor any of its games, and the test's counted pairs as they were."""
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    source = (BOTS / "random_bot.py").read_text()
    settings = TestRunSettings("atomic", "duel", Hypotheses(0, 50), 4,
                               (Candidate("random", "random_bot", source), Candidate("random", "random_bot", source)))
    test_id = create_test(engine, settings)
    game = new_game(rules_for("duel"), 2, 7)
    replay = Replay.of(game, ["random_bot", "random_bot"]).dumps()
    seats = (GameSeat(0, 0, 1, "ok"), GameSeat(1, 0, 1, "ok"))
    good = [TestGame(0, 0, 0, 7, seats, 0.1, replay), TestGame(0, 1, 0, 7, seats[::-1], 0.1, replay)]
    record_pair(engine, test_id, 0, (0.5, 0.5), None, False, good)
    twice = [TestGame(1, 0, 0, 8, seats, 0.1, replay), TestGame(1, 0, 0, 8, seats, 0.1, replay)]
    with pytest.raises(IntegrityError):
        record_pair(engine, test_id, 1, (1.0, 1.0), None, True, twice)
    with Session(engine) as session:
        assert [p.number for p in session.exec(select(TestRunPair)).all()] == [0]
        assert [(g.pair, g.game) for g in session.exec(select(TestRunGame)).all()] == [(0, 0), (0, 1)]
        test = load_test(session, "atomic")
        assert test is not None and (test.results.pairs, test.games, test.finished) == (1, 2, False)
    engine.dispose()
