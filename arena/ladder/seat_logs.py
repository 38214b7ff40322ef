"""Every seat's own standard error, kept for its owner: a version's logs of its latest ``KEEP_GAMES`` games
with output, each at most ``MAX_LOG_CHARS`` characters (its tail), so that the database grows only by games.
Only its owner reads them (arena/service/owner.py), never in a game whose deals are still secret, and no
public page shows them."""
from __future__ import annotations

from typing import Sequence

from sqlalchemy import delete, insert
from sqlmodel import Session, col, select

from arena.db import SeatLog, execute_many, table_of
from arena.play.records import MAX_SEAT_LOG

#: the games with output whose logs each version keeps; an older one's log is deleted when a newer one comes
KEEP_GAMES = 50
#: a log's bound, its last characters (at most 4 bytes each in UTF-8, stored compressed)
MAX_LOG_CHARS = MAX_SEAT_LOG
_INSERT_LOGS = insert(table_of(SeatLog))


def clip_log(text: str) -> str:
    """The tail of ``text`` that is kept: its last ``MAX_LOG_CHARS`` characters, marked when cut."""
    return text if len(text) <= MAX_LOG_CHARS else "…" + text[-(MAX_LOG_CHARS - 1):]


def store_logs(session: Session, match_id: int, seats: Sequence[tuple[int, int, str]]) -> int:
    """Add the logs of one game's seats (``(seat, version_id, text)``): ``store_many_logs`` of one game."""
    return store_many_logs(session, [(match_id, seat, version_id, text) for seat, version_id, text in seats])


def store_many_logs(session: Session, logs: Sequence[tuple[int, int, int, str]]) -> int:
    """Add the logs of finished games' seats (``(match_id, seat, version_id, text)``; an empty text stores nothing),
    in one statement, then delete each of those versions' logs beyond its newest ``KEEP_GAMES`` games. The caller
    commits, with the games. How many logs were added."""
    kept = [(m, seat, v, text) for m, seat, v, text in logs if text.strip()]
    if kept:
        execute_many(session.connection(), _INSERT_LOGS, [
            {"match_id": m, "seat": seat, "version_id": v, "text": clip_log(text)} for m, seat, v, text in kept])
    for version_id in {v for _, _, v, _ in kept}:
        prune(session, version_id)
    return len(kept)


def prune(session: Session, version_id: int, keep: int = KEEP_GAMES) -> None:
    """Delete ``version_id``'s logs of every game but its newest ``keep`` (by match id)."""
    oldest_dropped = session.exec(select(SeatLog.match_id).where(SeatLog.version_id == version_id)
                                  .order_by(col(SeatLog.match_id).desc()).offset(keep).limit(1)).first()
    if oldest_dropped is not None:
        session.execute(delete(SeatLog).where(col(SeatLog.version_id) == version_id,
                                              col(SeatLog.match_id) <= oldest_dropped))
