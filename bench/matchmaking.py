"""Cost of planning one table with ``arena.ladder.matchmaking.Matchmaker`` as the ladder grows.

    python3 bench/matchmaking.py [--bots 14,50,200] [--tables 20]

Candidates get random ratings (mu 10-40, sigma 0.8-3) and game counts (20-40); every table has 5
seats. The matchmaker looks at every pair of active bots, so the cost grows with the square of
their number.
"""
from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.ladder.matchmaking import Candidate, Matchmaker  # noqa: E402
from arena.ladder.ratings import Skill  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", default="14,50,200")
    parser.add_argument("--tables", type=int, default=20)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.system()} {platform.release()}, python {platform.python_version()}")
    rng = random.Random(1)
    for count in (int(n) for n in args.bots.split(",")):
        candidates = [Candidate(i, Skill(rng.uniform(10, 40), rng.uniform(0.8, 3.0)), rng.randint(20, 40))
                      for i in range(count)]
        maker = Matchmaker(random.Random(2))
        started = time.perf_counter()
        for _ in range(args.tables):
            maker.table(candidates, 5)
        per_table = (time.perf_counter() - started) / args.tables * 1000
        print(f"{count:4d} active bots: {per_table:7.2f} ms per 5-seat table", flush=True)


if __name__ == "__main__":
    main()
