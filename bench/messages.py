"""The referee's decide messages against another checkout's, in one run (issue 42, docs/benchmarks.md).

    python3 bench/messages.py --old /work/wt-json-old [--rounds 5] [--games 80]

Each side runs in a subprocess of its own (its tree as working directory and ``PYTHONPATH``), the sides
alternating round after round; every figure is of CPU time. ``line``: µs to make a decide message's line as a
sandboxed seat is sent it; ``object``: µs to make it as an in-process bot reads it (its JSON object), both on
the states of 20 random classic 4-player games; ``in-process``: games per minute of random, greedy, trader and
greedy bots called with the messages' JSON objects (as bench/season.py's in-process players are). An old tree
from before issue 42 is driven through its ``DecideWire``. Prints every round, the medians and new/old.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = '''
import random, sys, time
from pathlib import Path
from engine import rules_for, new_game
from strategy.policies import random_action
from sandbox import Reply, Status
what, games = sys.argv[1], int(sys.argv[2])
rules = rules_for("classic")
try:
    from arena.play.referee import Referee
    from sandbox.protocol import encode
    NEW = True
except ImportError:
    from arena.play.referee_wire import DecideWire
    NEW = False

class Bot:
    stderr_tail = ""
    def __init__(self, name, act=None):
        self.name, self._act = name, act
    def request(self, message):
        data = message.to_json() if NEW else message
        started = time.perf_counter()
        reply = self._act(data)
        return Reply(Status.OK, reply, (time.perf_counter() - started) * 1000)
    def notify(self, message):
        self._act(message.to_json() if NEW else message)
    def time_left_ms(self):
        return 4000.0
    def new_game(self):
        pass
    def close(self):
        pass

def messages(line):
    total, count = 0.0, 0
    for seed in range(20):
        game, rng = new_game(rules, 4, seed), random.Random(seed)
        if NEW:
            referee = Referee(rules, seed, [Bot(f"b{i}") for i in range(4)])
            referee.game = game
            def make(d):
                message = referee._decide_message(referee.seats[d.seat], d)
                return encode(message) if line else message.to_json()
        else:
            wire, seen, ids = DecideWire(4), [0] * 4, [0]
            def make(d):
                ids[0] += 1
                m = wire.message(game, ids[0], d, seen[d.seat], 4000.0, line)
                seen[d.seat] = len(game.events)
                return m.line if line else m
        while not game.over:
            decision = game.decision
            started = time.process_time()
            make(decision)
            total += time.process_time() - started
            count += 1
            game.apply(random_action(game, rng))
    return total / count * 1e6

if what == "in-process":
    from arena.play.referee import play_game
    try:
        from arena.play.players import load_entry_point
    except ImportError:
        from arena.play.referee import load_entry_point
    entries = [load_entry_point(Path("bots") / f"{s}_bot.py") for s in ("random", "greedy", "trader", "greedy")]
    def table(seed):
        rot = seed % 4
        return [Bot(f"b{i}", e()) for i, e in enumerate(entries[rot:] + entries[:rot])]
    for seed in range(3):
        play_game(rules, seed, table(seed), bot_seeds=[1, 2, 3, 4])
    started = time.process_time()
    for seed in range(games):
        play_game(rules, seed, table(seed), bot_seeds=[1, 2, 3, 4])
    print(games / (time.process_time() - started) * 60)
else:
    print(min(messages(what == "line") for _ in range(3)))
'''


def run(tree: Path, what: str, games: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, what, str(games)], cwd=tree, env=env, capture_output=True,
                         text=True, check=True).stdout
    return float(out.split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (a git worktree)")
    parser.add_argument("--new", type=Path, default=HERE)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=80, help="in-process games a round")
    args = parser.parse_args()
    for what in ("line", "object", "in-process"):
        old, new = [], []
        for _ in range(args.rounds):
            old.append(run(args.old, what, args.games))
            new.append(run(args.new, what, args.games))
        a, b = statistics.median(old), statistics.median(new)
        print(f"{what:<10} old {' '.join(f'{x:7.1f}' for x in old)} | new {' '.join(f'{x:7.1f}' for x in new)} | "
              f"medians {a:.1f} / {b:.1f}: new/old {b / a:.2f}", flush=True)


if __name__ == "__main__":
    main()
