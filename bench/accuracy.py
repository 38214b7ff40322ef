"""Ladder accuracy: how many games a season needs before its order matches the bots' true order.

    python3 bench/accuracy.py --quick            # a few minutes: smoke figures
    python3 bench/accuracy.py                    # full mode (see docs/benchmarks.md "Ladder accuracy")
    python3 bench/accuracy.py --tune             # also the beta / tau / draw-prior grid
    python3 bench/accuracy.py --set FOCUS=3      # a matchmaking constant changed for this run (--lag N too)

The field: the example bots plus "epsilon copies" that answer a decision with a uniformly random
legal option (``request.options``) with probability epsilon and otherwise like their base bot:
trader and greedy at several epsilons, and the random bot. They are driven in-process through their
SDK decision methods on typed ``sandbox.sdk.Request`` objects built straight from the engine state
(no JSON, no sandbox), as in ``bench/engine.py``. The trader's two pure helpers ``field_worth`` and
``position_value`` are memoized in this process only (same results, about 3x faster).

Ground truth (``truth``): a long round robin of uniformly random tables (3-5 seats, random bots,
random seats, its own deal seeds) over every candidate. A bot's strength is its mean *table score*,
the share of its table opponents it finished above (a tie counts half): the expected result against
a uniformly random table. Neighbours in that order whose difference is not significant (bootstrap
over games, z < 2) are not separable: going down the order, a bot is kept only when it is
significantly weaker than the last bot kept, so the true order of the field that remains is well
defined. ``--truth FILE`` reuses the ground truth of an earlier run (its JSON ``--out``).

Schedulers, each simulated with the project's ``arena.ratings.RatingBook`` from fresh ratings:

- ``uniform``: uniformly random tables (size uniform in 3-5, bots a uniform sample);
- ``matchmaker``: ``arena.matchmaking.Matchmaker`` (size and table from the current ratings and the
  number of games each bot has played, as ``arena.ladder.Planner`` does);
- ``rotated``: the matchmaker's tables, each played as seat-rotated deals: one deck seed, one game
  per rotation of the seating (``Planner.plan`` with ``rotate=True``).

After every rated game the ladder order (by the leaderboard score mu - 3 sigma, and by mu) is
compared with the true order by Kendall's tau; a season "needs" the number of games after which tau
stays >= 0.9 up to the horizon (censored, ">horizon", if it is below 0.9 at the horizon). Median over
seeds.

Game outcomes are shared between seasons, never inside one: the k-th time a season seats the set of
bots C, it plays deal (C, k): seating and deck seed drawn from a generator seeded by (C, k). Within a
season every game is a fresh deal, so each season is an exact sample of a season; different seasons
(seeds, schedulers, parameter sets) reuse the same deals, which saves most of the simulation (a
rotated table's first seating is the plain deal (C, k) itself). Outcomes are deterministic functions
of (seating, deck seed), so the optional cache file (sqlite, ``--cache``) only saves time.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import sqlite3
import statistics
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import arena.ratings as ratings  # noqa: E402
from arena.matchmaking import Candidate, Matchmaker  # noqa: E402
from arena.ratings import RatingBook  # noqa: E402
from engine import classic_rules, new_game  # noqa: E402
from engine.errors import IllegalAction  # noqa: E402
from engine.defaults import default_action  # noqa: E402
from sandbox.sdk import Request  # noqa: E402

import common  # noqa: E402

MIN_PLAYERS, MAX_PLAYERS = 3, 5
THRESHOLD = 0.9
#: tables planned ahead of the results (arena.ladder keeps 2 per worker in flight, 2 workers)
LAG = 3
#: candidates, strongest expected first: (name, bot file stem, epsilon)
CANDIDATES: tuple[tuple[str, str, float], ...] = tuple(
    [(f"trader-e{round(100 * e):02d}" if e else "trader", "trader", e)
     for e in (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8)]
    + [(f"greedy-e{round(100 * e):02d}" if e else "greedy", "greedy", e) for e in (0.0, 0.1, 0.2, 0.35, 0.5, 0.75)]
    + [("random", "random", 0.0)]
)
DEFAULT_TRUTH = ROOT / "bench" / "results" / "accuracy-truth.json"
SPEC = {name: (stem, eps) for name, stem, eps in CANDIDATES}


# ----------------------------------------------------------------- bots, in-process
bot_class = common.bot_class


class Player:
    """A base bot that takes a uniformly random legal option with probability ``eps``."""

    def __init__(self, name: str, rules, seat: int, players: int, seed: int) -> None:
        stem, self.eps = SPEC[name]
        self.bot = bot_class(stem)()
        self.bot.rules, self.bot.seat, self.bot.players = rules, seat, players
        self.bot.rng = random.Random(seed)
        self.rng = random.Random(seed ^ 0x5EED)

    def decide(self, request: Request):
        if self.eps and self.rng.random() < self.eps:
            return self.rng.choice(request.options)
        return getattr(self.bot, request.kind.value)(request)


RULES = None
ILLEGAL = 0


def play(seating: Sequence[str], seed: int) -> tuple[int, ...]:
    """Ranks (1 = best, ties shared) of one classic game: ``seating`` names by seat, deck ``seed``."""
    global RULES, ILLEGAL
    rules = RULES = RULES or classic_rules()
    n = len(seating)
    game = new_game(rules, n, seed)
    players = [Player(name, rules, seat, n, (seed * 7919 + seat * 104729) & (2**63 - 1))
               for seat, name in enumerate(seating)]
    forfeited: set[int] = set()
    number = 0
    while not game.over:
        d = common.decision_of(game)
        if d.seat in forfeited:
            game.apply(default_action(game))
            continue
        action = players[d.seat].decide(Request(number, d.kind, game.view(d.seat), (), d.options, 1000.0))
        number += 1
        try:
            game.apply(action)
        except IllegalAction:  # never seen; counted and reported (the seat then plays the forfeit policy)
            ILLEGAL += 1
            forfeited.add(d.seat)
            game.apply(default_action(game))
    return tuple(common.result_of(game).ranks)


# ----------------------------------------------------------------- the shared outcome store
class Games:
    """Outcomes by (seating, seed): a process-local dict over an optional sqlite file shared by workers."""

    def __init__(self, path: str | None) -> None:
        self.local: dict[str, tuple[int, ...]] = {}
        self.db = None
        self.played = 0
        if path:
            self.db = sqlite3.connect(path, timeout=120)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("CREATE TABLE IF NOT EXISTS games (key TEXT PRIMARY KEY, ranks TEXT NOT NULL)")
            self.db.commit()
            for key, ranks in self.db.execute("SELECT key, ranks FROM games"):
                self.local[key] = tuple(int(r) for r in ranks.split(","))

    def ranks(self, seating: Sequence[str], seed: int) -> tuple[int, ...]:
        key = f"{seed}:{','.join(seating)}"
        got = self.local.get(key)
        if got is None and self.db is not None:
            row = self.db.execute("SELECT ranks FROM games WHERE key = ?", (key,)).fetchone()
            got = tuple(int(r) for r in row[0].split(",")) if row else None
        if got is None:
            got = play(seating, seed)
            self.played += 1
            if self.db is not None:
                self.db.execute("INSERT OR IGNORE INTO games VALUES (?, ?)", (key, ",".join(map(str, got))))
                self.db.commit()
        self.local[key] = got
        return got


GAMES: Games | None = None


def games_store() -> Games:
    """This process's outcome store (``_init`` makes it in every worker)."""
    assert GAMES is not None, "the outcome store is made by _init"
    return GAMES


def _init(cache: str | None) -> None:
    global GAMES
    os.nice(15) if os.nice(0) < 15 else None
    GAMES = Games(cache)


def deal(names: Sequence[str], k: int, tag: str = "deal") -> tuple[list[str], int]:
    """The k-th deal of the bot set ``names``: a uniformly random seating and a deck seed."""
    rng = random.Random(f"{tag}/{','.join(sorted(names))}/{k}")
    seating = sorted(names)
    rng.shuffle(seating)
    return seating, rng.getrandbits(63)


# ----------------------------------------------------------------- ground truth
def truth_chunk(task: tuple[list[str], int, int]) -> list[tuple[list[str], tuple[int, ...]]]:
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


# ----------------------------------------------------------------- seasons
@dataclass(frozen=True)
class Params:
    beta: float = ratings.BETA
    tau: float = ratings.TAU
    draw_ties: float = ratings.DRAW_PRIOR_TIES
    draw_pairs: float = ratings.DRAW_PRIOR_PAIRS

    def label(self) -> str:
        return f"beta={self.beta:.3g} tau={self.tau:.3g} draw prior={self.draw_ties:g}/{self.draw_pairs:g}"


def apply_params(p: Params) -> None:
    ratings.BETA, ratings.TAU = p.beta, p.tau
    ratings.DRAW_PRIOR_TIES, ratings.DRAW_PRIOR_PAIRS = p.draw_ties, p.draw_pairs


def kendall(order: list[str], value: dict[str, float]) -> float:
    """Kendall's tau-a between the true order (strongest first) and the ladder's values."""
    n = len(order)
    s = 0
    for i in range(n):
        vi = value[order[i]]
        for j in range(i + 1, n):
            vj = value[order[j]]
            s += 1 if vi > vj else -1 if vi < vj else 0
    return s / (n * (n - 1) / 2)


def season(task: tuple[str, int, Params, list[str], int]) -> dict:
    """One season of ``horizon`` games: the last game after which tau < 0.9 (by score and by mu).

    Tables are planned ``LAG`` tables ahead of the results, as ``arena.ladder.run_season`` keeps
    2 tables per worker in flight (4 with 2 workers): a table is chosen while the 3 before it are
    still being played, so the ratings it sees are that much behind and the bots' planned seats
    count as scheduled.
    """
    scheduler, seed, params, order, horizon = task
    apply_params(params)
    fresh = games_store().played
    rng = random.Random(f"season/{scheduler}/{seed}")
    maker = Matchmaker(random.Random(f"tables/{scheduler}/{seed}"))
    book = RatingBook({})
    ids = {name: i for i, name in enumerate(order)}  # the rating book and the matchmaker know bots by int ids
    registered = rng.sample(order, len(order))  # candidates in "registration" order, unrelated to strength
    seen: dict[frozenset, int] = {}
    pending: deque[list[tuple[list[str], int]]] = deque()  # planned tables: their (seating, deck) games
    pending_seats: Counter[str] = Counter()
    played = 0
    last_bad = {"score": 0, "mu": 0}
    trace: dict[str, list[float]] = {"score": [], "mu": []}  # tau at every 50th game
    marks = set(range(50, horizon + 1, 50))
    while played < horizon:
        while len(pending) <= LAG:
            if scheduler == "uniform":
                names = rng.sample(order, rng.randint(MIN_PLAYERS, MAX_PLAYERS))
            else:
                candidates = [Candidate(ids[v], book.get(ids[v]), book.get(ids[v]).games + pending_seats[v])
                              for v in registered]
                names = [order[i] for i in maker.table(candidates, maker.size(MIN_PLAYERS, MAX_PLAYERS, len(order)))]
            key = frozenset(names)
            k = seen.get(key, 0)
            seen[key] = k + 1
            seating, deck = deal(names, k)
            seatings = ([seating[r:] + seating[:r] for r in range(len(seating))] if scheduler == "rotated"
                        else [seating])
            pending.append([(s, deck) for s in seatings])
            pending_seats.update(names * len(seatings))
        for s, deck in pending.popleft()[: horizon - played]:
            book.record([ids[name] for name in s], games_store().ranks(s, deck))
            pending_seats.subtract(s)
            played += 1
            for how in ("score", "mu"):
                value = {v: (book.get(ids[v]).score if how == "score" else book.get(ids[v]).mu) for v in order}
                tau = kendall(order, value)
                if tau < THRESHOLD:
                    last_bad[how] = played
                if played in marks:
                    trace[how].append(tau)
    done = {how: (last_bad[how] if last_bad[how] < horizon else None) for how in last_bad}
    return {"scheduler": scheduler, "seed": seed, "params": params.__dict__, "needed": done, "trace": trace,
            "played_fresh": games_store().played - fresh, "illegal": ILLEGAL}


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


def run_seasons(pool, schedulers: list[str], seeds: int, params: Params, order: list[str], horizon: int,
                first_seed: int = 0) -> dict[str, list[dict]]:
    tasks = [(s, first_seed + k, params, order, horizon) for k in range(seeds) for s in schedulers]
    out: dict[str, list[dict]] = {s: [] for s in schedulers}
    for r in pool.imap_unordered(season, tasks, chunksize=1):
        out[r["scheduler"]].append(r)
    return out


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


def set_constants(assignments: list[str], lag: int) -> None:
    """Apply ``--set NAME=VALUE`` to ``arena.matchmaking`` and ``--lag`` here; unknown names stop the run."""
    import arena.matchmaking as matchmaking

    global LAG
    LAG = lag
    for item in assignments:
        name, _, value = item.partition("=")
        current = getattr(matchmaking, name, None)
        if not isinstance(current, (int, float)) or not value:
            raise SystemExit(f"--set {item!r}: arena.matchmaking has no numeric constant {name!r}")
        setattr(matchmaking, name, type(current)(float(value)) if isinstance(current, float) else int(value))
        print(f"arena.matchmaking.{name} = {getattr(matchmaking, name)!r} for this run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="small run: the committed ground truth, 20 seeds, horizon 400")
    parser.add_argument("--truth-games", type=int, default=5000)
    parser.add_argument("--truth", help="reuse the ground truth of an earlier run (its --out JSON)")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--horizon", type=int, default=2000, help="games per simulated season")
    parser.add_argument("--schedulers", default="uniform,matchmaker,rotated")
    parser.add_argument("--tune", action="store_true", help="grid on beta, tau and the draw prior (best scheduler)")
    parser.add_argument("--tune-scheduler", default=None, help="scheduler of the grid (default: the best one)")
    parser.add_argument("--tune-seeds", type=int, default=None)
    parser.add_argument("--tune-horizon", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", default=None, help="sqlite file of played games, shared by runs (saves time)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="override an arena.matchmaking constant for this run (FOCUS=3, TRIES=8, ...)")
    parser.add_argument("--lag", type=int, default=LAG, help="tables planned ahead of the results")
    parser.add_argument("--out", help="write the results as JSON to this file")
    args = parser.parse_args()
    if args.quick:  # the committed ground truth when there is one, short seasons
        args.horizon, args.seeds = 400, 20
        if args.truth is None and DEFAULT_TRUTH.exists():
            args.truth = str(DEFAULT_TRUTH)
        args.truth_games = min(args.truth_games, 600)
    started = time.perf_counter()
    print(f"machine: {platform.machine()} {platform.system()} {platform.release()}, python "
          f"{platform.python_version()}, {os.cpu_count()} cpus, {args.workers} workers (nice 15)", flush=True)
    _init(args.cache)
    set_constants(args.set, args.lag)  # before the fork: the workers inherit them
    pool = get_context("fork").Pool(args.workers, initializer=_init, initargs=(args.cache,))
    report: dict = {"args": vars(args)}
    names = [n for n, _, _ in CANDIDATES]
    if args.truth:
        truth = json.loads(Path(args.truth).read_text(encoding="utf-8"))["truth"]
        print(f"ground truth from {args.truth}")
    else:
        chunk = 50
        tasks = [(names, g, min(chunk, args.truth_games - g)) for g in range(0, args.truth_games, chunk)]
        truth = ground_truth([g for part in pool.imap(truth_chunk, tasks) for g in part], names)
    report["truth"] = truth
    print(f"ground truth: {truth['games']} games of uniformly random 3-5 seat tables; tie rate between "
          f"neighbours in a finishing order {truth['tie_rate']:.3f}  ({time.perf_counter() - started:.0f} s)")
    for row in truth["neighbours"]:
        print(f"  {row['stronger']:>11s} > {row['weaker']:<11s} mean table score "
              f"{truth['mean_score'][row['stronger']]:.3f} vs {truth['mean_score'][row['weaker']]:.3f}  "
              f"diff {row['diff']:+.3f} ± {1.96 * row['se']:.3f}  z {row['z']:.1f}")
    order = truth["order"]
    print(f"true order ({len(order)} bots): {' > '.join(order)}; dropped: {', '.join(truth['dropped']) or 'none'}",
          flush=True)
    if args.seeds == 0:
        pool.close()
        if args.out:
            Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        return
    schedulers = args.schedulers.split(",")
    results = run_seasons(pool, schedulers, args.seeds, Params(), order, args.horizon)
    report["seasons"] = {}
    for how in ("score", "mu"):
        table = summarize(results, args.horizon, how)
        report["seasons"][how] = table
        print_summary(f"games until Kendall tau >= {THRESHOLD} for good, ladder order by "
                      f"{'mu - 3 sigma' if how == 'score' else 'mu'}, {args.seeds} seeds, horizon {args.horizon}, "
                      f"{Params().label()}  ({time.perf_counter() - started:.0f} s)", table, args.horizon)
        report.setdefault("ratio_to_uniform", {})[how] = print_ratios(results, args.horizon, how)
    fresh = sum(r["played_fresh"] for rows in results.values() for r in rows)
    print(f"illegal actions: {max(r['illegal'] for rows in results.values() for r in rows)}", flush=True)
    if args.tune:
        best = args.tune_scheduler or min(
            (s for s in schedulers if s != "uniform"), key=lambda s: report["seasons"]["score"][s]["median_value"])
        seeds = args.tune_seeds or args.seeds
        horizon = args.tune_horizon or args.horizon
        base = Params()
        grid = [Params(beta=b, tau=t * base.tau) for b in (base.beta / 2, 3.0, base.beta, 5.5, 2 * base.beta)
                for t in (0.0, 1.0)]
        grid += [Params(tau=t) for t in (0.01, 0.025)]
        grid += [Params(draw_ties=d, draw_pairs=20.0) for d in (0.0, 5.0)]
        report["tuning"] = {"scheduler": best, "rows": []}
        print(f"tuning on {best}: {seeds} seeds (others than above), horizon {horizon}", flush=True)
        for p in grid:
            table = summarize(run_seasons(pool, [best], seeds, p, order, horizon, first_seed=1000), horizon, "score")
            row = table[best]
            report["tuning"]["rows"].append({"params": p.__dict__, **{k: row[k] for k in
                                             ("median", "quartiles", "censored", "mean_tau_at")}})
            print(f"  {p.label():45s} median {row['median']:>6s}  quartiles {row['quartiles']:>11s}  "
                  f"censored {row['censored']}/{row['seeds']}  "
                  f"tau@250 {row['mean_tau_at'].get('250', float('nan')):.3f}"
                  f"  ({time.perf_counter() - started:.0f} s)", flush=True)
        rows = report["tuning"]["rows"]
        best_row = min(rows, key=lambda r: math.inf if r["median"].startswith(">") else float(r["median"]))
        chosen = Params(**best_row["params"])
        best_results = run_seasons(pool, ["uniform", best], seeds, chosen, order, horizon, first_seed=1000)
        table = summarize(best_results, horizon, "score")
        report["tuning"]["best"] = {"params": chosen.__dict__, **{s: {k: table[s][k] for k in
                                    ("median", "quartiles", "censored", "mean_tau_at")} for s in table}}
        print_summary(f"best of the grid, {chosen.label()}, against uniform tables with the same parameters",
                      table, horizon)
        report["tuning"]["best"]["ratio_to_uniform"] = print_ratios(best_results, horizon, "score")
    pool.close()
    pool.join()
    report["seconds"] = time.perf_counter() - started
    print(f"done in {report['seconds']:.0f} s wall ({fresh} games played fresh by the seasons)")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
