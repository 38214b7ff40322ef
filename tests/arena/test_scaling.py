"""Beyond one machine, for real: seasons on a private PostgreSQL server (killed and resumed, a second
writer refused) and on a Dask LocalCluster of worker processes (a worker killed mid-season), and the
same matches giving the same replays on the local pool and on Dask.

In CI (CI=true) a missing PostgreSQL server or Dask fails these tests instead of skipping them.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from sqlmodel import Session, select

from arena.db import Match, RatingSnapshot, make_engine
from arena.ladder.dask_executor import DaskExecutor
from arena.cli.season import executor_for
from arena.ladder.executors import ExecutorError, LocalPoolExecutor
from arena.ladder.random_seeds import database_key
from arena.ladder.seasons import record_outcome, rerate
from arena.ladder.planning import Planner, SeasonSettings, get_or_create_season, table_task
from arena.ladder.rankings import load_book
from arena.play.tables import run_table
from arena.submissions.versions import register
from arena_helpers import (ARENA, db_url, descendants, done_count, kill_mid_season, process_tree, run_arena, survivors,
                           wait_for_done)
from arena_helpers import missing, present
from sandbox import Limits, detect_tier
from sandbox.procscan import live_descendants

PROJECT = Path(__file__).resolve().parents[2]
BOTS = ("random", "greedy", "trader")  # deterministic given the bot seed


@pytest.fixture(scope="module")
def dask_available() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        missing("dask distributed is not installed (pip install -e '.[test]')")


def register_bots(url: str) -> None:
    engine = make_engine(url)
    with Session(engine) as session:
        for name in BOTS:
            register(session, name, (PROJECT / "bots" / f"{name}_bot.py").read_text(), builtin=True)
    engine.dispose()


def check_complete(url: str, games: int, players: int = 3) -> None:
    """Every game of the season done and recorded exactly once, ratings equal to a recomputation."""
    engine = make_engine(url)
    with Session(engine) as session:
        matches = session.exec(select(Match)).all()
        assert len(matches) == games
        assert all(m.status == "done" and m.replay for m in matches)
        assert sorted(m.number for m in matches) == list(range(games))
        assert sorted(present(m.rated_order) for m in matches) == list(range(1, games + 1))
        assert len(session.exec(select(RatingSnapshot)).all()) == players * games
        assert rerate(session, "classic", write=False) == []
    engine.dispose()


# ----------------------------------------------------------------- PostgreSQL
def test_postgres_season_killed_resumes_and_refuses_a_second_writer(pg_url: str) -> None:
    register_bots(pg_url)
    games = 40  # enough that the season is still running when it is killed, even on a loaded machine (at a load
    # of 13 on 2 cores the second writer took as long as 12 games: 18 were done of 30)
    pid, second = kill_mid_season(pg_url, ["--name", "crash", "--games", str(games), "--players", "3", "--seed", "9"],
                                  ["season", "run", "--name", "crash"])
    assert second.returncode == 1, second.stderr
    assert "refused" in second.stderr and f"in use by arena pid {pid}" in second.stderr
    assert "Traceback" not in second.stderr and second.stderr.count("\n") == 1

    engine = make_engine(pg_url)
    with Session(engine) as session:
        done_before = session.exec(select(Match).where(Match.status == "done")).all()
        assert 4 <= len(done_before) < games
        assert rerate(session, "classic", write=False) == []
    engine.dispose()
    resumed = run_arena("season", "run", "--name", "crash", db=pg_url)  # the dead run's lock went with it
    assert resumed.returncode == 0, resumed.stderr
    check_complete(pg_url, games)
    engine = make_engine(pg_url)
    with Session(engine) as session:
        for m in done_before:  # what was recorded before the kill is untouched
            again = present(session.get(Match, m.id))
            assert again.replay == m.replay and again.rated_order == m.rated_order
    engine.dispose()
    board = run_arena("leaderboard", "--rerate", db=pg_url)
    assert board.returncode == 0 and "0 ratings differed" in board.stderr


def test_unreachable_database_is_one_line() -> None:
    result = run_arena("bots", db="postgresql://arena:secret@127.0.0.1:1/nowhere", timeout=60)
    assert result.returncode == 1
    assert "cannot open database 'postgresql://arena:***@127.0.0.1:1/nowhere'" in result.stderr
    assert "secret" not in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_a_match_recorded_twice_counts_once(tmp_path: Path) -> None:
    url = db_url(tmp_path / "twice.sqlite")
    register_bots(url)
    engine = make_engine(url)
    with Session(engine) as session:
        season = get_or_create_season(session, SeasonSettings("twice", games=1, min_players=3, max_players=3, seed=1))
        planner = Planner(session, season, load_book(session, "classic"))
        task = table_task(session, planner.plan(), Limits(), detect_tier(), database_key(session))
        outcome, = run_table(task)
        assert record_outcome(session, planner.book, outcome) is True
        first = present(session.get(Match, outcome.match_id)).model_dump()
        assert record_outcome(session, planner.book, outcome) is False  # a re-run table coming back again
        assert present(session.get(Match, outcome.match_id)).model_dump() == first
        assert len(session.exec(select(RatingSnapshot)).all()) == 3
        assert rerate(session, "classic", write=False) == []


# ----------------------------------------------------------------- Dask
def test_bad_executor_values_are_one_line(tmp_path: Path) -> None:
    for value in ("spark://x", "dask://nohostport", "dask://host:port"):
        result = run_arena("season", "run", "--executor", value, db=tmp_path / "x.sqlite")
        assert result.returncode == 2, result.stderr
        assert repr(value) in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    with pytest.raises(ExecutorError, match="want dask://HOST:PORT"):
        executor_for("dask://:80", 2)


def test_unreachable_scheduler_is_one_line(tmp_path: Path, dask_available: None) -> None:
    db = tmp_path / "x.sqlite"
    register_bots(db_url(db))
    result = run_arena("season", "run", "--games", "3", "--executor", "dask://127.0.0.1:1", db=db, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "cannot reach the Dask scheduler 'tcp://127.0.0.1:1'" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert done_count(db_url(db)) == 0


def test_dask_season_survives_a_killed_worker(tmp_path: Path, dask_available: None) -> None:
    url = db_url(tmp_path / "dask.sqlite")
    register_bots(url)
    games = 12  # four tables: one is still being played after the first is done
    season = subprocess.Popen([*ARENA, "--db", url, "season", "run", "--name", "dask", "--games", str(games),
                               "--players", "3", "--seed", "4", "--executor", "dask-local", "--workers", "2"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_done(url, 2)
        victim, bots = None, []
        deadline = time.monotonic() + 30
        while victim is None and time.monotonic() < deadline:  # a worker process in the middle of a table
            tree = process_tree()
            workers = [p for p in descendants(season.pid, tree) if "spawn_main" in tree[p][2]]
            assert len(workers) == 2, "a LocalCluster of two worker processes"
            for worker in workers:
                bots = [p for p in descendants(worker, tree) if tree[p][1] == "bwrap"]
                if bots:  # bubblewrap bot processes start inside a Dask worker
                    victim = worker
                    break
            time.sleep(0.02)
        assert victim is not None, "no Dask worker was seen running sandboxed bots"
        started = {pid: start for pid, start in live_descendants(os.getpid()).items() if pid in (victim, *bots)}
        os.kill(victim, signal.SIGKILL)
        out, err = season.communicate(timeout=240)
    finally:
        season.kill()
    assert season.returncode == 0, err
    assert f"{games} games rated" in out
    deadline = time.monotonic() + 10
    while survivors(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert survivors(started) == [], "the killed worker's bots die with it"
    check_complete(url, games)


def test_same_matches_same_replays_on_the_local_pool_and_on_dask(tmp_path: Path, dask_available: None) -> None:
    url = db_url(tmp_path / "same.sqlite")
    register_bots(url)
    engine = make_engine(url)
    tier = detect_tier()
    with Session(engine) as session:
        settings = SeasonSettings("same", games=9, min_players=3, max_players=3, rotate=True, seed=21)
        season = get_or_create_season(session, settings)
        planner = Planner(session, season, load_book(session, "classic"))
        key = database_key(session)
        tasks = [table_task(session, planner.plan(), Limits(), tier, key) for _ in range(3)]
    engine.dispose()  # nothing may cross the local pool's fork
    assert sum(len(t.games) for t in tasks) == 9
    replays = {}
    for executor in (LocalPoolExecutor(2), DaskExecutor(None, 2)):
        with executor:
            for task in tasks:
                executor.submit(task)
            outcomes = [o for _ in tasks for o in executor.next_result()]
        assert all(o.record is not None and not o.record.void for o in outcomes)
        replays[executor.name] = {o.match_id: present(o.record).replay.dumps() for o in outcomes}
    local, dask = replays.values()
    assert sorted(local) == sorted(m.match_id for t in tasks for m in t.games)
    assert local == dask


@contextmanager
def cluster_by_hand(folder: Path, workers: dict[str, tuple[int, dict[str, str] | None]]) -> Iterator[str]:
    """`dask scheduler` and `dask worker tcp://...` as docs/scaling.md starts them: ``workers`` maps a
    name to (processes, environment or None for this one); yields the scheduler's ``dask://`` address."""
    from pg_server import free_port

    port = free_port()
    dask = [sys.executable, "-m", "dask"]
    logs = [open(folder / f"{name}.log", "w") for name in ("scheduler", *workers)]
    processes = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                  stdout=logs[0], stderr=logs[0], start_new_session=True)]
    for log, (count, env) in zip(logs[1:], workers.values()):
        processes.append(subprocess.Popen([*dask, "worker", f"tcp://127.0.0.1:{port}", "--nworkers", str(count),
                                           "--nthreads", "1", "--no-dashboard"], stdout=log, stderr=log,
                                          start_new_session=True, env=env))
    try:
        from distributed import Client

        # every worker registered first; the bounds are far beyond a loaded machine's pace (a scheduler busy
        # starting answered its first call after 20 s once, beside the rest of the suite)
        with Client(f"tcp://127.0.0.1:{port}", timeout="180s") as client:
            client.wait_for_workers(sum(count for count, _ in workers.values()), timeout=300)
        yield f"dask://127.0.0.1:{port}"
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for log in logs:
            log.close()


def test_a_dask_worker_without_the_strong_tier_gets_no_tables(tmp_path: Path, dask_available: None) -> None:
    """A season on `dask scheduler` and `dask worker tcp://...` as docs/scaling.md starts them (the
    coordinator at dask://): a worker of two processes, and one on a machine (here: a PATH) without
    bubblewrap. The season runs on the strong worker, and the coordinator names the weak one once, with why."""
    url = db_url(tmp_path / "mixed.sqlite")
    register_bots(url)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    no_bwrap = {**os.environ, "PATH": str(empty)}  # no bwrap on this "machine"
    with cluster_by_hand(tmp_path, {"strong": (2, None), "plain": (1, no_bwrap)}) as address:
        result = run_arena("season", "run", "--name", "mixed", "--games", "8", "--players", "3", "--seed", "4",
                           "--executor", address, db=url, timeout=240)
        assert result.returncode == 0, result.stderr
        assert "8 games rated" in result.stdout
        assert "8 games rated, 0 void" in result.stdout
        told = [line for line in result.stderr.splitlines() if "has no strong sandbox" in line]
        assert len(told) == 1 and "bwrap not found" in told[0] and told[0].endswith("it gets no tables"), result.stderr
    check_complete(url, 8)
