"""Recording finished matches: a batch of them (a table's games, or several tables') in one transaction, with a
few Core statements for the lot (no row objects loaded, changed and flushed per seat), then rated in the order
they came (``Ranking.record``).

A match is recorded only while it is ``planned``, and becomes ``done`` (or ``void``) in the transaction that stores
its seats, logs, replay and ratings: a batch is committed whole or not at all. A coordinator killed before the
commit leaves every game of the batch planned (its ratings were only in memory), and the next run plays them
again; nothing is recorded twice or half.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from itertools import count, groupby
from typing import Any, Sequence

from sqlalchemy import bindparam, func, or_, select, update
from sqlalchemy.exc import DataError
from sqlmodel import Session

from arena.db import Match, MatchSeat, MatchStatus, Season, SeatStatus, execute_many, now, one_line, table_of
from arena.formats import format_of
from arena.ladder.rankings import load_book
from arena.ladder.ratings import RatedGame, RatingBook
from arena.ladder.seat_logs import store_many_logs
from arena.play.tables import MatchOutcome

log = logging.getLogger(__name__)

MATCHES, SEATS, SEASONS = table_of(Match), table_of(MatchSeat), table_of(Season)
#: a match's columns a recording writes (bound as ``b_<name>``)
_RECORDED = ("status", "void_reason", "finished_at", "seconds", "replay", "flows", "rated_order")
#: a recorded match's columns that only some outcomes set (a void one: no replay, no rating)
_UNSET = {f"b_{name}": None for name in ("void_reason", "seconds", "replay", "flows", "rated_order")}
_UPDATE_MATCH = (update(MATCHES).where(MATCHES.c.id == bindparam("b_id"))
                 .values({name: bindparam("b_" + name) for name in _RECORDED}))
_SEAT_COLUMNS = ("coins", "rank", "status", "detail", "decisions", "time_ms", "failure_request", "failure_step",
                 "failure_log")
_UPDATE_SEAT = (update(SEATS).where(SEATS.c.match_id == bindparam("b_match"), SEATS.c.seat == bindparam("b_seat"))
                .values({name: bindparam("b_" + name) for name in _SEAT_COLUMNS}))
#: the planned matches of a batch and their seats, at once (a match of a closed season is not recorded)
_PLANNED = (select(MATCHES.c.id, MATCHES.c.rules_id, SEATS.c.seat, SEATS.c.version_id)
            .select_from(MATCHES.join(SEASONS, SEASONS.c.id == MATCHES.c.season_id)
                         .outerjoin(SEATS, SEATS.c.match_id == MATCHES.c.id))
            .where(MATCHES.c.id.in_(bindparam("ids", expanding=True)), MATCHES.c.status == MatchStatus.PLANNED,
                   SEASONS.c.closed_at.is_(None)))
#: whether a season of the batch's matches was closed (asked once the batch's writes hold the write lock)
_CLOSED = (select(MATCHES.c.id).select_from(MATCHES.join(SEASONS, SEASONS.c.id == MATCHES.c.season_id))
           .where(MATCHES.c.id.in_(bindparam("ids", expanding=True)), SEASONS.c.closed_at.is_not(None)).limit(1))
#: why a game of a season closed before it was played is void
CLOSED_UNPLAYED = "its season was closed before it was played"
#: a match its season's close did not void: played, planned, or void for a reason of its own (what pages list)
NOT_CLOSE_VOIDED = or_(MATCHES.c.void_reason.is_(None), MATCHES.c.void_reason != CLOSED_UNPLAYED)


class ClosedMeanwhile(Exception):
    """A season of the batch was closed between the batch's read of its planned matches and its writes."""


def void_unplayed(session: Session, season_id: int) -> int:
    """Make the season's games still planned void (``CLOSED_UNPLAYED``; not finished: no pace counts them), in the
    session's transaction; how many."""
    result = session.connection().execute(
        update(MATCHES).where(MATCHES.c.season_id == season_id, MATCHES.c.status == MatchStatus.PLANNED)
        .values(status=MatchStatus.VOID, void_reason=CLOSED_UNPLAYED))
    return int(result.rowcount)
_LAST_RATED = select(func.max(MATCHES.c.rated_order))

#: what a database says of one record's content (a value it cannot hold), unlike a full disk or a lost
#: server: the game is void and the season goes on, else every resume would stop at the same table
REFUSED_RECORD = (DataError, ValueError)


def record_outcomes(session: Session, book: RatingBook, outcomes: Sequence[MatchOutcome],
                    commit: bool = True) -> list[bool]:
    """Store finished matches, their seats' logs (``arena.ladder.seat_logs``) and their ratings in one transaction,
    committed here unless ``commit`` is False (the caller commits it with what it writes next); for each outcome,
    whether it was recorded (False: it was recorded already, or came twice)."""
    if not outcomes:
        if commit:
            session.commit()
        return []
    connection = session.connection()
    ids = list({o.match_id for o in outcomes})
    planned: dict[int, str] = {}
    seated: dict[int, dict[int, int]] = {}
    for match_id, rules_id, seat, version_id in connection.execute(_PLANNED, {"ids": ids}):
        planned[match_id] = rules_id
        if seat is not None:
            seated.setdefault(match_id, {})[seat] = version_id
    recorded: list[bool] = []
    stamp = now()  # the batch's games are recorded together
    matches: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    logs: list[tuple[int, int, int, str]] = []
    games: list[tuple[str, RatedGame]] = []
    for outcome in outcomes:
        rules_id = planned.pop(outcome.match_id, None)  # popped: a match that comes twice is recorded once
        recorded.append(rules_id is not None)
        if rules_id is None:
            continue
        row: dict[str, Any] = {"b_id": outcome.match_id, "b_finished_at": stamp, **_UNSET}
        matches.append(row)
        record = outcome.record
        if record is None:  # the machine or the referee could not play it: void, the season goes on
            row.update(b_status=MatchStatus.VOID, b_void_reason=(outcome.machine_fault or "not played")[:500])
            continue
        versions = seated.get(outcome.match_id, {})
        for seat, result in enumerate(record.seats):
            failure = result.failure
            seats.append({"b_match": outcome.match_id, "b_seat": seat, "b_coins": result.coins, "b_rank": result.rank,
                          "b_status": SeatStatus.of(result.status), "b_detail": result.detail[:500],
                          "b_decisions": result.decisions, "b_time_ms": result.time_ms,
                          "b_failure_request": failure.request if failure else "",
                          "b_failure_step": failure.step if failure else None,
                          "b_failure_log": failure.log if failure else ""})
            logs.append((outcome.match_id, seat, versions[seat], result.log))
        row.update(b_replay=outcome.stored_replay or record.replay_text, b_flows=outcome.flows,
                   b_seconds=record.seconds)
        if record.void:
            row.update(b_status=MatchStatus.VOID, b_void_reason=record.void[:500])
        else:
            row["b_status"] = MatchStatus.DONE
            games.append((rules_id, RatedGame(outcome.match_id, tuple(versions[s] for s in range(len(record.seats))),
                                              tuple(result.rank for result in record.seats))))
    if seats:  # a write first: the write lock is this session's before the reads that follow
        execute_many(connection, _UPDATE_SEAT, seats)
        store_many_logs(session, logs)
    if games:
        orders = count((connection.execute(_LAST_RATED).scalar() or 0) + 1)
        rated = {game.match_id: next(orders) for _, game in games}
        for row in matches:
            row["b_rated_order"] = rated.get(row["b_id"])
    if matches:
        execute_many(connection, _UPDATE_MATCH, matches)
        # the write lock is this transaction's now: a close that committed since the read above is seen here (its
        # games void), and the batch is read again (``record_or_void``)
        if connection.execute(_CLOSED, {"ids": [row["b_id"] for row in matches]}).first() is not None:
            raise ClosedMeanwhile()
    for name, group in groupby(games, key=lambda pair: format_of(pair[0]).name):  # in order; one run: one format
        format_of(name).ranking.record(session, book, name, [game for _, game in group])
    if commit:
        session.commit()
    return recorded


def record_outcome(session: Session, book: RatingBook, outcome: MatchOutcome) -> bool:
    """Store one finished match (``record_outcomes`` of one); False if it was already recorded."""
    return record_outcomes(session, book, [outcome])[0]


def record_or_void(session: Session, book: RatingBook, variant: str, outcomes: Sequence[MatchOutcome],
                   commit: bool = True) -> list[tuple[MatchOutcome, bool]]:
    """Record ``outcomes`` together (``record_outcomes``); each outcome as recorded, with whether it was (not: it came
    back twice). If the database refuses the batch for a record's content, the batch is rolled back, ``book`` (of
    ``variant``) read again, and its games recorded one at a time: the one refused is void instead, so that the
    season goes on. Another error is raised, the batch rolled back: its games stay planned, and are played again.
    ``commit`` False leaves the batch's transaction open for the caller (games recorded one at a time are committed
    one at a time)."""
    try:
        return list(zip(outcomes, record_outcomes(session, book, outcomes, commit)))
    except REFUSED_RECORD as exc:
        refused: Exception = exc
    except ClosedMeanwhile:  # read again: the closed season's games are void now, and not recorded
        session.rollback()
        book.take(load_book(session, variant))
        return record_or_void(session, book, variant, outcomes, commit)
    except Exception:
        session.rollback()
        raise
    session.rollback()
    book.take(load_book(session, variant))  # ratings the rollback undid
    if len(outcomes) > 1:  # one at a time: only the game the database refuses is void
        return [pair for outcome in outcomes for pair in record_or_void(session, book, variant, [outcome])]
    reason = f"the database refused its record: {one_line(getattr(refused, 'orig', None) or refused)}"
    log.error("match %d void: %s", outcomes[0].match_id, reason)
    outcome = replace(outcomes[0], record=None, machine_fault=reason, stored_replay=None)
    try:
        return [(outcome, record_outcome(session, book, outcome))]
    except Exception:
        session.rollback()
        raise
