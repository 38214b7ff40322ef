"""What an author's read of their bots costs the service: the boards of every format (``roster``) and ``GET /api/me``'s
report (``owner_report``), on a ladder of many bots with real-sized sources.

    python3 bench/boards.py [--bots 60] [--versions 5] [--games 20000] [--rounds 5] [--old /tmp/wt-old]

Builds one SQLite ladder (``--bots`` bots of as many authors, ``--versions`` versions each with a 40 KB source, the
newest active; ``--games`` recorded 4-player classic games and a rating for each active version), then times
``roster`` and ``owner_report`` (ms a call, CPU, the best and the median of ``--rounds`` rounds of 5 calls) with
this checkout's code and, with ``--old``, with another checkout's on the same file, in turn, twice. The service answers
reads on one core (uvicorn's loop and its thread pool share the GIL), so 1000 / (ms a report) is how many
``/api/me`` it can answer a second, and the client's ``--wait`` polls it once a second for each waiting author.
"""
from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import common  # noqa: E402

SOURCE_BYTES = 40_000

MEASURE = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from sqlmodel import Session
from arena.db import make_engine
from arena.ladder.roster import roster
from arena.service.owner import owner_report
engine = make_engine("sqlite:///" + sys.argv[2])
rounds = int(sys.argv[3])
with Session(engine) as s:  # the first calls compile the statements: left out
    roster(s)
    owner_report(s, "author7")
out = {}
for name, call in (("roster", lambda s: roster(s)), ("owner_report", lambda s: owner_report(s, "author7"))):
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(5):
            with Session(engine) as s:
                call(s)
        times.append((time.process_time() - start) / 5 * 1000)
    out[name] = times
print(json.dumps(out))
"""


def build(path: Path, bots: int, versions: int, games: int) -> None:
    """The ladder, made by this checkout's code: bots and versions as rows, the games with plain SQL (fast)."""
    from sqlmodel import Session

    from arena.db import Author, Bot, BotVersion, Rating, Season, VersionFormat, make_engine, stored_id

    rng = random.Random(1)
    text = "abcdefghij =()\n"
    engine = make_engine(f"sqlite:///{path}")
    active = []
    with Session(engine) as session:
        session.add(Season(name="s", variant="classic", games=games, min_players=4, max_players=4, seed=1))
        for b in range(bots):
            session.add(Author(name=f"author{b}", key=f"author{b}"))
            bot = Bot(name=f"bot{b}", author=f"author{b}")
            session.add(bot)
            session.flush()
            for n in range(1, versions + 1):
                version = BotVersion(bot_id=stored_id(bot), number=n, active=n == versions, prior_sigma=8.333,
                                     source="# " + "".join(rng.choices(text, k=SOURCE_BYTES)) + "\n",
                                     sha256=f"{b}-{n}".ljust(64, "0"), program_sha256=f"{b}-{n}".ljust(64, "1"))
                session.add(version)
                session.flush()
                session.add(VersionFormat(version_id=stored_id(version), variant="classic", prior_mu=25.0))
            active.append(stored_id(version))
            session.add(Rating(version_id=stored_id(version), variant="classic", mu=rng.uniform(15, 35),
                               sigma=rng.uniform(1, 3), games=games * 4 // bots))
        session.commit()
    engine.dispose()
    with sqlite3.connect(path) as conn:
        for k in range(games):
            match = conn.execute("INSERT INTO \"match\" (season_id, number, \"table\", seed, rules_id, status, "
                                 "planned_at, finished_at, rated_order) VALUES (1, ?, ?, ?, 'classic-v1', 'done', "
                                 "'2026-12-02 00:00:00', '2026-12-02 00:00:00', ?)", (k, k, k, k + 1)).lastrowid
            conn.executemany("INSERT INTO matchseat (match_id, seat, version_id, rank, coins, status, detail, "
                             "decisions, time_ms, failure_request, failure_log) VALUES (?, ?, ?, ?, 5, 'ok', '', 50, "
                             "900.0, '', '')",
                             [(match, seat, v, seat + 1) for seat, v in enumerate(rng.sample(active, 4))])


def measure(tree: Path, db: Path, rounds: int) -> dict[str, list[float]]:
    done = subprocess.run([sys.executable, "-c", MEASURE, str(tree), str(db), str(rounds)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=60)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--old", type=Path, help="another checkout, measured in turn on the same ladder")
    args = parser.parse_args()
    print(common.machine())
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "ladder.sqlite"
        started = time.perf_counter()
        build(db, args.bots, args.versions, args.games)
        print(f"ladder: {args.bots} bots, {args.versions} versions each ({SOURCE_BYTES // 1000} KB sources), "
              f"{args.games} games; built in {time.perf_counter() - started:.1f} s")
        trees = {"this checkout": ROOT} | ({f"--old {args.old}": args.old} if args.old else {})
        results: dict[str, dict[str, list[float]]] = {name: {} for name in trees}
        for _ in range(2 if args.old else 1):  # two trees in turn, twice: the VM's pace drifts
            for name, tree in trees.items():
                for part, times in measure(tree, db, args.rounds).items():
                    results[name].setdefault(part, []).extend(times)
        for name, parts in results.items():
            line = ", ".join(f"{part} {min(t):.1f} ms (median {statistics.median(t):.1f})" for part, t in parts.items())
            report = statistics.median(parts["owner_report"])
            print(f"{name}: {line} a call, CPU; ~{1000 / report:.0f} /api/me a second on one core")


if __name__ == "__main__":
    main()
