"""Engine speed: full 4-player classic games in one process, no protocol, no sandbox.

    python3 bench/engine.py [--games N] [--players P]

Prints games/s and µs per decision for a random legal policy and for the greedy example bot
driven in-process through its SDK methods (view building included), on one core.
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import classic_rules, new_game  # noqa: E402
from strategy.policies import random_action  # noqa: E402

import common  # noqa: E402


def bench_random(games: int, players: int) -> tuple[float, float, float]:
    rules = classic_rules()
    decisions = 0
    started = time.perf_counter()
    for seed in range(games):
        game = new_game(rules, players, seed)
        rng = random.Random(seed)
        while not game.over:
            game.apply(random_action(game, rng))
            decisions += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, elapsed / decisions * 1e6, decisions / games


def bench_greedy(games: int, players: int) -> tuple[float, float, float]:
    """The greedy bot's own decision methods on typed requests built straight from the state."""
    from sandbox.sdk import Request

    module = common.load_module("greedy_bot", Path(__file__).resolve().parent.parent / "bots" / "greedy_bot.py")
    rules = classic_rules()
    decisions = 0
    started = time.perf_counter()
    for seed in range(games):
        game = new_game(rules, players, seed)
        bots = [module.GreedyBot() for _ in range(players)]
        for seat, bot in enumerate(bots):
            bot.rules, bot.seat, bot.players, bot.rng = rules, seat, players, random.Random(seed * 7 + seat)
        while not game.over:
            d = common.decision_of(game)
            request = Request(decisions, d.kind, game.view(d.seat), (), d.options, 1000.0)
            game.apply(getattr(bots[d.seat], d.kind.value)(request))
            decisions += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, elapsed / decisions * 1e6, decisions / games


def main() -> None:
    parser = common.parser(__doc__, 300)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(common.machine())
    for name, fn in (("random", bench_random), ("greedy", bench_greedy)):
        rate, us, per_game = fn(args.games, args.players)
        print(f"{name:7s} {args.players}p: {rate:8.1f} games/s  {us:7.1f} µs/decision  {per_game:6.0f} decisions/game"
              f"  ({args.games} games)")


if __name__ == "__main__":
    main()
