"""The search bot's inner loop in two checkouts, in the same run: guesses of the hidden cards, games built from
them and played out, per second, for an old tree and this one.

    python3 bench/search_compare.py --old /tmp/base-tree [--rounds R] [--positions N] [--samples S]

The search bot is held to a clock (``BUDGET_MS`` a decision), so its games take the same time on any code;
what changes is how many playouts fit in that time. This measures that directly, with no clock: the decisions
of random-policy classic games (4 players, seeds 0..N-1, every 9th supported one), each with ``S`` guesses
(``sample_hidden``), each guess built three times (``build_game``: the bot's common random numbers over three
candidates) and played out by ``rollout_action`` to the end; and, for the duel, one guess a decision
(``build_princes_game``) and the example policy on it (``princes_greedy_action``), what the example bots do.
Each side runs in a subprocess of its own (``PYTHONPATH`` and working directory: its tree); the sides alternate,
round after round. Prints each round's rates by the wall clock and by CPU time, the medians and ratios new/old,
and whether both sides computed the same scores (the same guesses, the same games).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import common  # noqa: E402

HERE = Path(__file__).resolve().parent.parent

CHILD = """
import hashlib, json, random, sys, time
import engine
from engine import DecisionKind, new_game, rules_for
from strategy.determinize import SUPPORTED_KINDS, build_game, build_princes_game, sample_hidden
from strategy.policies import playout, princes_greedy_action, random_action
positions, samples = int(sys.argv[1]), int(sys.argv[2])
rules = rules_for("classic")
cases = []  # (view, discard, treasuries, kind, seat), made untimed
for seed in range(positions):
    game = new_game(rules, 4, seed)
    rng = random.Random(seed)
    step = 0
    while not game.over:
        d = game.decision
        if d.kind in SUPPORTED_KINDS and step % 9 == 0 and (
                d.kind is not DecisionKind.TRADE_OFFER or (game.offer is None and not game.responses)):
            treasuries = [list(s.treasury) for s in game.seats]
            cases.append((game.view(d.seat), list(game.discard), treasuries, d.kind, d.seat))
        step += 1
        game.apply(random_action(game, rng))
duel = rules_for("duel")
views = []
for seed in range(positions):
    game = new_game(duel, 2, seed)
    rng = random.Random(seed)
    while not game.over:
        views.append(game.view(game.to_move))
        game.apply(random_action(game, rng))
digest = hashlib.sha1()
playouts = 0
started, cpu = time.perf_counter(), time.process_time()
for k, (view, discard, treasuries, kind, seat) in enumerate(cases):
    for s in range(samples):
        hidden = sample_hidden(rules, view, discard, treasuries, random.Random(k * 1000 + s))
        for _ in range(3):
            digest.update(str(playout(build_game(rules, view, hidden, kind, s), seat, None)).encode())
            playouts += 1
classic = time.perf_counter() - started, time.process_time() - cpu
started, cpu = time.perf_counter(), time.process_time()
for k, view in enumerate(views):
    rng = random.Random(k)
    digest.update(repr(princes_greedy_action(build_princes_game(duel, view, rng), rng)).encode())
princes = time.perf_counter() - started, time.process_time() - cpu
print(json.dumps({"playouts": playouts / classic[0], "cpu_playouts": playouts / classic[1],
                  "duel": len(views) / princes[0], "cpu_duel": len(views) / princes[1],
                  "digest": digest.hexdigest(), "engine": engine.__file__}))
"""
RATES = (("cpu_playouts", "classic playouts/s (CPU)"), ("playouts", "classic playouts/s (wall)"),
         ("cpu_duel", "duel guesses+moves/s (CPU)"), ("duel", "duel guesses+moves/s (wall)"))


def measure(tree: Path, positions: int, samples: int) -> dict:
    """One run on the code of ``tree``, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    argv = [sys.executable, "-c", CHILD, str(positions), str(samples)]
    out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=True, timeout=3600)
    figures: dict = json.loads(out.stdout)
    engine_file = Path(figures["engine"]).resolve()
    assert engine_file.is_relative_to(tree.resolve()), f"{tree} ran the engine of {engine_file}"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (a git worktree)")
    parser.add_argument("--new", type=Path, default=HERE, help="the checkout to compare (default: this one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--positions", type=int, default=6, help="random games whose decisions are searched")
    parser.add_argument("--samples", type=int, default=4, help="guesses a classic decision")
    args = parser.parse_args()
    print(common.machine(f"{os.cpu_count()} cpus"))
    print(f"# {args.positions} games' decisions, {args.samples} guesses each, {args.rounds} rounds, "
          f"old={args.old} new={args.new}")
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(args.rounds):
        for side in ("old", "new") if r % 2 == 0 else ("new", "old"):  # alternate who goes first
            runs[side].append(measure(getattr(args, side), args.positions, args.samples))
        old, new = runs["old"][-1], runs["new"][-1]
        print(f"round {r + 1}: " + " | ".join(f"{name} old {old[key]:8.1f} new {new[key]:8.1f} ratio "
                                              f"{new[key] / old[key]:5.2f}" for key, name in RATES[::2]), flush=True)
    for key, name in RATES:
        old_m, new_m = (statistics.median(f[key] for f in runs[side]) for side in ("old", "new"))
        ratio = statistics.median(n[key] / o[key] for o, n in zip(runs["old"], runs["new"]))
        print(f"median {name}: old {old_m:8.1f}  new {new_m:8.1f}  ratio of medians {new_m / old_m:5.2f}  "
              f"median of round ratios {ratio:5.2f}")
    same = {f["digest"] for f in runs["old"] + runs["new"]}
    print(f"scores and moves: {'the same' if len(same) == 1 else 'DIFFERENT'} on both sides")


if __name__ == "__main__":
    main()
