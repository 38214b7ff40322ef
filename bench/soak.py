"""Soak: one long season through the command line, its resources sampled from outside as it runs.

    python3 bench/soak.py [--games 10000] [--workers 2] [--every 500] [--folder DIR]

`arena season run` (the real command, a subprocess) plays a seat-rotated 3-5 player season of the
example bots (random, greedy, trader as bosses, and renamed copies of random and greedy by other
authors) in the strong sandbox. Every ``--every`` recorded games this script samples: the
coordinator's and each pool worker's resident memory and open file descriptors, the bot processes
alive (uid slots in use, or this user's sandboxed runners), and the database's size (with its WAL).
At the end: the verdict (flat or growing: the median of the last quarter of samples against the
first quarter), then `arena site build` from that database, timed.
"""
from __future__ import annotations

import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sandbox.cleanup import children  # noqa: E402
from sandbox.isolation import SLOT_UIDS  # noqa: E402
from sandbox.procscan import live_processes, processes_of_uid  # noqa: E402

import common  # noqa: E402

ARENA = [sys.executable, "-m", "arena"]
GROWTH = 1.10  # the last quarter may be at most 10% above the first (plus the slack below) to be flat
SLACK = {"coordinator MB": 5.0, "worker MB": 5.0, "coordinator fds": 2, "worker fds": 2, "bot processes": 4}


def status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def bot_processes() -> int:
    """Processes of the uid slots, and runners of this user (the user-namespace confinement)."""
    me = os.getuid()

    def runner(entry: os.DirEntry[str]) -> bool:
        if entry.stat().st_uid != me:
            return False
        with open(f"/proc/{entry.name}/cmdline", "rb") as f:
            return b"__bohnanza_runner__" in f.read()

    slots = sum(len(processes_of_uid(uid)) for uid in SLOT_UIDS) if os.geteuid() == 0 else 0
    return slots + len(live_processes(runner))


def done_games(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM match WHERE status != 'planned'").fetchone()[0]
    except sqlite3.Error:
        return 0


def db_mb(db: Path) -> float:
    return sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists()) / 1e6


def sample(coordinator: int, db: Path, games: int, started: float) -> dict[str, float]:
    workers = [p for p in children(coordinator) if b"python" in Path(f"/proc/{p}/cmdline").read_bytes()[:200]] \
        if Path(f"/proc/{coordinator}").exists() else []
    worker_mb = [status_kb(p, "VmRSS") / 1024 for p in workers]
    return {"games": games, "minutes": (time.monotonic() - started) / 60,
            "coordinator MB": status_kb(coordinator, "VmRSS") / 1024, "coordinator fds": fds(coordinator),
            "worker MB": max(worker_mb, default=0.0), "worker fds": max((fds(p) for p in workers), default=0),
            "bot processes": bot_processes(), "database MB": db_mb(db)}


def verdict(samples: list[dict[str, float]]) -> list[str]:
    quarter = max(1, len(samples) // 4)
    lines = []
    for key, slack in SLACK.items():
        first = statistics.median(s[key] for s in samples[:quarter])
        last = statistics.median(s[key] for s in samples[-quarter:])
        flat = last <= first * GROWTH + slack
        lines.append(f"{key}: first quarter {first:.1f}, last quarter {last:.1f}: {'flat' if flat else 'GROWING'}")
    return lines


def main() -> None:
    args = common.parser(__doc__, 10_000)
    args.add_argument("--workers", type=int, default=2)
    args.add_argument("--every", type=int, default=500, help="sample every N recorded games")
    args.add_argument("--folder", default=None, help="keep the database and site here (default: a temporary folder)")
    opts = args.parse_args()
    folder = Path(opts.folder or tempfile.mkdtemp(prefix="soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "soak.sqlite"
    from arena.db import make_engine
    from arena.accounts import ensure_author
    from arena.submit import register

    engine = make_engine(f"sqlite:///{db}")
    from sqlmodel import Session

    with Session(engine) as session:
        for name, stem, author in (("dice", "random_bot", "copy-a"), ("glutton", "greedy_bot", "copy-b")):
            source = (common.BOTS / f"{stem}.py").read_text() + "\n# copy\n"
            register(session, name, source, ensure_author(session, author))
    engine.dispose()
    print(common.machine(f"{opts.workers} workers, {opts.games} games, strong tier required, database {db}"),
          flush=True)
    season = subprocess.Popen([*ARENA, "--db", str(db), "-q", "season", "run", "--name", "soak",
                               "--games", str(opts.games), "--workers", str(opts.workers),
                               "--bosses", "random,greedy,trader"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = time.monotonic()
    samples: list[dict[str, float]] = []
    header = ["games", "minutes", "coordinator MB", "coordinator fds", "worker MB", "worker fds", "bot processes",
              "database MB"]
    print(" | ".join(header), flush=True)
    next_mark = opts.every
    while season.poll() is None:
        time.sleep(1.0)
        done = done_games(db)
        if done >= next_mark:
            taken = sample(season.pid, db, done, started)
            if not taken["worker MB"]:  # the pool has shut down: the season is ending
                continue
            samples.append(taken)
            print(" | ".join(f"{samples[-1][k]:.1f}" if isinstance(samples[-1][k], float) else str(samples[-1][k])
                             for k in header), flush=True)
            next_mark = (done // opts.every + 1) * opts.every
    out, err = season.communicate()
    elapsed = time.monotonic() - started
    done = done_games(db)
    print(f"season exit {season.returncode} after {elapsed / 60:.1f} min: {done} games recorded, "
          f"{done / elapsed * 60:.0f} games/min{'' if season.returncode == 0 else '; ' + err.strip()[-300:]}")
    print(f"after the season: bot processes left {bot_processes()}, database {db_mb(db):.1f} MB")
    for line in verdict(samples) if len(samples) >= 4 else ["too few samples for a verdict"]:
        print(line)
    rerate = subprocess.run([*ARENA, "--db", str(db), "leaderboard", "--rerate"], capture_output=True, text=True)
    print("rerate:", rerate.stderr.strip().splitlines()[-1] if rerate.stderr.strip() else rerate.returncode)
    started = time.monotonic()
    site = subprocess.run([*ARENA, "--db", str(db), "-q", "site", "build", "--out", str(folder / "site")],
                          capture_output=True, text=True)
    pages = len(list((folder / "site").rglob("*.html")))
    print(f"site build: exit {site.returncode}, {pages} pages in {time.monotonic() - started:.1f} s "
          f"({sum(p.stat().st_size for p in (folder / 'site').rglob('*') if p.is_file()) / 1e6:.0f} MB)"
          + ("" if site.returncode == 0 else ": " + site.stderr.strip()[-300:]))


if __name__ == "__main__":
    main()
