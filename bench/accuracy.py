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

Schedulers, each simulated with the project's ``arena.ladder.ratings.RatingBook`` from fresh ratings:

- ``uniform``: uniformly random tables (size uniform in 3-5, bots a uniform sample);
- ``matchmaker``: ``arena.ladder.matchmaking.Matchmaker`` (size and table from the current ratings and the
  number of games each bot has played, as ``arena.ladder.seasons.Planner`` does);
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
import sys
import time
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import accuracy_seasons  # noqa: E402
from accuracy_games import CANDIDATES, init_worker  # noqa: E402
from accuracy_report import print_ratios, print_summary, summarize  # noqa: E402
from accuracy_seasons import THRESHOLD, Params, run_seasons  # noqa: E402
from accuracy_truth import ground_truth, truth_chunk  # noqa: E402

DEFAULT_TRUTH = ROOT / "bench" / "results" / "accuracy-truth.json"


def set_constants(assignments: list[str], lag: int) -> None:
    """Apply ``--set NAME=VALUE`` to ``arena.ladder.matchmaking`` and ``--lag`` to the seasons; unknown names
    stop the run."""
    import arena.ladder.matchmaking as matchmaking

    accuracy_seasons.LAG = lag
    for item in assignments:
        name, _, value = item.partition("=")
        current = getattr(matchmaking, name, None)
        if not isinstance(current, (int, float)) or not value:
            raise SystemExit(f"--set {item!r}: arena.ladder.matchmaking has no numeric constant {name!r}")
        setattr(matchmaking, name, type(current)(float(value)) if isinstance(current, float) else int(value))
        print(f"arena.ladder.matchmaking.{name} = {getattr(matchmaking, name)!r} for this run")


def tune(pool: Pool, args: argparse.Namespace, schedulers: list[str], order: list[str], report: dict,
         started: float) -> None:
    """The ``--tune`` grid on the best scheduler, then its best parameters against uniform tables, into ``report``."""
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
                        help="override an arena.ladder.matchmaking constant for this run (FOCUS=3, TRIES=8, ...)")
    parser.add_argument("--lag", type=int, default=accuracy_seasons.LAG, help="tables planned ahead of the results")
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
    init_worker(args.cache)
    set_constants(args.set, args.lag)  # before the fork: the workers inherit them
    pool = get_context("fork").Pool(args.workers, initializer=init_worker, initargs=(args.cache,))
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
        tune(pool, args, schedulers, order, report, started)
    pool.close()
    pool.join()
    report["seconds"] = time.perf_counter() - started
    print(f"done in {report['seconds']:.0f} s wall ({fresh} games played fresh by the seasons)")
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
