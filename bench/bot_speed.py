"""The example bots' own pace: CPU a 3-player classic game of each bot against two copies of itself, in-process
through the referee and the SDK (JSON round trips, no sandbox), on fixed deals and bot seeds.

    python3 bench/bot_speed.py [--games 6] [--bots random,greedy,trader] [--rounds 2] [--old /tmp/wt-old]

Each tree (this checkout and, with ``--old``, another) runs in a subprocess of its own (``PYTHONPATH``, working
folder and ``PYTHONHASHSEED=0``: the sandbox's), the trees in turn ``--rounds`` times: the VM's pace drifts. It
prints each run's ms of CPU a game and a digest of the games' replays: the same digest on both trees means the
bots made the same moves.
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

ROOT = Path(__file__).resolve().parent.parent

# What a tree runs: its referee, its SDK and its bots.
CHILD = """
import hashlib, json, sys, time
from pathlib import Path
from arena.play.players import InProcessPlayer
from arena.play.referee import play_game
from engine.rules import rules_for
bot, games = sys.argv[1], int(sys.argv[2])
digest, cpu = hashlib.sha256(), 0.0
for seed in range(games):
    seats = [InProcessPlayer(Path("bots") / f"{bot}_bot.py", f"{bot}{n}") for n in range(3)]
    start = time.process_time()
    record = play_game(rules_for("classic"), seed, seats, bot_seeds=[seed * 3 + n for n in range(3)])
    cpu += time.process_time() - start
    digest.update(record.replay_text.encode())
print(json.dumps({"ms": cpu / games * 1000, "digest": digest.hexdigest()[:12]}))
"""


def run(tree: Path, bot: str, games: int) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, bot, str(games)], cwd=tree, env=env, capture_output=True,
                         text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--bots", default="random,greedy,trader")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--old", type=Path, help="another checkout, run in turn with this one")
    args = parser.parse_args()
    print(common.machine(f"{args.games} 3-player classic games a bot, {args.rounds} rounds"), flush=True)
    trees = {"this checkout": ROOT} | ({f"--old {args.old}": args.old.resolve()} if args.old else {})
    for bot in args.bots.split(","):
        runs: dict[str, list[float]] = {name: [] for name in trees}
        digests: dict[str, set[object]] = {name: set() for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                result = run(tree, bot, args.games)
                runs[name].append(float(str(result["ms"])))
                digests[name].add(result["digest"])
        for name in trees:
            print(f"{bot:8} {name:28} {statistics.median(runs[name]):8.1f} ms of CPU a game (median of "
                  f"{args.rounds})  replays {', '.join(sorted(map(str, digests[name])))}", flush=True)


if __name__ == "__main__":
    main()
