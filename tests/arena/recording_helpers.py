"""A small planned ladder, made-up finished games and an executor whose tables end at once, for the tests of
recording (test_recording.py, test_bulk.py, test_season_close.py, test_live_rounds.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel import Session

from arena.db import Meta, make_engine
from arena.ladder.planning import PlannedMatch, Planner, SeasonSettings, get_or_create_season
from arena.ladder.random_seeds import KEY_NAME
from arena.ladder.rankings import load_book
from arena.play.records import Failure, GameRecord, SeatOutcome
from arena.ladder.executors import TableExecutor
from arena.play.tables import MatchOutcome, TableTask
from arena.submissions.versions import register
from sandbox import Status

BOTS = Path(__file__).resolve().parents[2] / "bots"


def planned_ladder(url: str) -> tuple[Any, list[PlannedMatch]]:
    """A database at ``url`` with a fixed seed key, four bots and three planned tables of four seat-rotated games;
    its engine and the planned matches."""
    engine = make_engine(url)
    with Session(engine) as session:
        session.merge(Meta(key=KEY_NAME, value="5e" * 32))
        for stem, copy in (("random_bot", "dice"), ("greedy_bot", "glutton")):
            source = (BOTS / f"{stem}.py").read_text()
            register(session, stem, source, builtin=True)
            register(session, copy, source + "\n# copy\n")
        season = get_or_create_season(session, SeasonSettings("s", games=12, min_players=4, max_players=4, seed=5))
        planner = Planner(session, season, load_book(session, "classic"))
        matches = [m for _ in range(3) for m in planner.plan()]
    return engine, matches


def made_up_outcome(match: PlannedMatch, k: int, failed_detail: str = "too slow") -> MatchOutcome:
    """A made-up finished game: ranks vary with ``k`` (ties too), one seat failed (``failed_detail``), one wrote to
    stderr."""
    ranks = [(1, 2, 3, 4), (2, 1, 1, 4), (4, 3, 2, 1), (1, 1, 3, 3)][k % 4]
    seats = tuple(SeatOutcome(f"b{seat}", coins=10 - rank, rank=rank, status=Status.OK if seat else Status.TIMEOUT,
                              detail="" if seat else failed_detail, decisions=40 + seat, time_ms=1.5 * seat,
                              failure=None if seat else Failure("decide", 7, "late"),
                              log=f"game {match.id} seat {seat}\n" if seat == 1 else "")
                  for seat, rank in enumerate(ranks))
    return MatchOutcome(match.id, GameRecord(match.rules_id, match.seed, seats, '{"replay": %d}' % k, 0.25),
                        flows="{}")


def made_up_table(task: TableTask) -> list[MatchOutcome]:
    """The games of a handed-over table, made up: every seat ok, the first seat first."""
    def seats(seating: tuple[int, ...]) -> tuple[SeatOutcome, ...]:
        return tuple(SeatOutcome(task.bots[i].name, 10 - seat, seat + 1, Status.OK, "", 10, 1.0)
                     for seat, i in enumerate(seating))
    return [MatchOutcome(game.match_id, GameRecord(task.rules_id, game.seed, seats(game.seating), '{"replay": 1}',
                                                   0.01), flows="{}") for game in task.games]


class EndsAtOnce(TableExecutor):
    """Tables that end as soon as they are handed over (``made_up_table``), ``slots`` at a time: by the next look,
    every table handed over has ended (``ready_results``)."""

    name = "ends at once"

    def __init__(self, slots: int) -> None:
        self.workers = slots
        self.queued: list[TableTask] = []

    def start(self) -> None:
        pass

    def slots(self) -> int:
        return self.workers

    def submit(self, task: TableTask) -> None:
        self.queued.append(task)

    def next_result(self) -> list[MatchOutcome]:
        return made_up_table(self.queued.pop(0))

    def ready_results(self) -> list[list[MatchOutcome]]:
        return [self.next_result() for _ in range(len(self.queued))]

    def close(self) -> None:
        self.queued.clear()
