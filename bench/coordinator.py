"""Where a season's coordinator spends its CPU a game: planning, recording, rating, the audit, the database,
logging, the executor's messages, the rest.

    python3 bench/coordinator.py [--games N] [--workers N]

In one run, on a fresh SQLite file with the example bots: a season of 4-player seat-rotated deals in the sandbox
with fork servers, its coordinator's CPU taken by ``getrusage`` (ms a game, what bench/season.py prints); then a
second season of as many games with the coordinator under cProfile timed by CPU (``time.process_time``), whose own
time (``tottime``) is summed by the file each function lives in (a built-in by its name) and sorted into those
parts. cProfile slows what it watches, so each part is shown as
its share of the profiled time and as that share of the unprofiled ms a game.
"""
from __future__ import annotations

import cProfile
import pstats
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.db import make_engine  # noqa: E402
from arena.ladder.planning import SeasonSettings  # noqa: E402
from arena.ladder.seasons import run_season  # noqa: E402
from sandbox import Limits, detect_tier  # noqa: E402

import common  # noqa: E402

#: (part, what a function's file path holds), the first that matches; the rest is "other"
PARTS = (
    ("planning", ("arena/ladder/planning", "arena/ladder/matchmaking", "arena/ladder/random_seeds")),
    ("rating", ("arena/ladder/ratings", "arena/ladder/rankings", "trueskill")),
    ("audit", ("arena/audit",)),
    ("recording", ("arena/ladder/seasons", "arena/ladder/recording", "arena/ladder/seat_logs", "arena/text")),
    ("database", ("sqlalchemy", "sqlmodel", "sqlite3", "arena/db")),
    ("logging", ("logging",)),
    ("executor and its messages", ("arena/ladder/executors", "multiprocessing", "pickle", "selectors", "queue",
                                   "threading", "concurrent", "poll", "posix.read", "posix.write")),
)


def part_of(path: str) -> str:
    return next((name for name, marks in PARTS if any(mark in path for mark in marks)), "other")


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = common.parser(__doc__, 240, games_help="games of each season (4-player rotated deals)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tier = detect_tier()
    print(common.machine(f"tier {tier.value}", f"{args.workers} workers"), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{folder}/bench.sqlite")
        common.register_example_bots(engine)
        before = cpu_s()
        plain = run_season(engine, SeasonSettings("plain", games=args.games, min_players=4, max_players=4, seed=1,
                                                  rotate=True), args.workers, Limits(), tier)
        ms = (cpu_s() - before) * 1000 / max(1, plain.done)
        profile = cProfile.Profile(time.process_time)  # CPU, not the wall clock: a wait in poll costs nothing
        profile.enable()
        watched = run_season(engine, SeasonSettings("profiled", games=args.games, min_players=4, max_players=4,
                                                    seed=2, rotate=True), args.workers, Limits(), tier)
        profile.disable()
    spent: Counter[str] = Counter()
    within: dict[str, Counter[str]] = {}
    rows: dict[tuple[str, int, str], tuple[Any, ...]] = getattr(pstats.Stats(profile), "stats")  # untyped in typeshed
    for (path, _, function), row in rows.items():
        part = part_of(path if path != "~" else function)  # a built-in is named by its function
        spent[part] += row[2]  # tottime: the function's own time
        within.setdefault(part, Counter())[f"{Path(path).name}:{function}"] += row[2]
    total = sum(spent.values()) or 1.0
    print(f"coordinator CPU: {ms:.1f} ms a game ({plain.done} games; the profiled season {watched.done})")
    for name, seconds in spent.most_common():
        print(f"  {name:<27} {100 * seconds / total:5.1f} %  {ms * seconds / total:5.2f} ms a game")
    for name, _ in spent.most_common(2):  # what the two largest parts are made of
        print(f"  the largest of {name}: " + ", ".join(f"{where} {100 * seconds / total:.1f} %"
                                                       for where, seconds in within[name].most_common(6)))


if __name__ == "__main__":
    main()
