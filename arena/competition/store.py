"""Competitions in the database: making one, finding it, its deadline and the phase it is in."""
from __future__ import annotations

import enum
import math
import re
from datetime import datetime, timedelta, timezone

from sqlmodel import Session, col, select

from arena.db import Competition, Season, now
from arena.formats import format_of
from arena.text import TextError, check_text


class CompetitionError(ValueError):
    """A competition cannot be made, shown or played as asked."""


class Phase(enum.Enum):
    """Where a competition stands: the ladder is open until the deadline, then the final is played, then closed."""

    OPEN = "open"  # before the deadline: the open ladder
    FROZEN = "frozen"  # the deadline passed, the entries stand, no final yet
    FINAL = "final"  # the final was started and has games left to play
    FINISHED = "finished"  # every game of the final is recorded
    CLOSED = "closed"  # `arena competition close`: the result stands, a same-deals final's deals are shown


#: how a relative deadline is written: ``+90s``, ``+30m``, ``+2h``, ``+7d``
_RELATIVE = re.compile(r"^\+(\d{1,6})([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC time (a database gives times back without their zone: they are stored in UTC)."""
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def parse_deadline(text: str, at: datetime | None = None) -> datetime:
    """A deadline as given: ISO 8601 (``2026-12-24T18:00``, UTC unless it names its zone) or from ``at`` (now),
    ``+30m``; it must lie ahead."""
    start = utc(at or now())
    relative = _RELATIVE.match(text.strip())
    if relative:
        moment = start + timedelta(**{_UNITS[relative.group(2)]: int(relative.group(1))})
    else:
        try:
            moment = utc(datetime.fromisoformat(text.strip()))
        except ValueError:
            raise CompetitionError(f"--deadline wants a time such as 2026-12-24T18:00 (UTC unless it names its "
                                   f"zone) or +30m (s, m, h, d from now), got {text!r}") from None
    if moment <= start:
        raise CompetitionError(f"--deadline {text!r} is {moment:%Y-%m-%d %H:%M:%S} UTC, not ahead of now "
                               f"({start:%Y-%m-%d %H:%M:%S} UTC)")
    return moment


#: the most games one round of a final may take (every group of a table's size at one seat-rotated deal):
#: 12 classic finalists make 3,960 (C(12, 5) groups of 5), 13 already 6,435
MAX_ROUND_GAMES = 5_000


def create_competition(session: Session, name: str, variant: str, deadline: datetime, finalists: int,
                       final_games: int) -> Competition:
    """Store a new competition of ``variant`` (a format name) whose entries freeze at ``deadline``."""
    try:
        check_text(name, "competition name", 64)
    except TextError as exc:
        raise CompetitionError(str(exc)) from None
    if not name.strip() or name != name.strip():
        raise CompetitionError(f"competition name {name!r} must not be empty or start or end with a space")
    try:
        fmt = format_of(variant)
    except ValueError as exc:
        raise CompetitionError(str(exc)) from None
    if session.exec(select(Competition).where(Competition.name == name)).first() is not None:
        raise CompetitionError(f"a competition named {name!r} exists already")
    if session.exec(select(Season).where(Season.name == final_season_name(name))).first() is not None:
        raise CompetitionError(f"competition {name!r}: its final would be season {final_season_name(name)!r}, "
                               "which exists already; choose another name")
    low = 2 if fmt.same_deals else max(2, fmt.players[0])
    if finalists < low:
        raise CompetitionError(f"--finalists {finalists}: a {fmt.name} final needs at least {low}")
    if final_games < 1:
        raise CompetitionError(f"--final-games {final_games}: at least 1")
    size = min(fmt.players[1], finalists)
    one_round = 0 if fmt.same_deals else math.comb(finalists, size) * size
    if one_round > MAX_ROUND_GAMES:
        raise CompetitionError(f"--finalists {finalists}: one round of a {fmt.name} final seats every group of "
                               f"{size} of them at a seat-rotated deal, {one_round:,} games; at most "
                               f"{MAX_ROUND_GAMES:,}: choose fewer finalists")
    row = Competition(name=name, variant=fmt.name, deadline=utc(deadline), finalists=finalists,
                      final_games=final_games)
    session.add(row)
    session.commit()
    session.refresh(row)
    return row


def final_season_name(name: str) -> str:
    """The season a competition's final is played in."""
    return f"final-{name}"


def find_competition(session: Session, name: str) -> Competition:
    row = session.exec(select(Competition).where(Competition.name == name)).first()
    if row is None:
        known = session.exec(select(Competition.name).order_by(col(Competition.id))).all()
        raise CompetitionError(f"no competition named {name!r}" + (f" (there are: {', '.join(known)})" if known
                                                                 else " (there is none: 'arena competition create')"))
    return row


def all_competitions(session: Session) -> list[Competition]:
    """Every competition, oldest first."""
    return list(session.exec(select(Competition).order_by(col(Competition.id))).all())


def final_season(session: Session, competition: Competition) -> Season | None:
    return None if competition.season_id is None else session.get(Season, competition.season_id)


def phase(session: Session, competition: Competition, at: datetime | None = None) -> Phase:
    if competition.closed_at is not None:
        return Phase.CLOSED
    season = final_season(session, competition)
    if season is not None:
        return Phase.FINISHED if season.finished_at is not None else Phase.FINAL
    return Phase.OPEN if utc(at or now()) < utc(competition.deadline) else Phase.FROZEN
