"""Strength order of the built-in bots: head-to-head games between neighbours, in-process.

    python3 bench/strength.py [--games N] [--workers W] [--pairs random:greedy,greedy:trader,trader:search]

Each pair A:B plays 4-player tables of two A seats and two B seats. Every deck seed is played
twice, as A B A B and as B A B A, so each bot sits in every seat once on the same deal (the luck of
the deal and of the seat cancels). A game's score for A is the share of (A seat, B seat) pairs in
which the A seat ended with more coins (a tie counts half); A's win rate is the mean over games.
The 95 % confidence interval treats the two games of a seed as one sample (mean ± 1.96 standard
errors over seeds). Average rank (1 = best of 4) is reported too. Failures (any status other
than "ok") and voided games are counted and reported; they should be zero.

Results go to standard output and, with --out, as JSON to a file. ``--pool A.json B.json ...``
plays nothing: it pools earlier runs of the same pair on disjoint seeds (each run's win rate
weighted by its seeds, standard errors combined as independent strata) and prints the result.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.play.players import InProcessPlayer  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from engine import classic_rules  # noqa: E402

BOTS = ROOT / "bots"


def bot_path(name: str) -> Path:
    """A built-in bot by name (``trader``), or a bot file by path (ends with ``.py``)."""
    return Path(name) if name.endswith(".py") else BOTS / f"{name}_bot.py"


def play_seed(task: tuple[str, str, int]) -> dict:
    """Both seatings of one deal; returns per-game scores for A, ranks and failures."""
    a, b, seed = task
    rules = classic_rules()
    out: dict[str, Any] = {"seed": seed, "scores": [], "rank_a": [], "rank_b": [], "failures": 0, "void": 0,
                           "seconds": 0.0, "time_ms": {a: 0.0, b: 0.0}, "decisions": {a: 0, b: 0}}
    for layout in ((a, b, a, b), (b, a, b, a)):
        players = [InProcessPlayer(bot_path(name), f"{Path(name).stem}{i}") for i, name in enumerate(layout)]
        record = play_game(rules, seed, players)
        out["seconds"] += record.seconds
        if record.void:
            out["void"] += 1
            continue
        out["failures"] += sum(1 for s in record.seats if s.status.value != "ok")
        a_seats = [i for i, n in enumerate(layout) if n == a]
        b_seats = [i for i, n in enumerate(layout) if n == b]
        coins = [s.coins for s in record.seats]
        pairs = [(1.0 if coins[i] > coins[j] else 0.5 if coins[i] == coins[j] else 0.0)
                 for i in a_seats for j in b_seats]
        out["scores"].append(sum(pairs) / len(pairs))
        out["rank_a"].extend(record.seats[i].rank for i in a_seats)
        out["rank_b"].extend(record.seats[i].rank for i in b_seats)
        for i, name in enumerate(layout):
            out["time_ms"][name] += record.seats[i].time_ms
            out["decisions"][name] += record.seats[i].decisions
    return out


def mean_ci(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(values) / n
    if n < 2:
        return m, float("nan")
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def run_pair(a: str, b: str, games: int, workers: int, first_seed: int) -> dict:
    seeds = range(first_seed, first_seed + (games + 1) // 2)
    started = time.perf_counter()
    results = []
    tasks = [(a, b, s) for s in seeds]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(play_seed, tasks, chunksize=1))
    else:
        results = [play_seed(t) for t in tasks]
    per_seed = [sum(r["scores"]) / len(r["scores"]) for r in results if r["scores"]]
    win, ci = mean_ci(per_seed)
    rank_a = [x for r in results for x in r["rank_a"]]
    rank_b = [x for r in results for x in r["rank_b"]]
    decisions = {name: sum(r["decisions"][name] for r in results) for name in (a, b)}
    time_ms = {name: sum(r["time_ms"][name] for r in results) for name in (a, b)}
    return {
        "a": a, "b": b, "games": sum(len(r["scores"]) for r in results), "seeds": len(per_seed),
        "first_seed": first_seed,
        "win_rate_a": win, "ci95": ci, "avg_rank_a": sum(rank_a) / max(len(rank_a), 1),
        "avg_rank_b": sum(rank_b) / max(len(rank_b), 1),
        "failures": sum(r["failures"] for r in results), "void": sum(r["void"] for r in results),
        "ms_per_decision": {n: time_ms[n] / max(decisions[n], 1) for n in (a, b)},
        "wall_seconds": time.perf_counter() - started,
    }


def pool_runs(runs: list[dict]) -> dict:
    """One pair's runs on disjoint seed ranges, pooled: seed-weighted mean, stratified standard error."""
    pairs = {(r["a"], r["b"]) for r in runs}
    if len(pairs) != 1:
        raise SystemExit(f"--pool wants runs of one pair, got {sorted(pairs)}")
    spans = sorted((r["first_seed"], r["first_seed"] + r["seeds"]) for r in runs)
    if any(end > start for (_, end), (start, _) in zip(spans, spans[1:])):
        raise SystemExit(f"--pool wants disjoint seed ranges, got {spans}")
    seeds = sum(r["seeds"] for r in runs)
    win = sum(r["win_rate_a"] * r["seeds"] for r in runs) / seeds
    se = math.sqrt(sum((r["seeds"] * r["ci95"] / 1.96) ** 2 for r in runs)) / seeds
    games = sum(r["games"] for r in runs)

    def weighted(key: str) -> float:
        return sum(r[key] * r["games"] for r in runs) / games

    a, b = runs[0]["a"], runs[0]["b"]
    return {"a": a, "b": b, "games": games, "seeds": seeds, "first_seed": spans[0][0], "win_rate_a": win,
            "ci95": 1.96 * se, "avg_rank_a": weighted("avg_rank_a"), "avg_rank_b": weighted("avg_rank_b"),
            "failures": sum(r["failures"] for r in runs), "void": sum(r["void"] for r in runs),
            "ms_per_decision": {n: sum(r["ms_per_decision"][n] * r["games"] for r in runs) / games for n in (a, b)},
            "wall_seconds": sum(r["wall_seconds"] for r in runs), "pooled_from": len(runs)}


def report(r: dict) -> None:
    a, b = r["a"], r["b"]
    print(f"{a:>7} vs {b:<7} games {r['games']:5d}  {a} wins {100 * r['win_rate_a']:5.1f}% "
          f"± {100 * r['ci95']:.1f}  avg rank {a} {r['avg_rank_a']:.2f} {b} {r['avg_rank_b']:.2f}  "
          f"ms/decision {a} {r['ms_per_decision'][a]:.2f} {b} {r['ms_per_decision'][b]:.2f}  "
          f"failures {r['failures']} void {r['void']}  {r['wall_seconds']:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games per pair (two per deck seed)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--pairs", default="random:greedy,greedy:trader,trader:search")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--out", help="write the results as JSON to this file")
    parser.add_argument("--pool", nargs="+", metavar="JSON", help="pool earlier runs of one pair (plays nothing)")
    args = parser.parse_args()
    if args.pool:
        pooled = pool_runs([r for f in args.pool for r in json.loads(Path(f).read_text(encoding="utf-8"))])
        report(pooled)
        if args.out:
            Path(args.out).write_text(json.dumps([pooled], indent=2) + "\n", encoding="utf-8")
        return
    print(f"machine: {platform.machine()} {platform.system()} {platform.release()}, "
          f"python {platform.python_version()}, {os.cpu_count()} cpus, {args.workers} workers", flush=True)
    results = []
    for pair in args.pairs.split(","):
        a, b = pair.split(":")
        r = run_pair(a, b, args.games, args.workers, args.first_seed)
        results.append(r)
        report(r)
        if args.out:
            Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
