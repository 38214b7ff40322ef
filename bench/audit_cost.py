"""The audit's cost a game: the trade flows its workers counted live (stored with each game) against the replays
played again (what the audit did before schema 13, and still does for an older record).

    python3 bench/audit_cost.py [--games N] [--workers N]

In one run, on a fresh SQLite file with the example bots: one sandboxed season of 4-player seat-rotated deals, then
``run_audit`` of that season three times as recorded (the best is kept), then three times more with every game's
flows taken away (``match.flows`` NULL: the audit plays each replay again). Prints ms a game of each and the ratio.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import text  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402
from sqlmodel import Session  # noqa: E402

from arena.audit.store import run_audit  # noqa: E402
from arena.db import make_engine  # noqa: E402
from sandbox import Limits, detect_tier  # noqa: E402

import common  # noqa: E402
from season import season_rate  # noqa: E402 - bench/season.py


def audit_ms(engine: Engine, season: str, games: int) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        with Session(engine) as session:
            run_audit(session, season=season)
        best = min(best, time.perf_counter() - started)
    return best * 1000 / games


def main() -> None:
    parser = common.parser(__doc__, 240, games_help="games of the season (4-player rotated deals)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tier = detect_tier()
    print(common.machine(f"tier {tier.value}", f"{args.workers} workers"), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{folder}/bench.sqlite")
        common.register_example_bots(engine)
        season_rate(engine, "audited", args.games, args.workers, Limits(), tier)
        stored = audit_ms(engine, "audited", args.games)
        with engine.begin() as conn:
            conn.execute(text('UPDATE "match" SET flows = NULL'))
        replayed = audit_ms(engine, "audited", args.games)
    print(f"run_audit of a {args.games}-game season: the flows stored with the games {stored:.2f} ms a game, "
          f"every replay played again {replayed:.2f} ms a game ({replayed / stored:.0f}x)")


if __name__ == "__main__":
    main()
