"""Soak: one long season through the command line, its resources sampled from outside as it runs.

    python3 bench/soak.py [--games 10000] [--workers 2] [--every 500] [--folder DIR]
    python3 bench/soak.py --live [--games 10000] [--enter-every 1000] [--site-every 60] [--folder DIR]

`arena season run` (the real command, a subprocess) plays a seat-rotated 3-5 player season of the
example bots (random, greedy, trader as bosses, and renamed copies of random and greedy by other
authors) in the strong sandbox. Every ``--every`` recorded games this script samples: the
coordinator's and each pool worker's resident memory and open file descriptors, the bot processes
alive (uid slots in use, or this user's sandboxed runners), and the database's size (with its WAL).
At the end: the verdict (flat or growing: the median of the last quarter of samples against the
first quarter), then `arena site build` from that database, timed.

``--live``: `arena season run --live --site DIR --site-every S` instead (every format, 12 bots of distinct
authors as in bench/time_to_rank.py), for ``--games`` recorded games of all formats; every
``--enter-every`` games a new version is submitted (a new bot, then a new version of a bot already there,
in turn), and half-way between two a bot is retired (`arena bots retire NAME --operator`). Sampled as
above, and the side jobs (site build, audits) when one is running. At the end: SIGTERM, the seconds until
it exits (0 expected), the bot and side-job processes left, whether each newcomer played and each retired
bot was seated in no table planned after its retirement, and the site's pages.
"""
from __future__ import annotations

import argparse
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
import live_ladder as ll  # noqa: E402

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


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def sample_live(coordinator: int, db: Path, games: int, started: float) -> dict[str, float]:
    """As ``sample``, with the workers (forks: the coordinator's own argv) and the side jobs (the children of its
    side jobs' fork server, arena/ladder/side_jobs.py) told apart."""
    mine = cmdline(coordinator)
    kids = children(coordinator)
    workers = [p for p in kids if cmdline(p) == mine]
    jobs = [job for p in kids if b"multiprocessing.forkserver" in cmdline(p) for job in children(p)]
    taken = sample(coordinator, db, games, started)
    taken.update({"worker MB": max((status_kb(p, "VmRSS") / 1024 for p in workers), default=0.0),
                  "worker fds": max((fds(p) for p in workers), default=0),
                  "side job MB": max((status_kb(p, "VmRSS") / 1024 for p in jobs), default=0.0)})
    return taken


def live_soak(opts: argparse.Namespace, folder: Path) -> None:
    """The ``--live`` soak (module docstring)."""
    db, site = folder / "soak.sqlite", folder / "site"
    for old in folder.glob("soak.sqlite*"):
        old.unlink()
    names = iter(ll.NAMES)
    copies = [next(names) for _ in range(9)]
    for stem, name in zip(["random_bot", "greedy_bot", "trader_bot"] * 3, copies):
        ll.submit_copy(db, folder, stem, name)
    print(common.machine(f"{opts.workers} workers, live, {opts.games} games, strong tier required, database {db}"),
          flush=True)
    live = ll.start_live(db, opts.workers, folder / "live.log", "--site", str(site),
                         "--site-every", str(opts.site_every))
    started = time.monotonic()
    print(f"live season started {ll.utc()}, load {ll.loadavg()}", flush=True)
    header = ["games", "minutes", "coordinator MB", "coordinator fds", "worker MB", "worker fds", "side job MB",
              "bot processes", "database MB"]
    print(" | ".join(header), flush=True)
    samples: list[dict[str, float]] = []
    entered: list[tuple[str, float]] = []  # (bot, when its version was stored)
    retired: list[tuple[str, float]] = []
    retire_order = copies[:5]  # the new versions go to the last copies
    next_mark, next_event, turn = opts.every, opts.enter_every // 2, 0
    seen: dict[int, str] = {}  # every process below the live season seen at a sample, to find it left over
    try:
        while live.poll() is None:
            time.sleep(1.0)
            done = done_games(db)
            if done >= opts.games:
                break
            if done >= next_event:
                turn += 1
                if turn % 2 == 0:  # a version enters: a new bot, then a new version of one already there
                    name = next(names) if turn % 4 == 2 else copies[-(turn // 4)]
                    ll.submit_copy(db, folder, ("greedy_bot", "trader_bot")[turn // 2 % 2], name, f" (v{turn})")
                    entered.append((name, time.time()))
                    if turn % 4 == 2:
                        retire_order.append(name)
                    print(f"  at {done} games: {name} submitted (load {ll.loadavg()})", flush=True)
                else:
                    gone = next((n for n in retire_order if n not in {r for r, _ in retired}), None)
                    if gone is not None:
                        ll.arena(db, "bots", "retire", gone, "--operator")
                        retired.append((gone, time.time()))
                        print(f"  at {done} games: {gone} retired (load {ll.loadavg()})", flush=True)
                next_event += opts.enter_every // 2
            if done >= next_mark:
                taken = sample_live(live.pid, db, done, started)
                seen.update(ll.descendants(live.pid))
                samples.append(taken)
                print(" | ".join(f"{taken[k]:.1f}" if isinstance(taken[k], float) else str(taken[k])
                                 for k in header), flush=True)
                next_mark = (done // opts.every + 1) * opts.every
    finally:
        elapsed = time.monotonic() - started
        print(f"stopping at {ll.utc()}, load {ll.loadavg()}", flush=True)
        seen.update(ll.descendants(live.pid))
        code, seconds = ll.stop_live(live)
    done = done_games(db)
    print(f"live season: {done} games recorded in {elapsed / 60:.1f} min ({done / elapsed * 60:.0f} games/min); "
          f"SIGTERM: exit {code} after {seconds:.1f} s; last line: "
          f"{(folder / 'live.log').read_text().strip().splitlines()[-1]}")
    stopped = time.monotonic()
    what = {pid: cmdline(pid)[:80].replace(b"\0", b" ").decode(errors="replace") for pid in seen}
    left = [pid for pid, start in seen.items() if ll.started_at(pid) == start]
    print(f"at the exit: {len(left)} of the {len(seen)} processes seen below the live season are left "
          f"{[what[pid] for pid in left][:5]}; bot processes on the machine (anyone's) {bot_processes()}")
    while left and time.monotonic() - stopped < 30:
        time.sleep(0.2)
        left = [pid for pid in left if ll.started_at(pid) == seen[pid]]
    print(f"{len(left)} left {time.monotonic() - stopped:.1f} s after the exit; database {db_mb(db):.1f} MB")
    for name, when in entered:
        version = ll.version_of(db, name)
        games = ll.query(db, "SELECT count(*) FROM matchseat ms JOIN match m ON m.id = ms.match_id "
                             "WHERE ms.version_id = ? AND m.status = 'done'", version)[0][0]
        print(f"entered {name}: its version played {games} games")
    for name, when in retired:
        planned = ll.query(db, "SELECT m.planned_at FROM matchseat ms JOIN match m ON m.id = ms.match_id "
                               "JOIN botversion v ON v.id = ms.version_id JOIN bot b ON b.id = v.bot_id "
                               "WHERE b.name = ?", name)
        later = sum(ll.stamp(p) > when for p, in planned)
        print(f"retired {name}: seated in {later} tables planned after its retirement (0 expected)")
    for line in verdict(samples) if len(samples) >= 4 else ["too few samples for a verdict"]:
        print(line)
    log = (folder / "live.log").read_text()
    print(f"live log: {log.count('failed (exit')} side-job failures, {log.count('Traceback')} tracebacks")
    pages = len(list(site.rglob("*.html")))
    print(f"site: {pages} pages built by the side job")


def main() -> None:
    args = common.parser(__doc__, 10_000)
    args.add_argument("--workers", type=int, default=2)
    args.add_argument("--every", type=int, default=500, help="sample every N recorded games")
    args.add_argument("--folder", default=None, help="keep the database and site here (default: a temporary folder)")
    args.add_argument("--live", action="store_true", help="soak `arena season run --live` (module docstring)")
    args.add_argument("--enter-every", type=int, default=1000, help="with --live: a version enters every N games")
    args.add_argument("--site-every", type=float, default=60.0, help="with --live: the side job's --site-every")
    opts = args.parse_args()
    folder = Path(opts.folder or tempfile.mkdtemp(prefix="soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    if opts.live:
        return live_soak(opts, folder)
    db = folder / "soak.sqlite"
    from arena.db import make_engine
    from arena.submissions.accounts import ensure_author
    from arena.submissions.versions import register

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
