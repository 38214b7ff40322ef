"""`arena season close` on a season with games still planned (a stopped run, or the live ladder playing it): they
become void with their reason in the same transaction, the command says how many, the board stands as it was at
the close, and a game that was in flight at the close is not recorded when it ends."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from arena_helpers import run_arena
from recording_helpers import EndsAtOnce, made_up_outcome, planned_ladder
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import Match, MatchStatus, Rating, make_engine
from arena.ladder.planning import LadderError, SeasonSettings
from arena.ladder.rankings import load_book
from arena.ladder.recording import record_or_void, record_outcomes
from arena.ladder.seasons import CLOSED_UNPLAYED, close_season, run_season
from arena.play.tables import MatchOutcome
from sandbox import Limits, Tier


def statuses(engine: Engine) -> dict[int, tuple[MatchStatus, str | None]]:
    with Session(engine) as session:
        return {m.id: (m.status, m.void_reason) for m in session.exec(select(Match)).all() if m.id is not None}


def ratings(engine: Engine) -> dict[int, tuple[float, float, int]]:
    with Session(engine) as session:
        return {r.version_id: (r.mu, r.sigma, r.games) for r in session.exec(select(Rating)).all()}


def test_closing_voids_the_games_not_played_and_a_late_one_is_not_recorded(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine, matches = planned_ladder(f"sqlite:///{db}")
    played, unplayed = matches[:4], matches[4:]
    with Session(engine) as session:
        assert record_outcomes(session, load_book(session, "classic"),
                               [made_up_outcome(m, k) for k, m in enumerate(played)]) == [True] * 4
    board = ratings(engine)

    closed = run_arena("season", "close", "s", db=db)
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout.startswith("season s closed on ")
    assert closed.stdout.rstrip().endswith(f"it plays no more games; {len(unplayed)} games it had not played are void")
    after = statuses(engine)
    assert {after[m.id] for m in played} == {(MatchStatus.DONE, None)}
    assert {after[m.id] for m in unplayed} == {(MatchStatus.VOID, CLOSED_UNPLAYED)}

    # a table that was in flight at the close ends: not recorded, the board as it stood at the close
    with Session(engine) as session:
        late = [made_up_outcome(m, k) for k, m in enumerate(unplayed[:4])]
        assert record_outcomes(session, load_book(session, "classic"), late) == [False] * 4
    assert statuses(engine) == after
    assert ratings(engine) == board

    shown = run_arena("season", "show", "s", db=db)  # the games not played are counted, the played ones listed
    assert shown.returncode == 0, shown.stderr
    assert f"4/12 games done, {len(unplayed)} void ({len(unplayed)} not played: the season was closed), 0 planned" \
        in shown.stdout.splitlines()[0], shown.stdout
    listed = [line.split()[0] for line in shown.stdout.splitlines()[2:]]
    assert sorted(map(int, listed)) == sorted(m.id for m in played), shown.stdout

    site = tmp_path / "site"  # the site shows the games played, not those the close voided
    built = run_arena("site", "build", "--out", str(site), db=db)
    assert built.returncode == 0, built.stderr
    listed_games = re.findall(r"<tr><td>(?:<a [^>]*>)?#(\d+)\b", (site / "games" / "page-1.html").read_text())
    assert sorted(map(int, listed_games)) == sorted(m.id for m in played)
    assert CLOSED_UNPLAYED not in " ".join(page.read_text() for page in site.rglob("*.html"))

    again = run_arena("season", "close", "s", db=db)  # already closed: nothing more becomes void
    assert again.returncode == 0, again.stderr
    assert "void" not in again.stdout
    assert statuses(engine) == after
    engine.dispose()


def test_a_close_between_a_recordings_read_and_its_writes_leaves_its_games_void(tmp_path: Path) -> None:
    """The close commits (another process) after the recording read which games are planned and before it writes:
    the recording sees the close once its writes hold the lock, reads again, and records none of the closed
    season's games, which stay void; the board is the one of the close."""
    db = tmp_path / "ladder.sqlite"
    engine, matches = planned_ladder(f"sqlite:///{db}")
    board = ratings(engine)
    other = make_engine(f"sqlite:///{db}")
    closed: list[int] = []

    def close_first(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.lstrip().upper().startswith("UPDATE MATCHSEAT") and not closed:
            with Session(other) as session:
                closed.append(close_season(session, "s")[1])

    event.listen(engine, "before_cursor_execute", close_first)
    with Session(engine) as session:
        recorded = record_or_void(session, load_book(session, "classic"), "classic",
                                  [made_up_outcome(m, k) for k, m in enumerate(matches[:4])])
    event.remove(engine, "before_cursor_execute", close_first)
    assert closed == [len(matches)]  # the close voided every game, those being recorded among them
    assert [done for _, done in recorded] == [False] * 4
    assert set(statuses(engine).values()) == {(MatchStatus.VOID, CLOSED_UNPLAYED)}
    assert ratings(engine) == board
    other.dispose()
    engine.dispose()


class ClosesMidway(EndsAtOnce):
    """One table at a time, each ending at once (``EndsAtOnce``); as the second comes back, the season is closed from
    another connection (the operator's `arena season close` while the run goes on)."""

    def __init__(self, db: Path) -> None:
        super().__init__(slots=1)
        self.db, self.returned = db, 0

    def next_result(self) -> list[MatchOutcome]:
        self.returned += 1
        if self.returned == 2:
            other = make_engine(f"sqlite:///{self.db}")
            with Session(other) as session:
                close_season(session, "s")
            other.dispose()
        return super().next_result()

    def ready_results(self) -> list[list[MatchOutcome]]:
        return []  # the run waits for each table


def test_a_batch_season_closed_while_it_runs_stops_with_one_line_and_leaves_nothing_planned(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine, _ = planned_ladder(f"sqlite:///{db}")  # 12 games planned (3 tables), the season of 12 games
    with pytest.raises(LadderError) as stopped:
        run_season(engine, SeasonSettings("s", games=12, min_players=4, max_players=4, seed=5), ClosesMidway(db),
                   Limits(), Tier.PLAIN)
    assert str(stopped.value) == "season 's' was closed while it ran: it plays no more games"
    found = statuses(engine)
    assert MatchStatus.PLANNED not in {status for status, _ in found.values()}
    done = [m for m, (status, _) in found.items() if status is MatchStatus.DONE]
    assert len(done) == 4  # the first table, recorded before the close; the second came back after it
    assert {reason for status, reason in found.values() if status is MatchStatus.VOID} == {CLOSED_UNPLAYED}
    engine.dispose()
