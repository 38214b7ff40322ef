"""Season throughput: rated 4-player games per minute in the full sandbox, 1 and 2 workers.

    python3 bench/season.py [--games N]

Registers the example bots (plus renamed copies, so that 4-player tables have 4 different bots)
in a fresh SQLite file, runs one season with 1 worker and one with 2 workers, and prints games
per minute and the scaling ratio.
"""
from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import Session  # noqa: E402

from arena.db import make_engine  # noqa: E402
from arena.ladder import SeasonSettings, run_season  # noqa: E402
from arena.submit import register  # noqa: E402
from sandbox import Limits, detect_tier  # noqa: E402

BOTS = Path(__file__).resolve().parent.parent / "bots"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--rotate", action="store_true", help="seat-rotated deals: a table plays 4 games")
    args = parser.parse_args()
    tier = detect_tier()
    print(f"machine: {platform.machine()} {platform.system()} {platform.release()}, {platform.python_version()}, "
          f"tier {tier.value}, {'seat-rotated deals' if args.rotate else 'one game per table'}")
    with tempfile.TemporaryDirectory() as folder:
        engine = make_engine(f"sqlite:///{folder}/bench.sqlite")
        with Session(engine) as session:
            for stem in ("random_bot", "greedy_bot"):
                source = (BOTS / f"{stem}.py").read_text()
                register(session, stem, source, builtin=True)
                register(session, stem + "_2", source + "\n# copy\n")
        rates = {}
        for workers in (1, 2):
            started = time.perf_counter()
            settings = SeasonSettings(name=f"bench-{workers}", games=args.games, min_players=4, max_players=4,
                                      seed=workers, rotate=args.rotate)
            progress = run_season(engine, settings, workers, Limits(), tier)
            elapsed = time.perf_counter() - started
            rates[workers] = progress.done / elapsed * 60
            print(f"{workers} worker{'s' if workers > 1 else ' '}: {progress.done} games in {elapsed:6.1f} s = "
                  f"{rates[workers]:6.1f} games/min  (failures {progress.failures}, void {progress.void})")
        print(f"scaling 2 vs 1 workers: {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
