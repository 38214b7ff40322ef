"""The living ladder's side jobs: a command forked from the side jobs' server against a fresh interpreter each time.

    python3 bench/side_jobs.py [--games N] [--rounds N]

A ladder of the example bots with a season of N games (the local pool, 2 workers), then, alternating, ``--rounds``
times each: the site build and the audit as the loop ran them before (``python -m arena --quiet ...``, a new
interpreter) and as it runs them now (``SideJob``: forked from multiprocessing's forkserver, which imported the
command line once, arena/ladder/side_jobs.py). Prints each job's seconds from its start to its end and its CPU (a
new interpreter: this process's children; a forked job: what the server reaped), and the server's own start once.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.db import make_engine  # noqa: E402
from arena.ladder.planning import SeasonSettings  # noqa: E402
from arena.ladder.seasons import run_season  # noqa: E402
from arena.ladder.side_jobs import SideJob, arena_command  # noqa: E402
from sandbox import Limits, detect_tier  # noqa: E402

import common  # noqa: E402


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def reaped_cpu(pid: int) -> float:
    """The CPU seconds of the children process ``pid`` has reaped (``cutime`` + ``cstime``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def fresh(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, CPU seconds) of `arena ARGS` in a new interpreter, as the loop ran its side jobs before."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-m", "arena", *args], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, children_cpu() - cpu


def forked(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, CPU seconds) of `arena ARGS` as a side job now: forked from the server."""
    from multiprocessing import forkserver

    codes: list[int] = []
    job = SideJob("bench", args, every=0.0, env=env, on_end=lambda j, code: codes.append(code))
    started = time.perf_counter()
    job.poll(time.monotonic())
    server = getattr(forkserver._forkserver, "_forkserver_pid")  # started by the first job (a private name)
    assert server is not None
    cpu = reaped_cpu(server)
    while not codes:
        time.sleep(0.002)
        job.poll(time.monotonic())
    seconds = time.perf_counter() - started
    if codes != [0]:
        raise SystemExit(f"the side job {args} failed: exit {codes[0]}")
    return seconds, reaped_cpu(server) - cpu


def main() -> None:
    parser = common.parser(__doc__, 40)
    parser.add_argument("--rounds", type=int, default=3)
    opts = parser.parse_args()
    tier = detect_tier()
    print(common.machine(f"{os.cpu_count()} cores", f"tier {tier.value}", f"a season of {opts.games} games"))
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/ladder.sqlite"
        engine = make_engine(url)
        common.register_example_bots(engine)
        run_season(engine, SeasonSettings(name="bench", games=opts.games, min_players=4, max_players=4, rotate=True,
                                          seed=7), 2, Limits(), tier)
        engine.dispose()
        env = dict(os.environ, ARENA_DB=url)
        jobs = {"site build": arena_command("site", "build", "--out", f"{folder}/site"),
                "audit": arena_command("audit", "--variant", "classic")}
        started = time.perf_counter()
        forked(arena_command("bots"), env)  # the server's start, once for the loop
        print(f"the side jobs' server started and ran a first job in {time.perf_counter() - started:.2f} s")
        for name, args in jobs.items():
            for _ in range(opts.rounds):
                for way, run in (("new interpreter", fresh), ("forked", forked)):
                    seconds, cpu = run(args, env)
                    print(f"{name:10}  {way:15}  {seconds:5.2f} s  CPU {cpu:5.2f} s", flush=True)


if __name__ == "__main__":
    main()
