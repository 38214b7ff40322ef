"""A bot's start and close from the fork servers, each timed on its own (issue 28: start + close ≤ 10 ms a bot).

    python3 bench/lifecycle.py [--games N] [--against OLD_CHECKOUT] [--rounds N]

One worker plays N classic 4-player games one after another in the strong tier with fork servers, as a
season's worker does (bots/random_bot.py, bots/greedy_bot.py, twice each, a fresh process each every
game); it times every bot's start (``SandboxPlayer(...)``: fork, confinement, the bot's import, ``ready``)
and every bot's close (``close()``: until the process is known gone and its fork server free again) and
prints the medians over the warm games (the fork servers already running) and the means including the
first game (which starts the four fork servers).

With ``--against``, runs that measurement in fresh processes, alternately with the code of the checkout
``OLD_CHECKOUT`` (e.g. a git worktree of an older commit) and this one, ``--rounds`` times each, and
prints the median of each figure over the rounds, old against new.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = Path(os.environ.get("LIFECYCLE_ROOT", str(HERE.parent.parent)))
sys.path.insert(0, str(ROOT))

import common  # noqa: E402

FIGURES = ("start_median", "close_median", "both_median", "start_mean", "close_mean", "table_start_median",
           "table_close_median")


def measure(games: int) -> dict[str, float]:
    """Play ``games`` games on one worker, timing each bot's start and close; the figures in ms."""
    from arena.play.players import SandboxPlayer
    from arena.play.referee import play_game
    from engine import classic_rules
    from sandbox import Limits, Tier, detect_tier

    tier = detect_tier()
    if tier is not Tier.STRONG:
        raise SystemExit(f"the strong tier is needed (this machine: {tier.value})")
    limits, rules = Limits(), classic_rules()
    sources = [(common.BOTS / f"{stem}.py").read_text() for stem in ("random_bot", "greedy_bot") * 2]
    starts: list[list[float]] = []  # per game, per bot
    closes: list[list[float]] = []
    tables: list[tuple[float, float]] = []
    for seed in range(games):
        players, started = [], []
        table = time.perf_counter()
        for i, source in enumerate(sources):
            t = time.perf_counter()
            players.append(SandboxPlayer(f"b{i}", source, limits, tier))
            started.append((time.perf_counter() - t) * 1000)
        table_started = (time.perf_counter() - table) * 1000
        record = play_game(rules, seed, players, limits)
        bad = [seat.status.value for seat in record.seats if seat.status.value != "ok"]
        if bad:
            raise SystemExit(f"game {seed}: a bot failed ({bad}): the figures would not be a bot's start and close")
        closed = []
        table = time.perf_counter()
        for player in players:
            t = time.perf_counter()
            player.close()
            closed.append((time.perf_counter() - t) * 1000)
        tables.append((table_started, (time.perf_counter() - table) * 1000))
        starts.append(started)
        closes.append(closed)
    warm_starts = [ms for game in starts[1:] for ms in game]
    warm_closes = [ms for game in closes[1:] for ms in game]
    return {
        "start_median": statistics.median(warm_starts),
        "close_median": statistics.median(warm_closes),
        "both_median": statistics.median(s + c for s, c in zip(warm_starts, warm_closes)),
        "start_mean": statistics.fmean(ms for game in starts for ms in game),
        "close_mean": statistics.fmean(ms for game in closes for ms in game),
        "table_start_median": statistics.median(s for s, _ in tables[1:]),
        "table_close_median": statistics.median(c for _, c in tables[1:]),
    }


def report(label: str, f: dict[str, float], games: int) -> None:
    print(f"{label}start a bot: median {f['start_median']:.2f} ms, close a bot: median {f['close_median']:.2f} ms, "
          f"start+close a bot: {f['both_median']:.2f} ms (target ≤ 10); warm games {games - 1}, 4 bots each; "
          f"means with the first game (it starts the fork servers): start {f['start_mean']:.2f}, "
          f"close {f['close_mean']:.2f}; a table's 4 bots: start {f['table_start_median']:.1f}, "
          f"close {f['table_close_median']:.1f}", flush=True)


def compare(old: Path, games: int, rounds: int) -> None:
    """Fresh processes, old and new code alternately; the median of each figure over the rounds."""
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for r in range(rounds):
        for label, root in (("old", old), ("new", ROOT)) if r % 2 == 0 else (("new", ROOT), ("old", old)):
            env = dict(os.environ, PYTHONPATH=str(root), LIFECYCLE_ROOT=str(root))
            out = subprocess.run([sys.executable, str(HERE), "--games", str(games), "--json"], env=env,
                                 capture_output=True, text=True, check=True).stdout
            figures = json.loads(out.strip().splitlines()[-1])
            runs[label].append(figures)
            report(f"round {r + 1} {label}: ", figures, games)
    for label in ("old", "new"):
        medians = {k: statistics.median(run[k] for run in runs[label]) for k in FIGURES}
        report(f"median of {rounds} rounds, {label} ({old if label == 'old' else ROOT}): ", medians, games)


def main() -> None:
    parser = common.parser(__doc__, 30)
    parser.add_argument("--against", type=Path, help="a checkout of older code, measured alternately with this one")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = parser.parse_args()
    if args.games < 2:
        raise SystemExit("--games must be at least 2 (the first game starts the fork servers)")
    if args.against is not None:
        print(common.machine("strong tier, fork servers", f"{args.games} games a run, {args.rounds} rounds"),
              flush=True)
        compare(args.against.resolve(), args.games, args.rounds)
        return
    figures = measure(args.games)
    if args.json:
        print(json.dumps(figures))
    else:
        print(common.machine("strong tier, fork servers", f"{args.games} games"), flush=True)
        report("", figures, args.games)


if __name__ == "__main__":
    main()
