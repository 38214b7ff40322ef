"""`arena season close` on a season with games still planned (a stopped run, or the live ladder playing it): they
become void with their reason in the same transaction, the command says how many, the board stands as it was at
the close, and a game that was in flight at the close is not recorded when it ends."""
from __future__ import annotations

from pathlib import Path

from arena_helpers import run_arena
from recording_helpers import made_up_outcome, planned_ladder
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import Match, MatchStatus, Rating
from arena.ladder.rankings import load_book
from arena.ladder.recording import record_outcomes
from arena.ladder.seasons import CLOSED_UNPLAYED


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

    again = run_arena("season", "close", "s", db=db)  # already closed: nothing more becomes void
    assert again.returncode == 0, again.stderr
    assert "void" not in again.stdout
    assert statuses(engine) == after
    engine.dispose()
