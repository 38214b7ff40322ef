"""The command line's start: CPU seconds of short ``arena`` commands, this tree against another in the same run.

    python3 bench/cli_start.py [--old /work/wt-old] [--runs 7]

Each command runs ``--runs`` times against one small SQLite ladder (made by the first ``arena ladder``); the
trees alternate run by run, so a drift in the machine's pace touches both alike. Prints each command's median
CPU (user + system of the child, what a shared machine is charged) and wall time per tree, and the ratio."""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "engine", "sandbox", "strategy")  # what an `arena` command imports of a tree
COMMANDS = (("--help",), ("ladder",), ("bots",), ("leaderboard",), ("season", "list"),
            ("replay", "--help"), ("play", "--help"))


def timed(tree: Path, db: str, args: tuple[str, ...], cwd: Path) -> tuple[float, float]:
    """One run: (CPU seconds, wall seconds) of ``arena`` from ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-m", "arena", "--db", db, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} in {tree} failed: {done.stderr.strip()[-300:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="another checkout (e.g. a worktree of an older commit)")
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    trees = {"new": HERE, **({"old": options.old.resolve()} if options.old else {})}
    for tree in trees.values():  # both compiled alike: where PYTHONDONTWRITEBYTECODE is set (some machines set it),
        # a tree without __pycache__ would compile every module at every start, and its figures would be that
        subprocess.run([sys.executable, "-m", "compileall", "-q", *(str(tree / package) for package in PACKAGES)],
                       check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as work:
        cwd = Path(work)
        db = f"sqlite:///{cwd / 'ladder.sqlite'}"
        timed(HERE, db, ("ladder",), cwd)  # the database made once, by this tree's schema
        print(f"{'command':<16}" + "".join(f"{name + ' cpu s':>12}{name + ' wall s':>13}" for name in trees)
              + ("   cpu new/old" if len(trees) == 2 else ""))
        for args in COMMANDS:
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for _ in range(options.runs):
                for name, tree in trees.items():
                    runs[name].append(timed(tree, db, args, cwd))
            cpu = {name: statistics.median(c for c, _ in r) for name, r in runs.items()}
            wall = {name: statistics.median(w for _, w in r) for name, r in runs.items()}
            line = f"{' '.join(args):<16}" + "".join(f"{cpu[n]:>12.3f}{wall[n]:>13.3f}" for n in trees)
            print(line + (f"{cpu['new'] / cpu['old']:>14.2f}" if len(trees) == 2 else ""), flush=True)


if __name__ == "__main__":
    main()
