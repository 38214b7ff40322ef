"""The ground truth of bench/accuracy.py: the bots' true order from a long round robin of random tables."""
from __future__ import annotations

import random
from typing import Sequence

import arena.ladder.ratings as ratings

from accuracy_games import MAX_PLAYERS, MIN_PLAYERS, games_store


def truth_chunk(task: tuple[list[str], int, int]) -> list[tuple[list[str], tuple[int, ...]]]:
    """Games ``first``..``first + count - 1`` of the round robin over ``names``: their seatings and ranks."""
    names, first, count = task
    out = []
    for g in range(first, first + count):
        rng = random.Random(f"truth/{g}")
        seating = rng.sample(names, rng.randint(MIN_PLAYERS, MAX_PLAYERS))
        out.append((seating, games_store().ranks(seating, rng.getrandbits(63))))
    return out


def table_scores(ranks: Sequence[int]) -> list[float]:
    n = len(ranks)
    return [sum(1.0 if r < o else 0.5 if r == o else 0.0 for j, o in enumerate(ranks) if j != i) / (n - 1)
            for i, r in enumerate(ranks)]


def ground_truth(games: list[tuple[list[str], tuple[int, ...]]], names: list[str], resamples: int = 400,
                 z_min: float = 2.0) -> dict:
    """The true order of ``names`` from the round robin's ``games`` (seatings and ranks): the mean table scores,
    each neighbour's difference, and the order kept (each bot significantly weaker than the last kept)."""
    import numpy as np

    index = {n: i for i, n in enumerate(names)}
    sums = np.zeros((len(games), len(names)))
    counts = np.zeros((len(games), len(names)))
    ties = pairs = 0
    for g, (seating, ranks) in enumerate(games):
        for name, score in zip(seating, table_scores(ranks)):
            sums[g, index[name]] += score
            counts[g, index[name]] += 1
        t, p = ratings.tie_counts(ranks)
        ties, pairs = ties + t, pairs + p
    mean = sums.sum(0) / counts.sum(0)
    rng = np.random.default_rng(12345)
    weights = rng.multinomial(len(games), [1 / len(games)] * len(games), size=resamples).astype(float)
    boot = (weights @ sums) / (weights @ counts)  # resamples x bots
    order = sorted(range(len(names)), key=lambda i: -mean[i])
    rows = []
    for a, b in zip(order, order[1:]):
        diff = mean[a] - mean[b]
        se = float(np.std(boot[:, a] - boot[:, b], ddof=1))
        rows.append({"stronger": names[a], "weaker": names[b], "diff": float(diff), "se": se, "z": float(diff / se)})
    # strongest first, keep a bot only when it is significantly weaker than the last bot kept
    kept = [order[0]]
    dropped = []
    for i in order[1:]:
        last = kept[-1]
        se = float(np.std(boot[:, last] - boot[:, i], ddof=1))
        if (mean[last] - mean[i]) / se >= z_min:
            kept.append(i)
        else:
            dropped.append(names[i])
    return {"games": len(games), "mean_score": {names[i]: float(mean[i]) for i in order},
            "games_per_bot": {names[i]: int(counts[:, i].sum()) for i in order},
            "neighbours": rows, "order": [names[i] for i in kept], "dropped": dropped,
            "tie_rate": ties / max(pairs, 1)}
