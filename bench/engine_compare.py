"""Engine speed of two checkouts in the same run: random-policy games/s of an old tree's engine and this one's.

    python3 bench/engine_compare.py --old /work/wt-engine-old [--games N] [--rounds R] [--variant classic]

Each side plays the same seeds in a subprocess of its own (``PYTHONPATH`` and working directory: its tree);
the sides alternate, round after round, so that a drift in the machine's pace touches both alike. Prints
every round's games/s by the wall clock and by the process's CPU time (steadier on a shared machine), then
the median of each side, their ratio new/old and the median of the rounds' ratios. ``--variant duel`` or ``solo``
measures the Princes games (2 and 1 players) the same way; ``--engine-only`` leaves the policy out of the
timing (its moves are played first, then replayed: each decision asked for, each move applied).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import common  # noqa: E402

HERE = Path(__file__).resolve().parent.parent
PLAYERS = {"classic": 4, "duel": 2, "solo": 1}

# What a side runs: the random policy of its own tree on its own engine (bench/engine.py's loop).
CHILD = """
import json, random, sys, time
import engine
from engine import new_game, rules_for
from strategy.policies import random_action
variant, players, games, engine_only = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
rules = rules_for(variant)
played = []
if engine_only:  # the policy's moves first, untimed; then only the engine: each decision asked for, each move applied
    for seed in range(games):
        game = new_game(rules, players, seed)
        rng = random.Random(seed)
        moves = []
        while not game.over:
            moves.append(random_action(game, rng))
            game.apply(moves[-1])
        played.append(moves)
decisions = 0
started, cpu = time.perf_counter(), time.process_time()
for seed in range(games):
    game = new_game(rules, players, seed)
    if engine_only:
        for move in played[seed]:
            game.decision
            game.apply(move)
        decisions += len(played[seed])
        continue
    rng = random.Random(seed)
    while not game.over:
        game.apply(random_action(game, rng))
        decisions += 1
elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
print(json.dumps({"rate": games / elapsed, "cpu_rate": games / cpu, "decisions": decisions, "engine": engine.__file__}))
"""


def measure(tree: Path, variant: str, games: int, engine_only: bool) -> dict:
    """One run of ``games`` games on the engine of ``tree``, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    argv = [sys.executable, "-c", CHILD, variant, str(PLAYERS[variant]), str(games), str(int(engine_only))]
    out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=True, timeout=3600)
    figures: dict = json.loads(out.stdout)
    engine_file = Path(figures["engine"]).resolve()
    assert engine_file.is_relative_to(tree.resolve()), f"{tree} ran the engine of {engine_file}"
    return figures


def main() -> None:
    parser = common.parser(__doc__, 300)
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (a git worktree)")
    parser.add_argument("--new", type=Path, default=HERE, help="the checkout to compare (default: this one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variant", choices=sorted(PLAYERS), default="classic")
    parser.add_argument("--engine-only", action="store_true",
                        help="time only the engine: replay the policy's moves, asking for each decision")
    args = parser.parse_args()
    print(common.machine(f"{os.cpu_count()} cpus"))
    what = "random policy" + (" (engine only)" if args.engine_only else "")
    print(f"# {args.variant} {PLAYERS[args.variant]}p, {what}, {args.games} games (seeds 0..{args.games - 1})"
          f" per side per round, {args.rounds} rounds, old={args.old} new={args.new}")
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for side in ("old", "new") if r % 2 == 0 else ("new", "old"):  # alternate who goes first
            runs[side].append(measure(getattr(args, side), args.variant, args.games, args.engine_only))
        old, new = runs["old"][-1], runs["new"][-1]
        print(f"round {r + 1}: wall games/s old {old['rate']:7.1f} new {new['rate']:7.1f} ratio "
              f"{new['rate'] / old['rate']:5.2f} | CPU games/s old {old['cpu_rate']:7.1f} new {new['cpu_rate']:7.1f} "
              f"ratio {new['cpu_rate'] / old['cpu_rate']:5.2f}", flush=True)
    for key, name in (("rate", "wall"), ("cpu_rate", "CPU")):
        old_m, new_m = (statistics.median(f[key] for f in runs[side]) for side in ("old", "new"))
        ratio = statistics.median(n[key] / o[key] for o, n in zip(runs["old"], runs["new"]))
        print(f"median {name:4s}: old {old_m:7.1f} games/s  new {new_m:7.1f} games/s  ratio of medians "
              f"{new_m / old_m:5.2f}  median of round ratios {ratio:5.2f}")
    old_d, new_d = runs["old"][0]["decisions"], runs["new"][0]["decisions"]
    print(f"decisions/game: {new_d / args.games:.1f} ({'the same' if old_d == new_d else 'DIFFERENT'} on both sides)")

if __name__ == "__main__":
    main()
