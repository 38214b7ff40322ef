"""Calibration of the sequential test of `arena test` (arena/sprt.py) on simulated pairs.

    python3 bench/sprt.py [--tests 2000] [--elo1 5]

Pairs are drawn from a pentanomial distribution whose mean score is that of a true Elo difference
(the shape of draws-heavy Bohnanza pairs: most pairs level, the rest spread around): at the true
difference elo0 (0) the share of H1 verdicts is the false-positive rate, which must stay at or below
alpha; at elo1 the share of H1 is the power (1 - beta at best). Also the mean number of pairs to a
verdict. The bots are not played here: this measures the statistic, not the pairing.
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.sprt import PAIR_SCORES, Hypotheses, Pentanomial, score_of_elo  # noqa: E402

import common  # noqa: E402

BASE = (0.05, 0.15, 0.6, 0.15, 0.05)  # probabilities of pair scores 0, 1/4, 1/2, 3/4, 1 at an even match


def shifted(elo: float) -> list[float]:
    """BASE tilted (exponentially) until its mean score is that of ``elo``."""
    target = score_of_elo(elo)
    low, high = -50.0, 50.0
    for _ in range(100):
        t = (low + high) / 2
        weights = [p * 2.718281828 ** (t * s) for p, s in zip(BASE, PAIR_SCORES)]
        mean = sum(w * s for w, s in zip(weights, PAIR_SCORES)) / sum(weights)
        low, high = (t, high) if mean < target else (low, t)
    total = sum(weights)
    return [w / total for w in weights]


def one_test(rng: random.Random, probabilities: list[float], h: Hypotheses, max_pairs: int) -> tuple[str | None, int]:
    results = Pentanomial()
    while results.pairs < max_pairs:
        results.counts[rng.choices(range(5), probabilities)[0]] += 1
        verdict = results.verdict(h)
        if verdict:
            return verdict, results.pairs
    return None, results.pairs


def main() -> None:
    args = common.parser(__doc__, 0)
    args.add_argument("--tests", type=int, default=2000)
    args.add_argument("--elo1", type=float, default=5.0)
    args.add_argument("--max-pairs", type=int, default=200_000)
    opts = args.parse_args()
    h = Hypotheses(0.0, opts.elo1, 0.05, 0.05)
    rng = random.Random(1)
    print(common.machine(f"{opts.tests} simulated tests per row, elo0 0, elo1 {opts.elo1:g}, alpha = beta = 0.05"))
    print("true Elo | H1 share | H0 share | undecided | mean pairs to a verdict")
    for elo in (0.0, opts.elo1 / 2, opts.elo1, 2 * opts.elo1):
        probabilities = shifted(elo)
        runs = [one_test(rng, probabilities, h, opts.max_pairs) for _ in range(opts.tests)]
        decided = [n for v, n in runs if v]
        print(f"{elo:8.1f} | {sum(v == 'H1' for v, _ in runs) / len(runs):8.3f} | "
              f"{sum(v == 'H0' for v, _ in runs) / len(runs):8.3f} | {sum(v is None for v, _ in runs):9d} | "
              f"{sum(decided) / max(1, len(decided)):.0f}")


if __name__ == "__main__":
    main()
