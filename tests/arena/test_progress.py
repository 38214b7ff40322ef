"""The progress line of a season: whose seats failed, and an ETA that starts from the pace of the
database's earlier games until this run has its own (measured from its first result)."""
from __future__ import annotations

import io
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlmodel import Session

from arena.db import Match, MatchStatus, Season, SeatStatus, make_engine, stored_id
from arena.ladder.seasons import SeasonProgress
from arena.ladder.progress import WARM_UP_GAMES, ProgressReporter, earlier_rate


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_line_names_the_bots_that_failed_worst_first() -> None:
    progress = SeasonProgress(planned=10, done=4, failures=6, played_now=4, failures_by_bot={
        "slow": Counter({SeatStatus.TIMEOUT: 1}), "crashy": Counter({SeatStatus.CRASH: 3, SeatStatus.PROTOCOL: 1}),
        "late": Counter({SeatStatus.TIMEOUT: 1})})
    line = ProgressReporter(io.StringIO()).line(progress)
    assert "failures 6 (crashy 4, late 1, slow 1)" in line
    progress.failures_by_bot["zeta"] = Counter({SeatStatus.CRASH: 1})
    assert "failures 6 (crashy 4, late 1, slow 1, …)" in ProgressReporter(io.StringIO()).line(progress)
    assert "failures 0  void 0" in ProgressReporter(io.StringIO()).line(SeasonProgress(planned=3))


def test_the_first_eta_comes_from_earlier_games_then_from_this_runs_own_pace() -> None:
    clock = Clock()
    reporter = ProgressReporter(io.StringIO(), earlier_rate=30.0, clock=clock)
    progress = SeasonProgress(planned=100)
    assert "30/min  ETA ~200s" in reporter.line(progress)  # nothing played yet: the earlier pace, marked ~
    clock.now = 40.0  # workers and fork servers started: the first results arrive together
    progress.done = progress.played_now = 5
    assert "ETA ~190s" in reporter.line(progress)
    clock.now = 100.0  # 60 s after the first result, WARM_UP_GAMES + 1 games: 20 a minute
    progress.done = progress.played_now = WARM_UP_GAMES + 1
    assert f"20/min  ETA {(100 - WARM_UP_GAMES - 1) * 3}s" in reporter.line(progress)
    clock.now = 0.0
    without = ProgressReporter(io.StringIO(), clock=clock)
    assert "ETA ?" in without.line(SeasonProgress(planned=100))  # no earlier games, nothing played yet
    clock.now = 15.0  # the first table's results, after the workers started: no pace to go by yet
    assert "ETA ?" in without.line(SeasonProgress(planned=100, done=4, played_now=4))
    clock.now = 30.0  # 15 s after the first result, 13 games since it: 52 a minute, 86 games to go
    assert "52/min  ETA 99s" in without.line(SeasonProgress(planned=100, done=14, played_now=14))
    assert "ETA 0s" in without.line(SeasonProgress(planned=14, done=14, played_now=14))


def test_the_earlier_pace_is_the_newest_stretch_of_games_of_the_format(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    start = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
    with Session(engine) as session:
        assert earlier_rate(session, "classic") is None
        classic = Season(name="old", variant="classic", games=60, min_players=3, max_players=3, seed=1)
        duel = Season(name="duels", variant="duel", games=60, min_players=2, max_players=2, seed=2)
        session.add_all([classic, duel])
        session.flush()
        stamps = ([start + timedelta(seconds=10 * i) for i in range(20)]  # an old run: 6 a minute
                  + [start + timedelta(hours=2, seconds=2 * i) for i in range(31)])  # the newest: 30 a minute
        for number, stamp in enumerate(stamps):
            session.add(Match(season_id=stored_id(classic), number=number, table=number, seed=number,
                              rules_id="classic-v2", status=MatchStatus.DONE, finished_at=stamp))
        for number in range(5):  # too few to say anything
            session.add(Match(season_id=stored_id(duel), number=number, table=number, seed=number, rules_id="duel-v1",
                              status=MatchStatus.DONE, finished_at=start + timedelta(seconds=number)))
        session.commit()
        assert earlier_rate(session, "classic") == 30.0
        assert earlier_rate(session, "duel") is None


def test_the_reporter_writes_to_the_standard_error_of_its_time() -> None:
    """Without a stream it writes to ``sys.stderr`` as it is when made (a redirected one too), not as it
    was when the module was imported."""
    import contextlib

    caught = io.StringIO()
    with contextlib.redirect_stderr(caught):
        ProgressReporter()(SeasonProgress(planned=2, done=2, played_now=2))
    assert caught.getvalue().startswith("2/2 games")
