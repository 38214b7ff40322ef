"""Running the real `arena` command from tests."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, select

from arena.db import Match, make_engine
from sandbox.procscan import live_descendants

ARENA = [sys.executable, "-m", "arena"]


def db_url(db: Path | str) -> str:
    """A database URL: a path is a SQLite file, a string with ``://`` is already a URL."""
    return db if isinstance(db, str) and "://" in db else f"sqlite:///{db}"


#: commands that only read or copy the database: they start no process and set no signal handler, so
#: they run inside the test's process (0.8 s of interpreter start saved each); every other command,
#: and each of these at least once elsewhere, runs as a real `python -m arena` process
IN_PROCESS = {("audit",), ("backup",), ("bots",), ("game",), ("leaderboard",), ("replay",),
              ("season", "close"), ("season", "list"), ("season", "show"), ("test", "list")}
GLOBAL_OPTIONS_WITH_VALUE = {"--db", "--log-file"}


def command_of(args: tuple[str, ...]) -> tuple[str, ...]:
    """The command words of an `arena` argument list, global options left out: ("season", "show")."""
    words: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg in GLOBAL_OPTIONS_WITH_VALUE and not words:
            next(rest, None)
        elif arg.startswith("-"):
            if words:
                break
        else:
            words.append(arg)
            if len(words) == 2:
                break
    return tuple(words)


def run_in_process(args: list[str]) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` through click's test runner in this process: the same exit code, stdout and stderr as
    the real command, an escaping exception's traceback on stderr as Python would print it; the
    logging and environment the command sets up are put back afterwards."""
    import logging
    import traceback

    from click.testing import CliRunner

    from arena.cli import cli

    root = logging.getLogger()
    handlers, level, environ = root.handlers[:], root.level, dict(os.environ)
    try:
        result = CliRunner().invoke(cli, args, prog_name="arena")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        os.environ.clear()
        os.environ.update(environ)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["arena", *args], result.exit_code, result.stdout, stderr)


def run_arena(*args: str, db: Path | str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` (with ``--db`` for ``db``): in this process for a command of ``IN_PROCESS``, else as a
    real process."""
    prefix = ["--db", db_url(db)] if db else []
    words = command_of(args)
    if words in IN_PROCESS or words[:1] in IN_PROCESS:
        return run_in_process([*prefix, *args])
    return subprocess.run([*ARENA, *prefix, *args], capture_output=True, text=True, timeout=timeout)


def fix_seed_key(db: Path | str) -> None:
    """Give the database a fixed seed key: a season's deals are keyed with it (``--seed`` alone does not
    fix them), and a test whose verdict rests on the deals must see the same ones every run."""
    from arena.db import Meta
    from arena.seeds import KEY_NAME

    engine = make_engine(db_url(db))
    with Session(engine) as session:
        session.merge(Meta(key=KEY_NAME, value="5e" * 32))
        session.commit()
    engine.dispose()


def process_tree() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, comm, cmdline) of every live process."""
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat.rsplit(")", 1)[1].split()
        if rest[0] not in ("Z", "X"):
            tree[int(entry)] = (int(rest[1]), comm, cmdline)
    return tree


def descendants(pid: int, tree: dict[int, tuple[int, str, str]]) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, (parent, _, _) in tree.items() if parent == p]
        found += kids
        frontier += kids
    return found


def survivors(started: dict[int, int]) -> list[int]:
    """The processes of ``started`` (pid -> start time, as from ``live_descendants``) still alive: this
    process adopts orphans (tests/conftest.py), so a killed season's children are still its descendants."""
    now = live_descendants(os.getpid())
    return [pid for pid, start in started.items() if now.get(pid) == start]


def done_count(db: Path | str) -> int:
    """Games done in ``db``; a SQLite file is read with sqlite3 alone (an engine cost 13 ms of CPU a poll)."""
    if not (isinstance(db, str) and "://" in db):
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as con:
            return int(con.execute("SELECT count(*) FROM match WHERE status = 'done'").fetchone()[0])
    engine = make_engine(db_url(db))
    try:
        with Session(engine) as session:
            return int(session.exec(select(func.count()).select_from(Match).where(Match.status == "done")).one())
    finally:
        engine.dispose()


def wait_for_done(db: Path | str, at_least: int, timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            n = done_count(db)
            if n >= at_least:
                return n
        except Exception:  # a SQLite file being written: try again
            pass
        time.sleep(0.05)
    raise AssertionError(f"fewer than {at_least} games done after {timeout} s")


def kill_mid_season(db: Path | str, season_args: list[str], second_args: list[str]) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Start ``arena season run SEASON_ARGS``, let 4 games finish, try a second writer
    (``arena SECOND_ARGS``) while it runs, then SIGKILL the season and check that its workers and
    bots die with it. Returns the season's pid and the second writer's result."""
    season = subprocess.Popen([*ARENA, "--db", db_url(db), "season", "run", *season_args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_done(db, 4)
        of_season = set(descendants(season.pid, process_tree()))
        children = {pid: start for pid, start in live_descendants(os.getpid()).items() if pid in of_season}  # pids are reused
        assert children, "the season runs its games in worker processes"
        second = run_arena(*second_args, db=db)
        assert season.poll() is None, "the season was still running when it was killed"
        season.send_signal(signal.SIGKILL)
    finally:
        season.kill()
        season.communicate()
    deadline = time.monotonic() + 10
    while survivors(children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert survivors(children) == [], "workers and bots die with a killed season"
    return season.pid, second
