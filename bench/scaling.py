"""Season throughput as workers are added, on the local pool and on a Dask LocalCluster alike, and the coordinator's
own ceiling.

    python3 bench/scaling.py [--games N] [--workers 1,2,4] [--no-local] [--no-dask]
                             [--coordinator-only [--players 3] [--live] [--rounds R] [--old /tmp/wt-old]]

4-player games of random and greedy (and renamed copies, so that a table has 4 different bots) in the full sandbox,
seat-rotated deals (a table plays 4 games, every bot afresh in each), a fresh SQLite file per run. For each executor
and worker count: games per minute from the moment the workers are up (start-up printed apart), games per minute a
worker, and the efficiency, a worker's rate against a worker's rate with 2 workers (1.00: adding workers adds their
whole pace; what issue 46 asks of 16 workers is 0.9).

``--coordinator-only`` simulates as many workers as the coordinator can be fed: an executor whose tables end at once
(each game a copy of one game played beforehand in-process, renamed to the table's bots), so that the season's pace is
the coordinator's alone: planning, recording, rating and the database. It prints the coordinator's CPU a game and a
table while tables end, and whether that keeps up with a table's end every 1 ms (a 4-player table, 4 seat-rotated
games, a millisecond: ~240,000 games/min, what a very large pool of workers would hand it; ``--players 3``: the
3-player tables of issue 46's 16-core runs, 3 games a millisecond), then apart the season's audit at its end, which
runs once after the last table, not once a table. With ``--live`` the coordinator is the living ladder's loop
(`arena season run --live`, one format, its side jobs not due) playing ``--games`` games after its first rounds.
With ``--rounds R`` each season is run R times, each in a process of its own, and ``--old`` (a checkout of another
commit, e.g. a git worktree) runs that tree's bench in turn with this one's: the coordinator's CPU a game, least
and median of the rounds for each tree and worker count, and the ratio of the medians (this VM's pace drifts by
half within minutes: only figures taken in turn compare).
"""
from __future__ import annotations

import dataclasses
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")  # before Dask is imported, here and in its workers

from arena.audit.stats import TradeFlows  # noqa: E402
from arena.db import make_engine  # noqa: E402
from arena.db.columns import Compressed, compressed  # noqa: E402
from arena.ladder.executors import LocalPoolExecutor, TableExecutor  # noqa: E402
from arena.ladder.live import LiveLoop  # noqa: E402
from arena.ladder.live_seasons import LiveProgress, LiveSettings, prepare_live  # noqa: E402
from arena.ladder.planning import SeasonSettings  # noqa: E402
from arena.ladder.seasons import SeasonProgress, run_season  # noqa: E402
from arena.play.players import InProcessPlayer  # noqa: E402
from arena.play.records import GameRecord  # noqa: E402
from arena.play.referee import play_game  # noqa: E402
from arena.play.tables import MatchOutcome, TableTask  # noqa: E402
from engine import rules_for  # noqa: E402
from sandbox import Limits, Tier, detect_tier  # noqa: E402

import common  # noqa: E402

TABLE_EVERY_MS = 1.0  # the coordinator-only target: a table's end every millisecond


class Run(NamedTuple):
    """One season: seconds until the workers were up, games per minute after that, games, and the coordinator's
    CPU seconds in all and until its last game was recorded (the rest: the season's audit at its end)."""

    start_s: float
    rate: float
    done: int
    cpu: float
    cpu_recording: float


def one_run(folder: str, executor: TableExecutor, games: int, tier: Tier, players: int = 4) -> Run:
    engine = make_engine(f"sqlite:///{folder}/{executor.name.split()[0]}-{time.monotonic_ns()}.sqlite")
    common.register_example_bots(engine)
    marks: list[float] = []
    recorded_cpu: list[float] = []

    def progress(p: SeasonProgress) -> None:
        marks.append(time.perf_counter())
        if p.done + p.void >= p.planned:  # the last game recorded: the audit comes next
            recorded_cpu[:] = [cpu_s()]

    started = time.perf_counter()
    cpu_before = cpu_s()
    settings = SeasonSettings(name="bench", games=games, min_players=players, max_players=players, rotate=True,
                              seed=7)
    result = run_season(engine, settings, executor, Limits(), tier, progress)
    ended = time.perf_counter()
    cpu = cpu_s() - cpu_before
    engine.dispose()
    return Run(marks[0] - started, result.done / (ended - marks[0]) * 60, result.done, cpu,
               recorded_cpu[0] - cpu_before)


def live_run(folder: str, executor: InstantExecutor, games: int, players: int) -> tuple[int, float, float]:
    """The living ladder's loop on ``executor`` (classic, ``players`` a table, the audit and the site never due):
    the games it recorded after its first rounds, and its CPU seconds and wall seconds for them."""
    engine = make_engine(f"sqlite:///{folder}/live-{time.monotonic_ns()}.sqlite")
    common.register_example_bots(engine)
    settings = LiveSettings(name="bench", variants=("classic",), min_players=players, max_players=players,
                            audit_every=1e9)
    prepare_live(engine, settings)
    executor.start()
    progress = LiveProgress()
    loop = LiveLoop(engine, settings, executor, Limits(), Tier.PLAIN, progress, lambda line: None)
    try:
        for _ in range(3):  # its first rounds, and its first audit (due at the start), left out
            loop.step()
        loop.stop_jobs()
        first, cpu_before, started = progress.games["classic"], cpu_s(), time.perf_counter()
        while progress.games["classic"] - first < games:
            loop.step()
        return progress.games["classic"] - first, cpu_s() - cpu_before, time.perf_counter() - started
    finally:
        executor.close()
        loop.session.close()
        engine.dispose()


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


class InstantExecutor(TableExecutor):
    """Tables that end as soon as they are handed over: each game a copy of ``game`` under the table's bot names,
    so that only the coordinator works (``--coordinator-only``)."""

    name = "instant"

    def __init__(self, workers: int, game: tuple[GameRecord, str, Compressed]) -> None:
        self.workers = workers
        self.game, self.flows, self.stored = game  # as a worker hands them on: its trade flows, its replay compressed
        self.queued: list[TableTask] = []

    def start(self) -> None:
        pass

    def slots(self) -> int:
        return self.workers

    def submit(self, task: TableTask) -> None:
        self.queued.append(task)

    def next_result(self) -> list[MatchOutcome]:
        task = self.queued.pop(0)
        outcomes = []
        for game in task.games:
            seats = tuple(dataclasses.replace(seat, name=task.bots[index].name)
                          for seat, index in zip(self.game.seats, game.seating))
            record = dataclasses.replace(self.game, seed=game.seed, seats=seats)
            outcomes.append(MatchOutcome(game.match_id, record, flows=self.flows, stored_replay=self.stored))
        return outcomes

    def ready_results(self) -> list[list[MatchOutcome]]:
        """Every other table handed over has ended too: the coordinator records them with the one it waited for."""
        return [self.next_result() for _ in range(len(self.queued))]

    def close(self) -> None:
        self.queued.clear()

    def detect_tier(self) -> Tier:
        return Tier.PLAIN  # nothing is started: the tier only goes into the tasks


def one_game(players: int = 4) -> tuple[GameRecord, str, Compressed]:
    """A game of the example bots played in-process, its trade flows and its compressed replay: what the instant
    executor hands back for every game."""
    bots = [common.BOTS / f"{stem}_bot.py" for stem in ("random", "greedy", "random", "greedy", "random")[:players]]
    seated = [InProcessPlayer(path, f"seat{n}") for n, path in enumerate(bots)]
    flows = TradeFlows()
    record = play_game(rules_for("classic"), 1, seated, watch=flows.seen)
    return record, flows.to_json(), compressed(record.replay_text)


def efficiency_lines(kind: str, rates: dict[int, float]) -> list[str]:
    """Per worker rate and efficiency against 2 workers (or the fewest measured) of one executor kind."""
    base = 2 if 2 in rates else min(rates)
    per_base = rates[base] / base
    return [f"{kind:6} {n:3} workers  {rate:8.1f} games/min  {rate / n:7.1f} a worker  "
            f"efficiency {rate / n / per_base:4.2f} (against {base})" for n, rate in sorted(rates.items())]


def coordinator_line(slots: int, run: Run, players: int) -> str:
    """What ``--coordinator-only`` prints of one season: its pace, the coordinator's CPU a game and a table while
    tables end (the verdict against a table's end every ``TABLE_EVERY_MS``), and the audit at the season's end."""
    per_game = run.cpu_recording / run.done * 1000
    per_table = per_game * players
    verdict = "keeps up" if per_table <= TABLE_EVERY_MS else "does not keep up"
    return (f"coordinator only, {slots} slots: {run.done} games, {run.rate:9.1f} games/min; its CPU while tables end "
            f"{per_game:.3f} ms a game, {per_table:.2f} ms a {players}-game table: {verdict} with a table's end every "
            f"{TABLE_EVERY_MS:g} ms (ceiling ~{60_000 / per_game:,.0f} games/min); the audit at the season's end "
            f"{(run.cpu - run.cpu_recording) * 1000:.0f} ms ({(run.cpu - run.cpu_recording) / run.done * 1000:.3f} ms "
            f"a game)")


#: the coordinator's CPU a game in a ``--coordinator-only`` line, by its slots (workers)
_CPU_A_GAME = re.compile(r"only, (\d+) slots: .*?its CPU (?:while tables end )?([\d.]+) ms a game")


def in_turn(trees: dict[str, Path], rounds: int, argv: list[str], players: int) -> list[str]:
    """``--rounds``/``--old``: each tree's ``--coordinator-only`` bench (``argv``) run ``rounds`` times, the trees
    in turn, each run a process of its own; a line a tree and worker count (least and median CPU a game), then the
    ratio of the medians of the last tree to the first's."""
    figures: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for name, tree in trees.items():
            ran = subprocess.run([sys.executable, str(tree / "bench" / "scaling.py"), *argv], capture_output=True,
                                 text=True, timeout=1800)
            if ran.returncode != 0:
                raise SystemExit(f"{tree}/bench/scaling.py failed:\n{ran.stderr[-2000:]}")
            for slots, per_game in _CPU_A_GAME.findall(ran.stdout):
                figures.setdefault((name, int(slots)), []).append(float(per_game))
    lines = []
    for (name, slots), values in sorted(figures.items(), key=lambda item: (item[0][1], list(trees).index(item[0][0]))):
        low, mid = min(values), statistics.median(values)
        lines.append(f"{name:4} {slots:3} slots, {len(values)} rounds: its CPU a game least {low:.3f} median {mid:.3f} "
                     f"ms ({low * players:.2f} / {mid * players:.2f} ms a {players}-game table); each: "
                     + " ".join(f"{v:.3f}" for v in values))
    if len(trees) == 2:
        first, last = list(trees)
        for slots in sorted({slots for _, slots in figures}):
            ratio = statistics.median(figures[(last, slots)]) / statistics.median(figures[(first, slots)])
            lines.append(f"{slots} slots: median {last}/{first} {ratio:.2f}")
    return lines


def main() -> None:
    parser = common.parser(__doc__, 96)
    parser.add_argument("--workers", default="1,2,4", help="comma list of worker counts, local pool and Dask alike")
    parser.add_argument("--no-local", action="store_true", help="skip the local pool")
    parser.add_argument("--no-dask", action="store_true", help="skip Dask")
    parser.add_argument("--coordinator-only", action="store_true",
                        help="only the coordinator: tables that end at once (see above)")
    parser.add_argument("--players", type=int, choices=(3, 4, 5), default=4,
                        help="players a table with --coordinator-only (seat-rotated: as many games a table)")
    parser.add_argument("--live", action="store_true", help="with --coordinator-only: the living ladder's loop")
    parser.add_argument("--rounds", type=int, default=1, help="with --coordinator-only: runs of each season, in turn")
    parser.add_argument("--old", type=Path, help="with --coordinator-only: another checkout, run in turn with this one")
    args = parser.parse_args()
    if args.coordinator_only and (args.rounds > 1 or args.old):
        argv = ["--coordinator-only", "--games", str(args.games), "--workers", args.workers, "--players",
                str(args.players), *(["--live"] if args.live else [])]
        trees = {**({"old": args.old.resolve()} if args.old else {}), "new": Path(__file__).resolve().parent.parent}
        print("\n".join(in_turn(trees, max(1, args.rounds), argv, args.players)))
        return
    counts = [int(n) for n in args.workers.split(",")]
    tier = detect_tier()
    players = args.players if args.coordinator_only else 4  # --players is --coordinator-only's
    print(common.machine(f"{os.cpu_count()} cores", f"tier {tier.value}",
                         f"{args.games} {players}-player games (random, greedy and copies)", "seat-rotated deals"))
    with tempfile.TemporaryDirectory() as folder:
        if args.coordinator_only:
            game = one_game(args.players)
            for n in counts:
                if args.live:
                    done, cpu, wall = live_run(folder, InstantExecutor(n, game), args.games, args.players)
                    per_game = cpu / done * 1000
                    print(f"live loop only, {n} slots: {done} games, {done / wall * 60:9.1f} games/min (its commits "
                          f"waited for the disk included); its CPU {per_game:.3f} ms a game, "
                          f"{per_game * args.players:.2f} ms a {args.players}-game table (ceiling "
                          f"~{60_000 / per_game:,.0f} games/min)", flush=True)
                    continue
                run = one_run(folder, InstantExecutor(n, game), args.games, Tier.PLAIN, args.players)
                print(coordinator_line(n, run, args.players), flush=True)
            return
        kinds: list[tuple[str, list[TableExecutor]]] = []
        if not args.no_local:
            kinds.append(("local", [LocalPoolExecutor(n) for n in counts]))
        if not args.no_dask:
            from arena.ladder.dask_executor import DaskExecutor

            kinds.append(("dask", [DaskExecutor(None, n) for n in counts]))
        summary: list[str] = []
        for kind, executors in kinds:
            rates: dict[int, float] = {}
            for n, executor in zip(counts, executors):
                run = one_run(folder, executor, args.games, tier)
                rates[n] = run.rate
                print(f"{executor.name:28} start {run.start_s:5.1f} s   {run.done} games   {run.rate:8.1f} games/min",
                      flush=True)
            summary += efficiency_lines(kind, rates)
        print("\n".join(summary))


if __name__ == "__main__":
    main()
