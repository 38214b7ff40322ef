"""Bots, deadlines and recorded games made up on real SQLite rows, for the competition tests
(test_competition.py, test_competition_entries.py)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.db import Competition, Match, MatchSeat, MatchStatus, Season, SeatStatus, now
from arena.db.queries import stored_id
from arena.submissions.accounts import ensure_author
from arena.submissions.versions import register


def entered(engine: Engine, names: list[str], variant: str = "duel") -> dict[str, int]:
    """A bot of each author ``names`` (author X's bot is ``X-bot``), playing ``variant``: their version ids."""
    with Session(engine) as session:
        return {name: stored_id(register(session, f"{name}-bot", f"# {name}\n", ensure_author(session, name),
                                         variants=[variant]).version) for name in names}


def past_deadline(engine: Engine, name: str) -> None:
    """Move competition ``name``'s deadline to now (the versions stored so far came before it)."""
    with Session(engine) as session:
        row = session.exec(select(Competition).where(Competition.name == name)).one()
        row.deadline = now()
        session.add(row)
        session.commit()


def game(session: Session, season: Season, seed: int, finished: datetime, seats: dict[int, int]) -> Match:
    """A recorded game of ``season`` (deck ``seed``), finished at ``finished``: version id -> rank."""
    order = int(session.exec(select(func.count()).select_from(Match)).one()) + 1
    match = Match(season_id=stored_id(season), number=order, table=order, seed=seed,
                  rules_id=f"{season.variant}-v1", status=MatchStatus.DONE, finished_at=finished, rated_order=order)
    session.add(match)
    session.flush()
    for seat, (version, rank) in enumerate(seats.items()):
        session.add(MatchSeat(match_id=stored_id(match), seat=seat, version_id=version, rank=rank, coins=5,
                              status=SeatStatus.OK))
    return match
