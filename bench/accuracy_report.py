"""The figures bench/accuracy.py prints and writes: games needed by scheduler, medians, their ratios."""
from __future__ import annotations

import math
import random
import statistics


def median_needed(values: list[int | None], horizon: int) -> str:
    """Median with censored seasons (None) counted as larger than the horizon."""
    ranked = sorted(values, key=lambda v: math.inf if v is None else v)
    n = len(ranked)
    lo, hi = ranked[(n - 1) // 2], ranked[n // 2]
    if lo is None or hi is None:
        return f">{horizon}"
    return f"{(lo + hi) / 2:g}"


def quartiles(values: list[int | None], horizon: int) -> str:
    ranked = sorted(math.inf if v is None else v for v in values)
    q = [ranked[int(round(p * (len(ranked) - 1)))] for p in (0.25, 0.75)]
    return "-".join(f">{horizon}" if math.isinf(x) else f"{x:g}" for x in q)



def summarize(results: dict[str, list[dict]], horizon: int, how: str) -> dict[str, dict]:
    table = {}
    for scheduler, rows in results.items():
        needed = [r["needed"][how] for r in rows]
        finite = [v for v in needed if v is not None]
        traces = [r["trace"][how] for r in rows]
        table[scheduler] = {
            "median": median_needed(needed, horizon), "quartiles": quartiles(needed, horizon),
            "censored": sum(v is None for v in needed), "seeds": len(needed),
            "median_value": (statistics.median(math.inf if v is None else v for v in needed)),
            "mean_tau_at": {str(50 * (i + 1)): statistics.mean(t[i] for t in traces) for i in range(len(traces[0]))},
            "finite": finite,
        }
    return table


def median_ratio(slow: list[int | None], fast: list[int | None], horizon: int,
                 resamples: int = 2000) -> tuple[float, float, float]:
    """median(slow) / median(fast) and a 95 % bootstrap interval (seasons resampled within each
    scheduler; a censored season counts as horizon + 1)."""
    a = [horizon + 1 if v is None else v for v in slow]
    b = [horizon + 1 if v is None else v for v in fast]
    rng = random.Random(0)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b)))
                    for _ in range(resamples))
    return (statistics.median(a) / statistics.median(b), ratios[int(0.025 * resamples)],
            ratios[int(0.975 * resamples) - 1])


def print_ratios(results: dict[str, list[dict]], horizon: int, how: str) -> dict[str, list[float]]:
    """How many times fewer games than uniform tables each other scheduler needs."""
    out: dict[str, list[float]] = {}
    if "uniform" not in results:
        return out
    uniform = [r["needed"][how] for r in results["uniform"]]
    for scheduler, rows in results.items():
        if scheduler != "uniform":
            ratio, low, high = median_ratio(uniform, [r["needed"][how] for r in rows], horizon)
            out[scheduler] = [ratio, low, high]
            print(f"  uniform / {scheduler}: {ratio:.2f}x fewer games (95 % bootstrap interval {low:.2f}-{high:.2f})")
    return out


def print_summary(title: str, table: dict[str, dict], horizon: int) -> None:
    print(title)
    cols = [c for c in ("250", "500", "1000", "2000", "3000") if int(c) <= horizon]
    print(f"  {'scheduler':11s} {'median games':>12s} {'quartiles':>13s} {'censored':>8s}  "
          + " ".join(f"tau@{c:>4s}" for c in cols))
    for scheduler, row in table.items():
        print(f"  {scheduler:11s} {row['median']:>12s} {row['quartiles']:>13s} "
              f"{row['censored']:>4d}/{row['seeds']:<3d}  "
              + " ".join(f"{row['mean_tau_at'].get(c, float('nan')):8.3f}" for c in cols), flush=True)
