"""A full disk under the database: the season stops with one clear line, keeps every game it recorded,
and the same command finishes it once there is room, each planned game recorded exactly once.
The database lives on a small tmpfs of its own (mounting needs root, as in CI)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from arena.submissions.accounts import ensure_author
from arena_helpers import db_url, present, run_arena
from sqlmodel import Session, select

from arena.db import Match, make_engine, stored_id
from arena.ladder.seasons import rerate
from arena.submissions.versions import register

BOTS_DIR = Path(__file__).resolve().parents[2] / "bots"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small file system needs root (CI runs as root)")


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def done_replays(db: Path) -> dict[int, str | None]:
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        done = {stored_id(m): m.replay for m in session.exec(select(Match).where(Match.status == "done")).all()}
    engine.dispose()
    return done


def test_a_full_disk_stops_the_season_with_one_line_and_it_resumes_exactly(small_disk: Path) -> None:
    db = small_disk / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        for name, stem, author in (("dice", "random_bot", "a"), ("glutton", "greedy_bot", "b"),
                                   ("merchant", "trader_bot", "c")):  # built-in names are reserved
            register(session, name, (BOTS_DIR / f"{stem}.py").read_text(), ensure_author(session, author))
    engine.dispose()
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    filler = small_disk / "filler"
    # room for some games, not for 10: with a commit a round of tables, 150-200 kB held 6 games, 120 kB none, 260 kB
    # all 10 (the write-ahead log grows by pages, not by games)
    filler.write_bytes(b"\0" * (free - 170_000))

    stopped = run_arena("-q", "season", "run", "--name", "full", "--games", "10", "--players", "3", "--seed", "9",
                        db=db)
    assert stopped.returncode != 0
    lines = stopped.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stopped.stderr, stopped.stderr
    assert lines[0].startswith("Error: season 'full' stopped: the database refused a write (") and "full" in lines[0]
    assert "the same command resumes the season" in lines[0]
    before = done_replays(db)
    assert 0 < len(before) < 10

    filler.unlink()
    resumed = run_arena("-q", "season", "run", "--name", "full", db=db)
    assert resumed.returncode == 0, resumed.stderr
    after = done_replays(db)
    assert len(after) == 10 and all(after[k] == v for k, v in before.items())  # nothing lost, nothing replayed
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        matches = session.exec(select(Match)).all()
        assert len(matches) == 10 and all(m.status == "done" for m in matches)
        assert sorted(present(m.rated_order) for m in matches) == list(range(1, 11))  # each recorded exactly once
        assert rerate(session, "classic", write=False) == []
    engine.dispose()
