"""The example bots in the Princes variants, in-process through the referee and the SDK (JSON round trips,
no sandbox): what a ladder season would see, without the sandbox's start-up cost.

    python3 bench/princes_bots.py [--games N] [--seed S] [--solo greedy,random] [--duel greedy:random,...]

Solo: each bot alone on seeds ``S .. S+N-1``: win rate with a 95% Wilson interval, average gold, how
games end. Duel: each pairing on the same seeds, seats alternating: share of games that end at the
Castle, the first bot's wins. Figures are in docs/princes.md.
"""
from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.ladder.rankings import wilson  # noqa: E402
from arena.play.players import InProcessPlayer  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from engine import rules_for  # noqa: E402
from engine.events import EndTriggered  # noqa: E402

import common  # noqa: E402


def end_reason(record) -> str:
    return next((e.reason for e in record.replay.events if isinstance(e, EndTriggered)), "void")


def player(name: str) -> InProcessPlayer:
    return InProcessPlayer(ROOT / "bots" / f"{name}_bot.py", name)


def solo(name: str, games: int, first: int) -> str:
    rules, bot = rules_for("solo"), player(name)
    wins = gold = failures = 0
    reasons: Counter = Counter()
    started = time.perf_counter()
    for seed in range(first, first + games):
        record = play_game(rules, seed, [bot])
        wins += record.seats[0].rank == 1
        gold += record.seats[0].coins
        failures += record.seats[0].status.value != "ok"
        reasons[end_reason(record)] += 1
    low, high = wilson(wins, games)
    return (f"| {name} | {wins / games:.1%} [{low:.1%}, {high:.1%}] | {gold / games:.2f} | "
            f"{reasons['neutral'] / games:.1%} | {reasons['supply'] / games:.1%} | {failures} | "
            f"{games / (time.perf_counter() - started):.1f} |")


def duel(first_bot: str, second_bot: str, games: int, first: int) -> str:
    rules, a, b = rules_for("duel"), player(first_bot), player(second_bot)
    castle = wins = failures = 0
    started = time.perf_counter()
    for k, seed in enumerate(range(first, first + games)):
        seats = [a, b] if k % 2 == 0 else [b, a]
        record = play_game(rules, seed, seats)
        castle += end_reason(record) == "castle"
        wins += record.seats[seats.index(a)].rank == 1
        failures += sum(s.status.value != "ok" for s in record.seats)
    return (f"| {first_bot} – {second_bot} | {castle / games:.1%} | {wins / games:.1%} | {failures} | "
            f"{games / (time.perf_counter() - started):.1f} |")


def main() -> None:
    parser = common.parser(__doc__, 500, seed=True)
    parser.add_argument("--solo", default="greedy,trader,search,random")
    parser.add_argument("--duel", default="greedy:random,greedy:greedy,trader:search")
    args = parser.parse_args()
    print(common.seeds_line(args.games, args.seed))
    print("| solo-v1 bot | win rate [95% Wilson CI] | avg gold | lost to a neutral figure | lost by supply | failures "
          "| games/s |")
    print("|---|---|---|---|---|---|---|")
    for name in filter(None, args.solo.split(",")):
        print(solo(name, args.games, args.seed), flush=True)
    print("| duel-v1 bots | ended at the Castle | first bot's wins | failures | games/s |")
    print("|---|---|---|---|---|")
    for pair in filter(None, args.duel.split(",")):
        first_bot, _, second_bot = pair.partition(":")
        print(duel(first_bot, second_bot, args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
