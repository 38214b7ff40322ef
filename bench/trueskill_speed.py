"""The rating of one game: the ``trueskill`` package against arena/ladder/trueskill_fast.py, in the same run.

    python3 bench/trueskill_speed.py [--games N] [--players 4]

Rates the same ``--players``-player game (mixed ratings, a full finishing order) ``--games`` times each way and
prints microseconds a game and the ratio; first checks that both give the same ratings on 1,000 random games."""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import trueskill  # noqa: E402

from arena.ladder.ratings import BETA, MU, SIGMA, TAU  # noqa: E402
from arena.ladder.trueskill_fast import rate  # noqa: E402


def package(mus: list[float], sigmas: list[float], ranks: list[int], draw_p: float) -> list[tuple[float, float]]:
    env = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=draw_p)
    return [(g[0].mu, g[0].sigma) for g in env.rate([(env.create_rating(m, s),) for m, s in zip(mus, sigmas)],
                                                     ranks=ranks)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    rng = random.Random(1)
    for _ in range(1000):
        n = rng.randint(2, 5)
        mus, sigmas = [rng.uniform(0, 50) for _ in range(n)], [rng.uniform(0.5, 9) for _ in range(n)]
        ranks = rng.sample(range(n), n)
        if package(mus, sigmas, ranks, 0.05) != rate(mus, sigmas, ranks, 0.05, BETA, TAU):
            raise SystemExit(f"different ratings for {mus} {sigmas} {ranks}")
    print("the same ratings on 1,000 random games")
    n = args.players
    mus, sigmas, ranks = [20.0 + 3 * k for k in range(n)], [8.0 - k for k in range(n)], list(range(n))
    timings = {}
    for name, once in (("package", lambda: package(mus, sigmas, ranks, 0.05)),
                       ("trueskill_fast", lambda: rate(mus, sigmas, ranks, 0.05, BETA, TAU))):
        started = time.perf_counter()
        for _ in range(args.games):
            once()
        timings[name] = (time.perf_counter() - started) / args.games * 1e6
        print(f"{name:15} {timings[name]:8.1f} µs a {n}-player game")
    print(f"package / trueskill_fast: {timings['package'] / timings['trueskill_fast']:.2f}x")


if __name__ == "__main__":
    main()
