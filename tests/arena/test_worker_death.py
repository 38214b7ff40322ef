"""A pool worker killed mid-table (SIGKILL, as the OOM killer does): its table comes back void with
the reason, the pool carries on with a new worker, and the season finishes with every game recorded."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from arena_helpers import ARENA, db_url, descendants, process_tree, run_arena
from sqlmodel import Session

from arena.db import make_engine
from arena.submit import register

SLOW_BOT = "import time\nfrom sandbox.sdk import Bot\n\nclass Slow(Bot):\n    def act(self, message):\n" \
           "        time.sleep(0.02)\n        return super().act(message)\n"


def test_a_killed_worker_voids_its_table_and_the_season_finishes(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        for name in ("slow1", "slow2", "slow3"):
            register(session, name, SLOW_BOT + f"# {name}\n", f"author {name}")
    engine.dispose()
    season = subprocess.Popen([*ARENA, "--db", db_url(db), "season", "run", "--name", "s", "--games", "9",
                               "--players", "3", "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        victim = None
        deadline = time.monotonic() + 60
        while victim is None and time.monotonic() < deadline:
            time.sleep(0.5)
            tree = process_tree()
            workers = [p for p in descendants(season.pid, tree) if tree[p][0] == season.pid and "python" in tree[p][1]]
            playing = [w for w in workers if any("bwrap" in tree[d][1] for d in descendants(w, tree))]
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
