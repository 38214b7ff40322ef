"""A batch of finished games recorded in one transaction (arena/ladder/recording.py) stores and rates exactly what
recording them one at a time does, in the same order; a batch that fails before its commit leaves its games
planned, to be played again."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from recording_helpers import made_up_outcome, made_up_table, planned_ladder
from sqlalchemy import event, text
from sqlmodel import Session, select

from arena.db import Match, MatchStatus, Season, make_engine
from arena.formats import format_of
from arena.ladder import rankings
from arena.ladder.planning import Planner, PlannedMatch, SeasonSettings
from arena.ladder.rankings import load_book
from arena.ladder.recording import record_or_void, record_outcome, record_outcomes
from arena.ladder.executors import TableExecutor
from arena.ladder.seasons import rerate, run_season
from arena.play.tables import MatchOutcome, TableTask
from sandbox import Limits, Tier



def planned(tmp_path: Path, name: str) -> tuple[Any, list[PlannedMatch]]:
    """A database of four bots and three planned tables of four seat-rotated games."""
    return planned_ladder(f"sqlite:///{tmp_path / name}")


def copy(engine: Any, tmp_path: Path, name: str) -> Any:
    """A copy of an SQLite database, as it is now (the seeds of a plan are keyed with each database's secret)."""
    engine.dispose()
    shutil.copy(engine.url.database, tmp_path / name)
    return make_engine(f"sqlite:///{tmp_path / name}")


def outcome(match: PlannedMatch, k: int) -> MatchOutcome:
    """A made-up finished game (``recording_helpers.made_up_outcome``)."""
    return made_up_outcome(match, k)


def stored(engine: Any) -> dict[str, list[tuple[Any, ...]]]:
    """What a recording wrote, but the clock's stamps."""
    queries = {"match": "SELECT id, status, rated_order, seconds, replay, flows, void_reason FROM match ORDER BY id",
               "seat": "SELECT match_id, seat, coins, rank, status, detail, decisions, time_ms, failure_request, "
                       "failure_step, failure_log FROM matchseat ORDER BY match_id, seat",
               "rating": "SELECT version_id, variant, mu, sigma, games FROM rating ORDER BY version_id",
               "snapshot": "SELECT match_id, version_id, mu, sigma, games FROM ratingsnapshot ORDER BY id",
               "log": "SELECT match_id, seat, version_id, text FROM seatlog ORDER BY match_id, seat",
               "meta": "SELECT key, value FROM meta WHERE key LIKE 'ties:%' OR key LIKE 'pairs:%' ORDER BY key"}
    with engine.connect() as conn:
        return {name: [tuple(row) for row in conn.execute(text(sql))] for name, sql in queries.items()}


def test_a_batch_stores_and_rates_what_one_game_at_a_time_does(tmp_path: Path) -> None:
    one_engine, matches = planned(tmp_path, "one.sqlite")
    batch_engine = copy(one_engine, tmp_path, "batch.sqlite")
    games = [outcome(m, k) for k, m in enumerate(matches)]
    games[5] = MatchOutcome(matches[5].id, None, "the machine")  # void: not played
    with Session(one_engine) as session:
        book = load_book(session, "classic")
        assert [record_outcome(session, book, game) for game in games] == [True] * len(games)
    with Session(batch_engine) as session:
        book = load_book(session, "classic")
        first, rest = games[:4], games[4:]
        assert record_outcomes(session, book, first) == [True] * 4  # a table
        assert record_outcomes(session, book, [*rest, rest[0], first[0]]) == [True] * len(rest) + [False, False]
        assert record_outcomes(session, book, games) == [False] * len(games)  # a table that came back again
        assert rerate(session, "classic", write=False) == []  # the ratings of the games one by one, in order
    assert stored(batch_engine) == stored(one_engine)
    rows = stored(batch_engine)
    assert [r[2] for r in rows["match"]] == [1, 2, 3, 4, 5, None, *range(6, 12)]  # the order they came in
    assert len(rows["snapshot"]) == 4 * 11 and len(rows["log"]) == 11


def test_a_batch_that_fails_before_its_commit_leaves_every_game_planned(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """As a coordinator killed in the middle of a batch: nothing of it is stored, half or whole, and the
    same games recorded again (as when the next run has played them again) give what one at a time gives."""
    engine, matches = planned(tmp_path, "failed.sqlite")
    one = copy(engine, tmp_path, "one.sqlite")
    games = [outcome(m, k) for k, m in enumerate(matches)]
    before = stored(engine)

    def dies(*args: Any) -> None:
        raise RuntimeError("killed")

    ranking = format_of("classic").ranking
    assert isinstance(ranking, rankings.TrueSkill)
    with Session(engine) as session:
        book = load_book(session, "classic")
        monkeypatch.setattr(rankings.TrueSkill, "record", dies)
        with pytest.raises(RuntimeError, match="killed"):
            record_or_void(session, book, "classic", games[:4])  # after the seats, logs and matches were written
        monkeypatch.undo()
        assert stored(engine) == before
        assert {m.status for m in session.exec(select(Match)).all()} == {MatchStatus.PLANNED}
        book = load_book(session, "classic")  # the next run's
        assert [done for _, done in record_or_void(session, book, "classic", games)] == [True] * len(games)
        assert rerate(session, "classic", write=False) == []
    with Session(one) as session:
        book = load_book(session, "classic")
        for game in games:
            record_outcome(session, book, game)
    assert stored(engine) == stored(one)


class OneThenCtrlC(TableExecutor):
    """Two slots; the first table handed over ends at once (made-up games), then Ctrl-C comes while the season
    waits for the next."""

    name = "one, then Ctrl-C"

    def __init__(self) -> None:
        self.tasks: list[TableTask] = []
        self.answered = 0

    def start(self) -> None:
        pass

    def slots(self) -> int:
        return 2

    def submit(self, task: TableTask) -> None:
        self.tasks.append(task)

    def next_result(self) -> list[MatchOutcome]:
        self.answered += 1
        if self.answered > 1:
            raise KeyboardInterrupt
        return made_up_table(self.tasks[0])

    def close(self) -> None:
        pass


def test_ctrl_c_while_a_round_waits_records_the_tables_that_came_back_first(tmp_path: Path) -> None:
    """Two workers: a round waits for two tables before it records them; Ctrl-C while it waits for the second
    still records the first (finished games are saved), and the rest stay planned."""
    engine, _ = planned(tmp_path, "ctrl-c.sqlite")
    executor = OneThenCtrlC()
    with pytest.raises(KeyboardInterrupt):
        run_season(engine, SeasonSettings("s", games=40), executor, Limits(), Tier.PLAIN)
    first = {game.match_id for game in executor.tasks[0].games}
    with Session(engine) as session:
        status = {m.id: m.status for m in session.exec(select(Match)).all()}
    assert executor.answered == 2 and len(first) == 4
    assert {m for m, s in status.items() if s == MatchStatus.DONE} == first
    assert all(s == MatchStatus.PLANNED for m, s in status.items() if m not in first) and len(status) > 4


def test_the_tables_of_a_round_read_the_seated_versions_and_the_flags_once(tmp_path: Path) -> None:
    engine, _ = planned(tmp_path, "round.sqlite")
    asked: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: asked.append(args[2]))

    def reads() -> tuple[int, int]:
        return (sum("FROM auditflag" in sql and "cleared_at IS NULL" in sql for sql in asked),
                sum("botversion.active" in sql for sql in asked))
    with Session(engine) as session:
        season = session.exec(select(Season)).one()
        planner = Planner(session, season, load_book(session, "classic"))
        asked.clear()
        planner.plan(commit=False), planner.plan(commit=False)
        assert reads() == (2, 2)
        asked.clear()
        with planner.one_round():
            planner.plan(commit=False), planner.plan(commit=False)
        assert reads() == (1, 1)
        asked.clear()
        planner.plan(commit=False)  # the round is over: read again
        assert reads() == (1, 1)
