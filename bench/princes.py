"""Simulation of the Princes variants with the engine's example policies (no protocol, no sandbox).

    python3 bench/princes.py [--games N] [--seed S]

For the duel (``duel-v1``): the share of games that end by a player entering the Castle (the rest end
by an exhausted supply), the average number of turns and decisions, for the random policy, the forfeit
policy and the greedy policy (``strategy.policies.princes_greedy_action``). For the solitaire game
(``solo-v1``): the win rate with a 95% Wilson interval, how games end, and the average gold. Games are
dealt from seeds ``S .. S+N-1``; the figures are in docs/princes.md.
"""
from __future__ import annotations

import math
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PrincesGame, new_game, rules_for  # noqa: E402
from engine.defaults import default_action  # noqa: E402
from strategy.policies import princes_greedy_action, random_action  # noqa: E402

import common  # noqa: E402

POLICIES: dict[str, Callable] = {
    "random": lambda game, rng: random_action(game, rng),
    "default": lambda game, rng: default_action(game),
    "greedy": princes_greedy_action,
}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def play(variant: str, players: int, policy: str, games: int, first_seed: int) -> dict:
    rules = rules_for(variant)
    act = POLICIES[policy]
    reasons: Counter = Counter()
    turns = decisions = wins = gold = 0
    started = time.perf_counter()
    for seed in range(first_seed, first_seed + games):
        game = new_game(rules, players, seed)
        assert isinstance(game, PrincesGame)
        rng = random.Random(seed)
        while not game.over:
            game.apply(act(game, rng))
            decisions += 1
        reasons[game.end_reason] += 1
        turns += game.turn + 1
        wins += common.result_of(game).ranks[0] == 1
        gold += sum(common.result_of(game).coins)
    elapsed = time.perf_counter() - started
    return {"variant": variant, "policy": policy, "games": games, "reasons": dict(reasons),
            "castle_share": reasons["castle"] / games, "turns": turns / games, "decisions": decisions / games,
            "wins": wins, "win_rate": wins / games, "ci": wilson(wins, games), "gold": gold / games / players,
            "games_per_s": games / elapsed}


def main() -> None:
    args = common.parser(__doc__, 200, seed=True).parse_args()
    print(common.seeds_line(args.games, args.seed))
    print("duel-v1: policy | ended at the Castle | by supply | turns (both players) | decisions | gold/player | "
          "games/s")
    for policy in ("random", "default", "greedy"):
        r = play("duel", 2, policy, args.games, args.seed)
        print(f"  {policy:8s} | {r['castle_share']:6.1%} | {r['reasons'].get('supply', 0) / args.games:6.1%} | "
              f"{r['turns']:5.1f} | {r['decisions']:6.1f} | {r['gold']:4.1f} | {r['games_per_s']:6.1f}")
    print("solo-v1: policy | win rate [95% CI] | lost to a neutral figure | by supply | turns | gold | games/s")
    for policy in ("random", "default", "greedy"):
        r = play("solo", 1, policy, args.games, args.seed)
        low, high = r["ci"]
        print(f"  {policy:8s} | {r['win_rate']:6.1%} [{low:.1%}, {high:.1%}] | "
              f"{r['reasons'].get('neutral', 0) / args.games:6.1%} | "
              f"{r['reasons'].get('supply', 0) / args.games:5.1%} | "
              f"{r['turns']:5.1f} | {r['gold']:4.1f} | {r['games_per_s']:6.1f}")


if __name__ == "__main__":
    main()
