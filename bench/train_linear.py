"""Train the linear example's weights through the PettingZoo environment, and measure it against greedy.

    python3 bench/train_linear.py train [--iterations 40] [--batch 30] [--seed 1]     # prints WEIGHTS
    python3 bench/train_linear.py coordinate [--rounds 3] [--deals 20] [--step 2]   # prints WEIGHTS
    python3 bench/train_linear.py evaluate [--games 600] [--weights w0,w1,...]         # the bot file's by default

``train``: a (1+1) evolution strategy. The policy scores each legal option by ``linear_bot.features`` (one of
them: "greedy would play this") and starts at greedy's weights (1 on that feature, 0 elsewhere), so it starts
at parity. Each iteration perturbs the incumbent's other weights by a Gaussian step and plays the incumbent
and the candidate on the same ``--batch`` deals at the same seat (common random numbers) in a 3-seat classic
game against two greedy bots, through ``training.gym_env.BohnanzaSingle`` (the AEC environment underneath);
the candidate replaces the incumbent when its fitness (pairwise score against the greedy seats plus 0.01 per
coin of margin) is higher; the step size follows the 1/5 success rule (and grows after a step that changed no
decision). Deals are fresh every iteration.

``evaluate``: the bot *file* (as the ladder runs it, in-process through the arena's referee) against two greedy
bots on held-out deals (seeds from 10**6 on), every deal played three times with the learner in each seat. The
score of a game is the learner's pairwise result against each greedy seat (more coins: 1, tie: 1/2); the
interval is a 95 % bootstrap over deals (2000 resamples).
"""
from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import machine  # noqa: E402

HELD_OUT = 10**6  # evaluation deals start here; training deals stay far below


def linear_module() -> ModuleType:
    """docs/examples/linear_bot.py, imported as the training's policy (the file is the features' one source)."""
    spec = importlib.util.spec_from_file_location("linear_bot", ROOT / "docs" / "examples" / "linear_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play_env(env: object, bot: ModuleType, weights: Sequence[float], seed: int, seat: int) -> tuple[float, float]:
    """One game in the environment: the learner's pairwise score against the others and its coin margin."""
    from training.gym_env import BohnanzaSingle

    assert isinstance(env, BohnanzaSingle)
    env.fixed_seat = seat
    _, info = env.reset(seed=seed)
    rules = env.aec.rules
    while True:
        actions = info["actions"]
        chosen = bot.choose(weights, rules, info["view"], info["kind"], list(actions.values()))
        index = next(i for i, a in actions.items() if a == chosen)
        _, _, done, _, info = env.step(index)
        if done:
            coins = info["coins"]
            return pairwise(coins, seat)


def pairwise(coins: Sequence[int], me: int) -> tuple[float, float]:
    others = [c for k, c in enumerate(coins) if k != me]
    score = sum(1.0 if coins[me] > c else 0.5 if coins[me] == c else 0.0 for c in others) / len(others)
    return score, coins[me] - sum(others) / len(others)


def fitness(env: object, bot: ModuleType, weights: Sequence[float], seeds: Sequence[int]) -> float:
    results = [play_env(env, bot, weights, s, s % 3) for s in seeds]
    return statistics.fmean(r[0] + 0.01 * r[1] for r in results)


def fitness_all_seats(env: object, bot: ModuleType, weights: Sequence[float], deals: Sequence[int]) -> float:
    """``fitness`` with every deal played in all three seats: greedy's own weights score exactly 0.5 there
    (three identical games, whose pairwise scores average 1/2), so a candidate is compared with a known value."""
    results = [play_env(env, bot, weights, s, seat) for s in deals for seat in range(3)]
    return statistics.fmean(r[0] + 0.01 * r[1] for r in results)


def coordinate(rounds: int, deals: int, seed: int, step: float) -> list[float]:
    """Coordinate search: each round tries every weight but greedy's one step up and one step down on the same
    fresh deals (all seats), and moves to the best try if it beats the incumbent on those deals."""
    from training.gym_env import BohnanzaSingle

    bot = linear_module()
    env = BohnanzaSingle("classic", ["greedy", "greedy"], seat=0)
    incumbent = [1.0] + [0.0] * (len(bot.WEIGHTS) - 1)
    started = time.perf_counter()
    games = 0
    for r in range(rounds):
        batch = [seed * 100_000 + 50_000 + r * deals + k for k in range(deals)]
        greedy = incumbent[1:] == [0.0] * (len(incumbent) - 1)
        base = 0.5 if greedy else fitness_all_seats(env, bot, incumbent, batch)
        games += 0 if greedy else 3 * deals
        tries = []
        for j in range(1, len(incumbent)):
            for sign in (1.0, -1.0):
                candidate = list(incumbent)
                candidate[j] += sign * step
                tries.append((fitness_all_seats(env, bot, candidate, batch), j, sign, candidate))
                games += 3 * deals
        tries.sort(key=lambda t: t[0], reverse=True)
        best = tries[0]
        print(f"round {r + 1}: incumbent {base:.3f}; best tries " + ", ".join(
            f"{bot.FEATURES[j]}{'+' if sign > 0 else '-'} {f:.3f}" for f, j, sign, _ in tries[:4])
            + f"  {time.perf_counter() - started:.0f} s", flush=True)
        if best[0] > base:
            incumbent = best[3]
        else:
            step /= 2
    print(f"# {games} training games")
    print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in incumbent) + ")")
    return incumbent


def train(iterations: int, batch: int, seed: int, sigma: float) -> list[float]:
    from training.gym_env import BohnanzaSingle

    bot = linear_module()
    env = BohnanzaSingle("classic", ["greedy", "greedy"], seat=0)
    rng = random.Random(seed)
    incumbent = list(bot.WEIGHTS)
    started = time.perf_counter()
    accepted = 0
    for it in range(iterations):
        seeds = [seed * 100_000 + it * batch + k for k in range(batch)]
        candidate = [incumbent[0]] + [w + sigma * rng.gauss(0.0, 1.0) for w in incumbent[1:]]
        base, new = fitness(env, bot, incumbent, seeds), fitness(env, bot, candidate, seeds)
        if new > base:
            incumbent, accepted = candidate, accepted + 1
            sigma *= 1.5
        elif new == base:  # the step changed no decision of these games: a longer one
            sigma *= 1.5
        else:
            sigma *= 1.5 ** -0.25
        print(f"iteration {it + 1}: incumbent {base:.3f} candidate {new:.3f} "
              f"{'accepted' if new > base else 'kept'}  sigma {sigma:.3f}  "
              f"{time.perf_counter() - started:.0f} s", flush=True)
    print(f"# {accepted} of {iterations} steps accepted; {2 * iterations * batch} training games")
    print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in incumbent) + ")")
    return incumbent


def bootstrap(values: Sequence[float], rng: random.Random, rounds: int = 2000) -> tuple[float, float]:
    means = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def evaluate(deals: int, weights: Sequence[float] | None) -> None:
    from arena.play.players import InProcessPlayer
    from arena.play.referee import play_game
    from engine import classic_rules

    rules = classic_rules()
    bot_file = ROOT / "docs" / "examples" / "linear_bot.py"
    greedy = ROOT / "bots" / "greedy_bot.py"
    if weights is not None:  # a copy of the file with these weights, as train prints them
        text = bot_file.read_text()
        head, rest = text.split("WEIGHTS: tuple[float, ...] = (", 1)
        tail = ")" + rest.split(")", 1)[1]
        bot_file = Path("/tmp/linear_bot_eval.py")
        bot_file.write_text(head + "WEIGHTS: tuple[float, ...] = (" + ", ".join(map(str, weights)) + tail)
    per_deal: list[float] = []
    scores: list[float] = []
    margins: list[float] = []
    firsts = failures = 0
    started = time.perf_counter()
    for k in range(deals):
        seed = HELD_OUT + k
        deal_scores = []
        for seat in range(3):
            players = [InProcessPlayer(bot_file if i == seat else greedy, f"s{i}") for i in range(3)]
            record = play_game(rules, seed, players)
            failures += sum(1 for s in record.seats if s.status.value != "ok")
            coins = [s.coins for s in record.seats]
            score, margin = pairwise(coins, seat)
            deal_scores.append(score)
            scores.append(score)
            margins.append(margin)
            firsts += coins[seat] > max(c for i, c in enumerate(coins) if i != seat)
        per_deal.append(statistics.fmean(deal_scores))
    low, high = bootstrap(per_deal, random.Random(0))
    games = 3 * deals
    print(machine(), f"{time.perf_counter() - started:.0f} s")
    print(f"linear vs greedy, classic 3 seats (1 linear, 2 greedy): {games} games on {deals} held-out deals "
          f"(seeds {HELD_OUT}..{HELD_OUT + deals - 1}, each in every seat)")
    print(f"pairwise score against a greedy seat: {statistics.fmean(scores):.3f}  95% CI [{low:.3f}, {high:.3f}] "
          f"(0.5 = parity)")
    print(f"alone in first place: {firsts / games:.3f} (parity 1/3); mean coin margin over the greedy seats: "
          f"{statistics.fmean(margins):+.2f}; failures: {failures}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("--iterations", type=int, default=40)
    t.add_argument("--batch", type=int, default=30)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--sigma", type=float, default=1.0)
    c = sub.add_parser("coordinate")
    c.add_argument("--rounds", type=int, default=3)
    c.add_argument("--deals", type=int, default=20)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--step", type=float, default=2.0)
    e = sub.add_parser("evaluate")
    e.add_argument("--games", type=int, default=600, help="games (a multiple of 3: each deal in every seat)")
    e.add_argument("--weights", default=None, help="comma-separated weights instead of the bot file's")
    args = parser.parse_args()
    if args.command == "train":
        train(args.iterations, args.batch, args.seed, args.sigma)
    elif args.command == "coordinate":
        coordinate(args.rounds, args.deals, args.seed, args.step)
    else:
        weights = None if args.weights is None else [float(w) for w in args.weights.split(",")]
        evaluate(args.games // 3, weights)


if __name__ == "__main__":
    main()
