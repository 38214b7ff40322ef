"""How long a table's first bots take to start when no fork server is running yet (a submission's smoke game, `arena
play`, a season worker's first table): the seats' templates started one after another, as each bot asked for its
own, against started together first (``warm_sandboxes``, what ``run_table`` and `arena play` do).

    python3 bench/table_start.py [--rounds N] [--seats 3,4,5]

The strong tier with fork servers, bots/random_bot.py in every seat. Each round, for each table size, closes every
fork server, then times the start of the table's bots (``SandboxPlayer(...)`` each, until every one said
``ready``) both ways, alternating which goes first; prints the median wall clock of each and their ratio.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.play.players import SandboxPlayer, warm_sandboxes  # noqa: E402
from sandbox import Limits, Tier, close_fork_servers, detect_tier  # noqa: E402

import common  # noqa: E402


def start_table(seats: int, together: bool, source: str, limits: Limits, tier: Tier) -> float:
    """Seconds until ``seats`` bots are ready, from no fork server at all; the bots are closed after."""
    close_fork_servers()
    started = time.perf_counter()
    players: list[SandboxPlayer] = []
    try:
        if together:
            warm_sandboxes(["python"] * seats, limits, tier)
        for n in range(seats):
            players.append(SandboxPlayer(f"random{n}", source, limits, tier))
        return time.perf_counter() - started
    finally:
        for player in players:
            player.close()


def main() -> None:
    parser = common.parser(__doc__, 0)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seats", default="3,4,5", help="comma list of table sizes")
    args = parser.parse_args()
    tier = detect_tier()
    if tier is not Tier.STRONG:
        raise SystemExit("bench/table_start.py: needs the strong tier (fork servers): " + tier.value)
    limits = Limits()
    source = (common.BOTS / "random_bot.py").read_text(encoding="utf-8")
    sizes = [int(s) for s in args.seats.split(",")]
    print(common.machine(f"tier {tier.value}", f"{args.rounds} rounds"))
    times: dict[tuple[int, bool], list[float]] = {(n, t): [] for n in sizes for t in (False, True)}
    for round_ in range(args.rounds):
        for n in sizes:
            for together in ((False, True) if round_ % 2 else (True, False)):
                times[(n, together)].append(start_table(n, together, source, limits, tier))
    close_fork_servers()
    for n in sizes:
        one, both = statistics.median(times[(n, False)]), statistics.median(times[(n, True)])
        print(f"{n} seats: one after another {one * 1000:6.0f} ms, started together {both * 1000:6.0f} ms "
              f"({both / one:.2f} of it)")


if __name__ == "__main__":
    main()
