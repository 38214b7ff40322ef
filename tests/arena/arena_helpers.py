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
from typing import TypeVar

from sqlalchemy import func
from sqlmodel import Session, select

from arena.db import Match, make_engine
from forked_arena import (ARENA, ARENA_ENVIRONMENT, START_ENVIRONMENT, arena_environment,  # noqa: F401
                          open_std_streams, run_cli)
from sandbox.procscan import live_descendants

T = TypeVar("T")



def db_url(db: Path | str) -> str:
    """A database URL: a path is a SQLite file, a string with ``://`` is already a URL."""
    return db if isinstance(db, str) and "://" in db else f"sqlite:///{db}"


#: commands that run inside the test's process (0.7 s of interpreter start and imports saved each): the
#: read-only ones, accounts and ladder settings (authors, ladder), those that play (submit, play, season
#: run, test) with the same sandboxes, worker processes and files, and the site build with its forked
#: children; demo, serve, status and every other command run as a real `python -m arena`, and so
#: does each of these at least once (tests/arena/test_in_process.py compares both ways, and the tests that
#: signal or kill a command start it themselves)
IN_PROCESS = {("audit",), ("authors",), ("backup",), ("bots",), ("competition",), ("game",), ("ladder",),
              ("leaderboard",), ("replay",), ("season", "close"), ("season", "list"), ("season", "show"),
              ("season", "run"), ("test",), ("submit",), ("play",), ("site",)}
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


def _as_text(raw: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` reads them: the locale's encoding, universal newlines."""
    import io
    import locale

    return io.TextIOWrapper(io.BytesIO(raw), encoding=locale.getpreferredencoding(False)).read()


def run_in_process(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in this process, as the real command would run: in the working folder ``cwd`` (None: this
    process's), file descriptors 1 and 2 go to files for the command and every process it starts (a forked
    worker's traceback lands there too), an escaping exception prints its traceback and exits 1, and the working
    folder, logging, signal handlers, environment and fork servers the command set up are put back or closed
    afterwards."""
    import logging
    import tempfile

    from sandbox import close_fork_servers

    root = logging.getLogger()
    handlers, level, environ = root.handlers[:], root.level, dict(os.environ)
    signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    streams, unraisable = (sys.stdout, sys.stderr, sys.stdin), sys.unraisablehook
    code = 0
    folder = os.getcwd()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, open(os.devnull, "rb") as null:
        for stream in streams[:2]:
            stream.flush()
        saved = [os.dup(fd) for fd in (0, 1, 2)]
        for fd, target in ((0, null), (1, out), (2, err)):
            os.dup2(target.fileno(), fd)
        open_std_streams()
        try:
            if cwd is not None:
                os.chdir(cwd)
            code = run_cli(args)
        finally:
            os.chdir(folder)
            close_fork_servers()
            for stream in (sys.stdout, sys.stderr, sys.stdin):
                stream.close()  # flushed; the descriptor stays (closefd=False)
            for fd, old in zip((0, 1, 2), saved):
                os.dup2(old, fd)
                os.close(old)
            sys.stdout, sys.stderr, sys.stdin = streams
            sys.unraisablehook = unraisable
            for number, handler in signals.items():
                signal.signal(number, handler)
            root.handlers[:] = handlers
            root.setLevel(level)
            os.environ.clear()
            os.environ.update(environ)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(["arena", *args], code, _as_text(out.read()), _as_text(err.read()))


def run_arena(*args: str, db: Path | str | None = None, timeout: float = 300,
              cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` (with ``--db`` for ``db``) in the working folder ``cwd``: in this process for a command of
    ``IN_PROCESS`` while the environment is the worker's own, else as a real process."""
    prefix = ["--db", db_url(db)] if db else []
    words = command_of(args)
    in_process = os.environ.get("ARENA_TESTS_IN_PROCESS", "1") != "0"  # 0: every command a real process
    if in_process and (words in IN_PROCESS or words[:1] in IN_PROCESS) and arena_environment() == START_ENVIRONMENT:
        return run_in_process([*prefix, *args], cwd)
    from forked_arena import arena_run

    return arena_run([*prefix, *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def missing(what: str) -> None:
    """Skip a test whose prerequisite is missing; in CI, fail it."""
    import pytest

    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must be able to run this test: {what}")
    pytest.skip(what)


def add_authors(db: Path | str, *names: str) -> None:
    """Author accounts ``names`` in the database (without tokens), for tests that submit as them."""
    from arena.submissions.accounts import ensure_author

    engine = make_engine(db_url(db))
    with Session(engine) as session:
        for name in names:
            ensure_author(session, name)
    engine.dispose()


def fix_seed_key(db: Path | str) -> None:
    """Give the database a fixed seed key: a season's deals are keyed with it (``--seed`` alone does not
    fix them), and a test whose verdict rests on the deals must see the same ones every run."""
    from arena.db import Meta
    from arena.ladder.random_seeds import KEY_NAME

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


def kill_mid_season(db: Path | str, season_args: list[str],
                    second_args: list[str]) -> tuple[int, subprocess.CompletedProcess[str]]:
    """Start ``arena season run SEASON_ARGS``, let 4 games finish, try a second writer
    (``arena SECOND_ARGS``) while it runs, then SIGKILL the season and check that its workers and
    bots die with it. Returns the season's pid and the second writer's result."""
    from forked_arena import arena_popen

    season = arena_popen(["--db", db_url(db), "season", "run", *season_args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        wait_for_done(db, 4)
        of_season = set(descendants(season.pid, process_tree()))
        # pids are reused
        children = {pid: start for pid, start in live_descendants(os.getpid()).items() if pid in of_season}
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


def present(value: T | None) -> T:
    """``value``, which the test expects to be there (a stored row's field, a row ``session.get`` finds)."""
    assert value is not None
    return value


def colluder_source(role: str) -> str:
    """The trader's source, its class no longer the entry point, then tests/sandbox/hostile/colluder.py playing
    ``role`` (feeder, partner, sometimes, kingmaker)."""
    project = Path(__file__).resolve().parents[2]
    trader = (project / "bots" / "trader_bot.py").read_text(encoding="utf-8")
    colluder = (project / "tests" / "sandbox" / "hostile" / "colluder.py").read_text(encoding="utf-8")
    colluder = colluder.replace('ROLE = "feeder"', f"ROLE = {role!r}", 1)
    assert f"ROLE = {role!r}" in colluder
    return f"{trader}\nTraderBot.__bohnanza_bot__ = False\n{colluder}"
