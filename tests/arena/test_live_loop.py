"""The living ladder as a real process, beyond its users' path (tests/service/test_live_ladder.py): a pool worker
killed mid-table costs that table, never the loop; the loop plays on the Dask executor too, every format side by
side; a colluding pair is flagged by the audit while the loop runs, and kept apart from the next tables on; and a
command line mistake is one line before anything starts."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from arena_helpers import colluder_source, db_url, descendants, process_tree, run_arena
from sqlmodel import Session
from waiting import wait_for

from arena.submissions.accounts import ensure_author
from arena.db import make_engine
from arena.ladder.seasons import CLOSED_UNPLAYED
from arena.submissions.versions import register, register_bosses
from forked_arena import arena_popen

BOTS = Path(__file__).resolve().parents[2] / "bots"


def rows(db: Path, query: str, *args: object) -> list[tuple]:
    with sqlite3.connect(db, timeout=30) as conn:
        return list(conn.execute(query, args))


def done(db: Path) -> int:
    return int(rows(db, "SELECT count(*) FROM match WHERE status = 'done'")[0][0])


def bosses(tmp_path: Path, entries: dict[str, tuple[str, str]] | None = None) -> Path:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
        for name, (author, source) in (entries or {}).items():
            register(session, name, source, ensure_author(session, author))
    engine.dispose()
    return db


def live(db: Path, *options: str, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as err:
        return arena_popen(["--db", db_url(db), "season", "run", "--live", *options],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                env={k: v for k, v in os.environ.items() if k != "ARENA_TESTS_IN_PROCESS"})


def stop(process: subprocess.Popen[bytes], log: Path, tracebacks: bool = False) -> str:
    """SIGTERM, then the loop's standard error: exit 0, its one stop line and (unless ``tracebacks``: Dask's
    own log under load, e.g. a missed heartbeat, is not the loop's) no traceback."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
    said = log.read_text()
    assert code == 0, said
    assert tracebacks or "Traceback" not in said, said
    assert said.count("live season live stopped") == 1, said
    return said


def test_a_killed_worker_costs_its_table_and_the_loop_plays_on(tmp_path: Path) -> None:
    db = bosses(tmp_path)
    log = tmp_path / "live.err"
    process = live(db, "--variant", "classic", "--workers", "2", log=log)
    try:
        wait_for("the loop plays", lambda: done(db) >= 10, process=process, log=log)
        tree = process_tree()
        workers = [p for p in descendants(process.pid, tree) if tree[p][0] == process.pid and "python" in tree[p][1]
                   and "site" not in tree[p][2] and "audit" not in tree[p][2]]
        assert workers
        victim = workers[0]
        os.kill(victim, signal.SIGKILL)
        wait_for("a table void for the worker's death",
                 lambda: bool(rows(db, "SELECT id FROM match WHERE void_reason LIKE ?", f"%(pid {victim}) died%")),
                 process=process, log=log)
        after = done(db)
        wait_for("the loop plays on", lambda: done(db) >= after + 10, process=process, log=log)
    finally:
        stop(process, log)


def test_the_loop_plays_every_format_on_dask(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="Dask is a test extra: pip install -e '.[test]'")
    db = bosses(tmp_path)
    log = tmp_path / "live.err"
    process = live(db, "--executor", "dask-local", "--workers", "1", log=log)
    try:
        formats = ("classic", "duel", "solo")

        def every_format() -> bool:
            counts = dict(rows(db, "SELECT season.variant, count(*) FROM match JOIN season ON season.id = "
                                   "match.season_id WHERE match.status = 'done' GROUP BY season.variant"))
            return all(counts.get(f, 0) >= 5 for f in formats)
        wait_for("games of every format on Dask", every_format, 400, process=process, log=log)
    finally:
        stop(process, log, tracebacks=True)
    assert {name for (name,) in rows(db, "SELECT name FROM season WHERE live")} == {f"live-{f}" for f in formats}


def test_the_audit_flags_a_colluding_pair_while_the_loop_runs_and_keeps_it_apart(tmp_path: Path) -> None:
    FEEDER, PARTNER = "sunflower", "marigold"
    db = bosses(tmp_path, {FEEDER: ("Ann", colluder_source("feeder")), PARTNER: ("Bob", colluder_source("partner"))})
    log = tmp_path / "live.err"
    process = live(db, "--variant", "classic", "--workers", "1", "--audit-every", "5", log=log)
    try:
        wait_for("the audit flags the pair", lambda: bool(rows(db, "SELECT id FROM auditflag")), 600,
                 process=process, log=log)
        flagged_after = int(rows(db, "SELECT max(id) FROM match")[0][0])
        wait_for("30 more games planned",
                 lambda: int(rows(db, "SELECT max(id) FROM match")[0][0]) >= flagged_after + 30,
                 process=process, log=log)
    finally:
        said = stop(process, log)
    assert f"audit: {FEEDER} gave away value to {PARTNER}" in said and "no longer seated together" in said
    together = rows(db, "SELECT matchseat.match_id FROM matchseat "
                        "JOIN botversion ON botversion.id = matchseat.version_id "
                        "JOIN bot ON bot.id = botversion.bot_id WHERE bot.name IN (?, ?) AND matchseat.match_id > ? "
                        "GROUP BY matchseat.match_id HAVING count(*) = 2", FEEDER, PARTNER, flagged_after + 20)
    assert together == []  # (the loop's round that planned while the flag was written: 20 games at most)


@pytest.mark.parametrize(("options", "said"), [
    (("--games", "5"), "--games counts a batch season's games; a --live season plays until it is stopped"),
    (("--seed", "3"), "--seed chooses a batch season's deals"),
    (("--players", "3"), "--players goes with --variant under --live"),
    (("--variant", "chess"), "unknown variant 'chess'"),
])
def test_live_mistakes_are_one_line(tmp_path: Path, options: tuple[str, ...], said: str) -> None:
    result = run_arena("season", "run", "--live", *options, db=tmp_path / "ladder.sqlite")
    assert result.returncode != 0 and said in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_site_without_live_is_one_line(tmp_path: Path) -> None:
    result = run_arena("season", "run", "--site", str(tmp_path / "site"), db=tmp_path / "ladder.sqlite")
    assert result.returncode != 0 and "--site goes with --live" in result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small file system needs root (CI runs as root)")
def test_a_full_disk_costs_tables_never_the_loop(tmp_path: Path) -> None:
    """The database fills its disk while the loop runs: the writes it refuses cost those tables (they stay
    planned), the loop lives on, and once there is room again it records every planned game once."""
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], check=True)
    try:
        db = bosses(disk)
        log = tmp_path / "live.err"
        process = live(db, "--variant", "classic", "--workers", "1", "--retry-after", "1", log=log)
        try:
            wait_for("the loop plays", lambda: done(db) >= 10, process=process, log=log)
            stats = os.statvfs(disk)
            filler = disk / "filler"
            with open(filler, "wb") as out:  # every block left, so that the next write is refused
                try:
                    out.write(b"\0" * (stats.f_bavail * stats.f_frsize))
                except OSError:
                    pass
            wait_for("the loop says the database refused a write",
                     lambda: "the database refused a write" in log.read_text(), 120, process=process, log=log)
            time.sleep(3)
            assert process.poll() is None, log.read_text()  # the loop lives on
            filler.unlink()
            after = done(db)
            wait_for("the loop records games again", lambda: done(db) >= after + 10, 120, process=process, log=log)
        finally:
            said = stop(process, log)
        assert said.count("the database refused a write") >= 1 and "new tables wait 1 s" in said
        rerated = run_arena("leaderboard", "--rerate", db=db)
        assert "rerated classic: 0 ratings differed" in rerated.stderr, rerated.stderr  # each game counted once
        twice = rows(db, "SELECT match.id FROM match JOIN matchseat ON matchseat.match_id = match.id "
                         "WHERE match.status = 'done' GROUP BY match.id HAVING (SELECT count(*) FROM ratingsnapshot "
                         "WHERE ratingsnapshot.match_id = match.id) <> count(matchseat.id)")
        assert twice == []
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_closed_solo_season_goes_on_in_the_next_one(tmp_path: Path) -> None:
    """The operator closes the live solo season while the loop runs (to publish its deals and its private
    ranking): the loop plays on in live-solo-2, with fresh deals."""
    db = bosses(tmp_path)
    log = tmp_path / "live.err"
    process = live(db, "--variant", "solo", "--workers", "1", log=log)
    try:
        wait_for("solo games", lambda: done(db) >= 5, process=process, log=log)
        closed = run_arena("season", "close", "live-solo", db=db)
        assert closed.returncode == 0, closed.stderr
        wait_for("games of live-solo-2", lambda: bool(rows(
            db, "SELECT match.id FROM match JOIN season ON season.id = match.season_id "
                "WHERE season.name = 'live-solo-2' AND match.status = 'done'")), process=process, log=log)
    finally:
        said = stop(process, log)
    assert "live: live-solo was closed; solo goes on in live-solo-2" in said
    seeds = {name: {seed for (seed,) in rows(db, "SELECT match.seed FROM match JOIN season ON season.id = "
                                                 "match.season_id WHERE season.name = ?", name)}
             for name in ("live-solo", "live-solo-2")}
    assert seeds["live-solo"] and seeds["live-solo-2"] and not seeds["live-solo"] & seeds["live-solo-2"]
    # the tables of live-solo still planned at the close (those in flight among them) are void, none waits for
    # ever, and the close said how many
    left = dict(rows(db, "SELECT match.status, count(*) FROM match JOIN season ON season.id = match.season_id "
                         "WHERE season.name = 'live-solo' AND match.status <> 'done' GROUP BY match.status"))
    assert set(left) <= {"void"}, left
    voided = rows(db, "SELECT count(*) FROM match JOIN season ON season.id = match.season_id "
                      "WHERE season.name = 'live-solo' AND match.void_reason = ?", CLOSED_UNPLAYED)[0][0]
    assert voided == left.get("void", 0)
    said_void = f"; {voided} game{'s' if voided != 1 else ''} it had not played {'is' if voided == 1 else 'are'} void"
    assert (said_void in closed.stdout) == (voided > 0) and ("had not played" in closed.stdout) == (voided > 0), \
        closed.stdout
