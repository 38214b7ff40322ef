"""What the living-ladder benchmarks share: a ladder of example-bot copies, `arena submit` of a new version,
the live season as a subprocess and its stop, read-only looks at its database.

``python3 bench/X.py`` puts bench/ first on sys.path, so a script imports this as ``live_ladder``.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

BOTS = Path(__file__).resolve().parent.parent / "bots"
ARENA = [sys.executable, "-m", "arena"]
# bot names far apart (no look-alikes), one author each: bots of one author never share a table
NAMES = ("apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "jade", "kelp", "lotus",
         "maple", "nova", "onyx", "pine", "quartz", "raven", "sage", "tulip", "umber", "vale", "willow", "xenon",
         "yarrow", "zinnia")


def arena(db: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """One `arena` command on ``db`` (the worktree's code: PYTHONPATH is passed on)."""
    done = subprocess.run([*ARENA, "--db", str(db), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return done


def submit_copy(db: Path, folder: Path, stem: str, name: str, note: str = "") -> float:
    """Submit a copy of ``bots/<stem>.py`` (a statement naming it makes it a program of its own: a program enters
    the ladder once, comments aside, arena/submissions/programs.py) as bot ``name`` of author
    ``name``-author (made if new) with `arena submit`; the wall time (time.time()) when the command returned,
    the version stored."""
    author = f"{name}-author"
    if not query(db, "SELECT 1 FROM author WHERE name = ?", author) if db.exists() else True:
        arena(db, "authors", "add", author)
    path = folder / f"{name}.py"
    path.write_text((BOTS / f"{stem}.py").read_text() + f"\nCOPY_OF = {f'{name}: a copy of {stem}{note}'!r}\n")
    done = arena(db, "submit", str(path), "--author", author, "--name", name)
    returned = time.time()
    if "registered" not in done.stdout:
        raise SystemExit(f"submit {name}: {done.stdout.strip()} {done.stderr.strip()}")
    return returned


def start_live(db: Path, workers: int, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    """`arena season run --live --workers N --bosses random,greedy,trader` as a subprocess, its output to ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen([*ARENA, "--db", str(db), "season", "run", "--live", "--workers", str(workers),
                                 "--bosses", "random,greedy,trader", *extra], stdout=out, stderr=subprocess.STDOUT)


def stop_live(live: subprocess.Popen[bytes], grace: float = 60.0) -> tuple[int | None, float]:
    """SIGTERM the live season; its exit code (None: still running after ``grace`` s, then killed) and seconds."""
    started = time.monotonic()
    live.send_signal(signal.SIGTERM)
    try:
        code: int | None = live.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        live.kill()
        live.wait()
        code = None
    return code, time.monotonic() - started


def connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)


def query(db: Path, sql: str, *params: object) -> list[tuple]:
    """Rows of ``sql`` read from ``db`` while the season writes it (a locked moment is tried again)."""
    for _ in range(20):
        try:
            with connect(db) as conn:
                return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError:
            time.sleep(0.5)
    raise SystemExit(f"cannot read {db}")


def stamp(text: str) -> float:
    """A stored UTC datetime as a time.time() value."""
    when = datetime.fromisoformat(text)
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).timestamp()


def version_of(db: Path, name: str) -> int:
    """The id of bot ``name``'s newest version."""
    return query(db, "SELECT v.id FROM botversion v JOIN bot b ON b.id = v.bot_id WHERE b.name = ? "
                     "ORDER BY v.number DESC LIMIT 1", name)[0][0]


def ranked_at(db: Path, version: int, variant: str, after: int = 10) -> float | None:
    """When ``version`` reached ``after`` rated games in ``variant``: the finished_at of that match."""
    rows = query(db, "SELECT m.finished_at FROM ratingsnapshot r JOIN match m ON m.id = r.match_id "
                     "WHERE r.version_id = ? AND r.variant = ? AND r.games = ?", version, variant, after)
    return stamp(rows[0][0]) if rows else None


def unranked(db: Path, variants: tuple[str, ...] = ("classic", "duel"), after: int = 10) -> list[str]:
    """The active versions (name:variant) with fewer than ``after`` rated games in a format they play."""
    rows = query(db, "SELECT b.name, f.variant, coalesce(r.games, 0) FROM botversion v JOIN bot b ON b.id = v.bot_id "
                     "JOIN versionformat f ON f.version_id = v.id AND f.plays "
                     "LEFT JOIN rating r ON r.version_id = v.id AND r.variant = f.variant WHERE v.active")
    return [f"{name}:{variant}" for name, variant, games in rows if variant in variants and games < after]


def descendants(pid: int) -> dict[int, str]:
    """Every process below ``pid``: its pid and start time (/proc/PID/stat field 22), to know it again."""
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        kids: list[int] = []
        try:
            for thread in os.listdir(f"/proc/{parent}/task"):
                kids += [int(x) for x in Path(f"/proc/{parent}/task/{thread}/children").read_text().split()]
        except OSError:
            pass
        for kid in kids:
            found[kid] = started_at(kid)
            todo.append(kid)
    return found


def started_at(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True
