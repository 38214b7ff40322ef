"""The living ladder's loop a round at a time (arena/ladder/live.py), with a scripted executor whose tables end at
once (no sandbox): a round's new tables are stored in one commit before any is handed over, and the tables that
ended together are recorded together, one commit for their format; no game is lost or recorded twice."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from recording_helpers import EndsAtOnce
from sqlalchemy import event
from sqlmodel import Session

from arena.db import make_engine
from arena.ladder.live import LiveLoop
from arena.ladder.live_seasons import LiveProgress, LiveSettings, prepare_live
from arena.play.tables import TableTask
from arena.submissions.versions import register_bosses
from sandbox import Limits, Tier


class NotesHandOvers(EndsAtOnce):
    """Tables that end at once (``EndsAtOnce``); it notes, at each hand-over, whether the table's matches are already
    stored (committed) as planned."""

    def __init__(self, db: Path, slots: int) -> None:
        super().__init__(slots)
        self.db = db
        self.stored_when_handed: list[bool] = []
        self.handed: list[int] = []

    def submit(self, task: TableTask) -> None:
        ids = [game.match_id for game in task.games]
        with sqlite3.connect(self.db) as other:  # another connection: sees only what was committed
            found = other.execute(f"SELECT count(*) FROM match WHERE status = 'planned' AND id IN "
                                  f"({','.join('?' * len(ids))})", ids).fetchone()[0]
        self.stored_when_handed.append(found == len(ids))
        self.handed += ids
        super().submit(task)


def test_a_round_is_stored_in_one_commit_and_tables_ended_together_are_recorded_together(tmp_path: Path) -> None:
    db = tmp_path / "live.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
    settings = LiveSettings(name="live", variants=("classic",), min_players=3, max_players=3)
    prepare_live(engine, settings)
    executor = NotesHandOvers(db, slots=4)
    progress = LiveProgress()
    loop = LiveLoop(engine, settings, executor, Limits(), Tier.PLAIN, progress, lambda line: None)
    loop.jobs = {}  # no side job (the audit, the site): this test is the loop's rounds alone
    commits: list[int] = []
    event.listen(engine, "commit", lambda connection: commits.append(1))
    try:
        for round_ in range(1, 4):
            before = len(commits)
            loop.step()
            # planned: 2 tables a slot (8 tables of 3 games), then the 8 that ended together: 2 commits in all
            assert len(commits) - before == 2, round_
            assert len(executor.handed) == 24 * round_
            assert progress.games["classic"] == 24 * round_  # all eight tables recorded in the round
    finally:
        loop.session.close()
    assert all(executor.stored_when_handed)  # every table was stored before it was handed over
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT status, count(*) FROM match GROUP BY status").fetchall())
        snapshots = conn.execute("SELECT count(DISTINCT match_id) FROM ratingsnapshot").fetchone()[0]
    assert statuses == {"done": 72}  # no game lost, none left planned
    assert snapshots == 72 and sorted(executor.handed) == list(range(1, 73))  # each rated once
    engine.dispose()


def test_a_table_not_handed_over_after_the_rounds_commit_is_played_in_a_later_round(tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch
                                                                                  ) -> None:
    """Reading a table's bots fails after the round's commit (the database lost for a moment): the tables not handed
    over are not counted in flight, the loop faults (what came back meanwhile stays planned, to be played again) and
    a later round plays them all; every game is recorded once and none waits for ever."""
    import arena.ladder.live as live
    import arena.ladder.planning as planning
    from sqlalchemy.exc import OperationalError

    db = tmp_path / "live.sqlite"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register_bosses(session, ["random", "greedy", "trader"])
    settings = LiveSettings(name="live", variants=("classic",), min_players=3, max_players=3, retry_after=0.0)
    prepare_live(engine, settings)
    executor = NotesHandOvers(db, slots=4)
    calls = iter(range(10**6))
    real = planning.table_task  # what the loop calls by its own name, ``live.table_task``

    def fails_once(*args: Any, **kwargs: Any) -> Any:
        if next(calls) == 3:
            raise OperationalError("SELECT source FROM botversion", {}, Exception("disk I/O error"))
        return real(*args, **kwargs)

    monkeypatch.setattr(live, "table_task", fails_once)
    progress = LiveProgress()
    loop = LiveLoop(engine, settings, executor, Limits(), Tier.PLAIN, progress, lambda line: None)
    loop.jobs = {}
    try:
        loop.step()  # 8 tables stored, 3 handed over and back, then the fault: none recorded
        assert len(executor.handed) == 9 and progress.games["classic"] == 0 and loop.stale
        assert loop.tables_in_flight.total() == 0 and not loop.in_flight
        loop.step()  # the 8 planned tables again (the 3 that came back are played again), recorded; none new
        loop.step()
    finally:
        loop.session.close()
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT status, count(*) FROM match GROUP BY status").fetchall())
        rated = conn.execute("SELECT count(*), count(DISTINCT match_id) FROM ratingsnapshot").fetchone()
    assert statuses == {"done": progress.games["classic"]} and progress.games["classic"] >= 24, statuses
    assert rated == (3 * progress.games["classic"], progress.games["classic"])  # each game rated once, 3 seats
    assert set(executor.handed) == set(range(1, progress.games["classic"] + 1))
    engine.dispose()
