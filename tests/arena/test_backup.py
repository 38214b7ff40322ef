"""`arena backup`: a consistent copy of the SQLite file while a season records games into it."""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from arena_helpers import db_url, done_count, run_arena, wait_for_done
from forked_arena import arena_popen


def test_a_backup_taken_mid_season_is_a_whole_ladder(db: Path, tmp_path: Path) -> None:
    season = arena_popen(["--db", db_url(db), "season", "run", "--name", "s", "--games", "16",
                               "--workers", "2", "--bosses", "random,greedy,trader"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    copy = tmp_path / "copy.sqlite"
    try:
        wait_for_done(db, 4)
        # The coordinator alone writes the database: held still (maybe inside a transaction, its workers still
        # playing), it commits nothing, so the copy must hold exactly what is committed now, however fast the
        # season runs (the copy once outlasted the season, and a check that it was still running failed)
        os.kill(season.pid, signal.SIGSTOP)
        try:
            committed = done_count(db)
            result = run_arena("backup", "--to", str(copy), db=db)
            assert done_count(db) == committed
        finally:
            os.kill(season.pid, signal.SIGCONT)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("copied ") and str(copy) in result.stdout
    finally:
        out, err = season.communicate(timeout=600)
    assert season.returncode == 0, err
    copied = done_count(copy)
    assert copied == committed and 4 <= copied <= 16 and done_count(db) == 16
    rerate = run_arena("leaderboard", "--rerate", db=copy)  # the copy is one committed state: ratings agree
    assert rerate.returncode == 0 and "rerated classic: 0 ratings differed" in rerate.stderr, rerate.stderr
    resumed = run_arena("season", "run", "--name", "s", "--workers", "2", db=copy, timeout=600)
    assert resumed.returncode == 0, resumed.stderr  # and it resumes where the copy stood
    assert done_count(copy) == 16


def test_backup_refuses_what_it_cannot_do_in_one_line(db: Path, tmp_path: Path) -> None:
    run_arena("bots", db=db)  # creates the database
    taken = tmp_path / "taken.sqlite"
    taken.write_text("keep me")
    for target, words in ((taken, "exists; choose a new file"), (tmp_path / "no" / "x.sqlite", "does not exist")):
        result = run_arena("backup", "--to", str(target), db=db)
        assert result.returncode != 0 and words in result.stderr and "Traceback" not in result.stderr
    assert taken.read_text() == "keep me" and not list(tmp_path.glob("*.partial"))


def test_backup_of_a_postgresql_ladder_points_to_pg_dump(pg_url: str, tmp_path: Path) -> None:
    result = run_arena("backup", "--to", str(tmp_path / "x.sqlite"), db=pg_url)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "copies SQLite files; for postgresql use its own tools (PostgreSQL: pg_dump)" in result.stderr
    assert not (tmp_path / "x.sqlite").exists()
