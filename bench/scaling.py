"""Season throughput on a Dask LocalCluster with 1, 2 and 4 worker processes (and the local pool for reference).

    python3 bench/scaling.py [--games N] [--workers 1,2,4] [--no-local]

4-player games of random and greedy (and renamed copies, so that a table has 4 different bots) in
the full sandbox, seat-rotated deals (a table plays 4 games, every bot afresh in each), a fresh
SQLite file per run. Prints games per minute from the moment the workers are up (cluster start-up
is printed separately) and the time a run took in all.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")  # before Dask is imported, here and in its workers

from arena.db import make_engine  # noqa: E402
from arena.ladder.dask_executor import DaskExecutor  # noqa: E402
from arena.ladder.executors import LocalPoolExecutor, TableExecutor  # noqa: E402
from arena.ladder.seasons import SeasonProgress, run_season  # noqa: E402
from arena.ladder.planning import SeasonSettings  # noqa: E402
from sandbox import Limits, detect_tier  # noqa: E402

import common  # noqa: E402


def one_run(folder: str, executor: TableExecutor, games: int) -> tuple[float, float, int]:
    """(seconds until the workers were up, games per minute after that, games) of one season."""
    engine = make_engine(f"sqlite:///{folder}/{executor.name.split()[0]}-{time.monotonic_ns()}.sqlite")
    common.register_example_bots(engine)
    marks: list[float] = []

    def progress(p: SeasonProgress) -> None:
        marks.append(time.perf_counter())

    started = time.perf_counter()
    settings = SeasonSettings(name="bench", games=games, min_players=4, max_players=4, rotate=True, seed=7)
    result = run_season(engine, settings, executor, Limits(), detect_tier(), progress)
    ended = time.perf_counter()
    engine.dispose()
    return marks[0] - started, result.done / (ended - marks[0]) * 60, result.done


def main() -> None:
    parser = common.parser(__doc__, 96)
    parser.add_argument("--workers", default="1,2,4", help="comma list of Dask worker counts")
    parser.add_argument("--no-local", action="store_true", help="skip the local pool reference runs")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    print(common.machine(f"{os.cpu_count()} cores", f"tier {detect_tier().value}",
                         f"{args.games} 4-player games (random, greedy and copies)", "seat-rotated deals"))
    runs: list[TableExecutor] = [] if args.no_local else [LocalPoolExecutor(n) for n in (1, 2)]
    runs += [DaskExecutor(None, n) for n in counts]
    with tempfile.TemporaryDirectory() as folder:
        for executor in runs:
            start_s, rate, done = one_run(folder, executor, args.games)
            print(f"{executor.name:28} start {start_s:5.1f} s   {done} games   {rate:6.1f} games/min")


if __name__ == "__main__":
    main()
