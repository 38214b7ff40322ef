"""A pool worker killed mid-table (SIGKILL, as the OOM killer does): its table comes back void with
the reason, a new worker takes its place, and the season finishes with every game recorded. (With
multiprocessing.Pool a worker killed while it waited for a task held the queue's lock and hung the
season for good; each worker now has a pipe of its own.)"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from arena.submissions.accounts import ensure_author
from arena_helpers import db_url, descendants, process_tree, run_arena, wait_for_done
from sqlmodel import Session

from arena.db import make_engine
from arena.submissions.versions import register
from sandbox.isolation import SLOT_UIDS, Confinement, confinement
from forked_arena import arena_popen, arena_run

RUNNER = "__bohnanza_runner__"  # in the bootstrap of every sandboxed runner (sandbox/boot.py)

SLOW_BOT = "import time\nfrom sandbox.sdk import Bot\n\nclass Slow(Bot):\n    def act(self, message):\n" \
           "        time.sleep(0.005)\n        return super().act(message)\n"


def bot_process(pid: int, tree: dict[int, tuple[int, str, str]]) -> bool:
    """A bot at play. With uid slots: a process of a slot uid (a worker's idle fork servers run as root).
    In a user namespace every sandboxed process has the worker's uid: a runner whose parent is a runner,
    not bubblewrap (a fork server's child)."""
    if confinement() is Confinement.USER_NAMESPACE:
        parent = tree[pid][0]
        return RUNNER in tree[pid][2] and parent in tree and RUNNER in tree[parent][2] and tree[parent][1] != "bwrap"
    try:
        return os.stat(f"/proc/{pid}").st_uid in SLOT_UIDS
    except OSError:
        return False


def slow_ladder(tmp_path: Path) -> Path:
    """A database with three slow bots of three authors (tables last long enough to interrupt)."""
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        for name in ("slow1", "slow2", "slow3"):
            register(session, name, SLOW_BOT + f"# {name}\n", ensure_author(session, f"author {name}"))
    engine.dispose()
    return db


def test_a_killed_worker_voids_its_table_and_the_season_finishes(tmp_path: Path) -> None:
    db = slow_ladder(tmp_path)
    season = arena_popen(["--db", db_url(db), "season", "run", "--name", "s", "--games", "9",
                               "--players", "3", "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        victim = None
        deadline = time.monotonic() + 60
        while victim is None and time.monotonic() < deadline:
            time.sleep(0.5)
            tree = process_tree()
            workers = [p for p in descendants(season.pid, tree) if tree[p][0] == season.pid and "python" in tree[p][1]]
            playing = [w for w in workers if any(bot_process(d, tree) for d in descendants(w, tree))]
            victim = playing[0] if playing else None
        assert victim is not None, "no worker was seen playing a table"
        os.kill(victim, signal.SIGKILL)
        out, err = season.communicate(timeout=600)
    finally:
        if season.poll() is None:
            season.kill()
    assert season.returncode == 0, err
    assert "Traceback" not in err
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT status, void_reason FROM match").fetchall()
    statuses = [s for s, _ in rows]
    assert len(rows) == 9 and "planned" not in statuses
    voids = [reason for status, reason in rows if status == "void"]
    assert voids and all(f"the worker playing it (pid {victim}) died" in reason for reason in voids)
    assert statuses.count("done") == 9 - len(voids)
    assert f"{statuses.count('done')} games rated, {len(voids)} void" in out
    rerate = run_arena("leaderboard", "--rerate", db=db)
    assert "rerated classic: 0 ratings differed" in rerate.stderr
    shown = run_arena("season", "show", "s", db=db)
    assert f"void: the worker playing it (pid {victim}) died" in shown.stdout


def test_a_worker_killed_between_tables_costs_nothing(tmp_path: Path) -> None:
    """Killed while it waits for its next table (the case that hung multiprocessing.Pool)."""
    from arena.ladder.executors import LocalPoolExecutor

    executor = LocalPoolExecutor(2)
    with executor:
        victim = executor._pool[0].process
        os.kill(victim.pid, signal.SIGKILL)
        victim.join(timeout=5)
        from arena.play.tables import GameSpec, SeatEntry, TableTask
        from engine import classic_rules
        from sandbox import Limits, detect_tier

        greedy = (Path(__file__).resolve().parents[2] / "bots" / "greedy_bot.py").read_text()
        bots = tuple(SeatEntry(i, f"g{i}", greedy) for i in range(3))
        for table in range(3):
            executor.submit(TableTask(classic_rules().id, bots, (GameSpec(10 + table, table, (0, 1, 2)),), Limits(),
                                      detect_tier()))
        outcomes = [o for _ in range(3) for o in executor.next_result()]
    by_id = {o.match_id: o for o in outcomes}
    assert sorted(by_id) == [10, 11, 12]
    # a table sent to the dead worker comes back void; the others are played, by its replacement too
    assert sum(o.record is not None for o in outcomes) >= 2
    assert all(o.record is not None or "died" in (o.machine_fault or "") for o in outcomes)


def test_sigterm_stops_a_season_with_one_line_and_it_resumes(tmp_path: Path) -> None:
    """What systemd, Kubernetes and `timeout` send: the same clean stop as Ctrl-C, every finished game
    kept, and the next run finishes the season with every game recorded once."""
    db = slow_ladder(tmp_path)
    # three tables of three games for two workers: the third is still being played when the first is done
    args = ["--db", db_url(db), "season", "run", "--name", "s", "--games", "9", "--players", "3", "--workers", "2"]
    season = arena_popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_done(db, 1, timeout=120)
        season.send_signal(signal.SIGTERM)
        _, err = season.communicate(timeout=60)
    finally:
        if season.poll() is None:
            season.kill()
    assert season.returncode == 1 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "Error: interrupted; finished games are saved: 'arena season run --name s' resumes")
    resumed = arena_run(args, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(db) as con:
        statuses = [s for (s,) in con.execute("SELECT status FROM match")]
    assert len(statuses) == 9 and set(statuses) == {"done"}  # the tables in flight were resumed, not lost
    assert "rerated classic: 0 ratings differed" in run_arena("leaderboard", "--rerate", db=db).stderr
