"""What the service shows an author about their own bots: versions, standings in every format, where the
active version stands (placing or ranked, paused), every recent failure with its evidence and the games whose
logs they may read — the bot's own standard error, which no public page carries — and one game's view of
their seats; never of a game whose deals are still secret."""
from __future__ import annotations

from typing import Any, Sequence

from sqlmodel import Session, col, select

from arena.competition.entries import entry_notes
from arena.submissions.accounts import find_author
from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, Season, SeatLog, SeatStatus, author_key, stored_id
from arena.db.queries import UNREAD_SOURCE, played_formats
from arena.formats import Format, format_of, formats
from arena.ladder.seasons import deals_secret
from arena.ladder.rankings import RatedStanding, Standing
from arena.ladder.roster import roster
from arena.ladder.seat_logs import KEEP_GAMES

FAILURES_SHOWN = 50  # the newest failed seats of each bot


class NotShown(Exception):
    """A game the author may not read: ``status`` is the HTTP status (404: no seat of theirs, 403: its deals
    are still secret), ``message`` the one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def secret_seasons(session: Session) -> list[int]:
    """The seasons whose games show nothing of themselves (``deals_secret``)."""
    return [stored_id(s) for s in session.exec(select(Season)).all() if deals_secret(s)]


def _authors_bots(session: Session, author_name: str) -> tuple[str, list[Bot]]:
    author = find_author(session, author_name)
    key = author.key if author is not None else author_key(author_name)
    bots = [b for b in session.exec(select(Bot).where(col(Bot.builtin).is_(False)).order_by(col(Bot.name))).all()
            if author_key(b.author) == key]
    return (author.name if author is not None else author_name), bots


def owner_report(session: Session, author_name: str) -> dict[str, Any]:
    """The author's bots (by name): versions, standings by format, newest failures with their stderr, the active
    version's placement (``active_json``) and the games whose logs the author may read."""
    author, bots = _authors_bots(session, author_name)
    board = roster(session)
    listed = {b.name: b for b in board.bots}
    # a game of a season whose deals are still secret (an open solo season) shows nothing of itself: a bot
    # could print the deal on stderr, for its author to read here and tune the next version
    secret = secret_seasons(session)
    report = []
    for bot in bots:
        versions = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id).options(UNREAD_SOURCE)
                                .order_by(col(BotVersion.number))).all()
        failures = session.exec(
            select(MatchSeat, BotVersion.number, Match.rules_id)
            .join(BotVersion, col(BotVersion.id) == MatchSeat.version_id)
            .join(Match, col(Match.id) == MatchSeat.match_id)
            .where(BotVersion.bot_id == bot.id, col(MatchSeat.status).is_not(None), MatchSeat.status != "ok",
                   col(Match.season_id).not_in(secret))
            .order_by(col(MatchSeat.match_id).desc()).limit(FAILURES_SHOWN)).all()
        listing = listed.get(bot.name)
        by_format = {} if listing is None else dict(zip((f.name for f in board.formats), listing.standings))
        standings = {f: (None if s is None else s.to_json()) for f, s in by_format.items()}
        active = next((v for v in versions if v.active), None)
        logs = session.exec(
            select(SeatLog.match_id).join(Match, col(Match.id) == SeatLog.match_id)
            .where(col(SeatLog.version_id).in_([stored_id(v) for v in versions]),
                   col(Match.season_id).not_in(secret))
            .order_by(col(SeatLog.match_id).desc()).limit(KEEP_GAMES)).all()
        report.append({
            "name": bot.name,
            "versions": [{"number": v.number, "active": v.active, "language": v.language, "sha256": v.sha256,
                          "by_operator": v.by_operator, "created": v.created_at.isoformat()} for v in versions],
            "standings": standings,
            "failures": [{"game": seat.match_id, "version": number, "rules": rules, "seat": seat.seat,
                          "status": None if seat.status is None else seat.status.value, "detail": seat.detail,
                          "request": seat.failure_request, "step": seat.failure_step, "stderr": seat.failure_log}
                         for seat, number, rules in failures],
            "active": None if active is None else active_json(session, active, by_format),
            "logs": list(dict.fromkeys(logs)),
        })
    return {"author": author, "bots": report}


def active_json(session: Session, version: BotVersion, standings: dict[str, Standing | None]) -> dict[str, Any]:
    """Where the active version stands: ``paused`` (why a live season stopped seating it, and when; None while
    it plays) and, in each format it plays, its games, its rank, and whether it is still ``placing``: fewer
    games than the format's ``ranked_after`` (no rank yet; a win-rate board ranks at once); ``competitions``, what
    each competition of its formats that is not closed says of it (``EntryNote``: its entry, or that it came after
    the deadline and is none)."""
    plays = set(played_formats(session, stored_id(version)))
    return {"version": version.number,
            "competitions": [note.to_json() for note in entry_notes(session, version, plays)],
            "paused": None if version.paused is None else {
                "reason": version.paused, "at": None if version.paused_at is None else version.paused_at.isoformat()},
            "formats": [placement_json(session, version, f, standings.get(f.name)) for f in formats()
                        if f.name in plays]}


def placement_json(session: Session, version: BotVersion, fmt: Format, row: Standing | None) -> dict[str, Any]:
    """One format of the active version (``row``: its board row, None when the board does not list it)."""
    ranked_after = fmt.ranking.ranked_after
    if row is not None:
        games, rank = row.games, row.rank
    else:  # e.g. a paused version, if its boards leave it out
        rating = session.get(Rating, (stored_id(version), fmt.name))
        games, rank = (rating.games if rating is not None else 0), None
    provisional = row.provisional if isinstance(row, RatedStanding) else games < ranked_after
    return {"format": fmt.name, "games": games, "ranked_after": ranked_after, "placing": games < ranked_after,
            "provisional": provisional, "rank": None if games < ranked_after else rank}


def owner_game(session: Session, author_name: str, match_id: int) -> dict[str, Any]:
    """Game ``match_id`` as its author's seats saw it: each seat's result, its failure's evidence and its
    standard error (its kept log, else a failure's own). ``NotShown`` for a game where the author has no seat
    (404, as if there were no such game) and for one whose deals are still secret (403)."""
    _, bots = _authors_bots(session, author_name)
    names = {stored_id(b): b.name for b in bots}
    match = session.get(Match, match_id) if 0 < match_id < 2**63 else None  # a database integer has 64 bits
    rows: Sequence[tuple[MatchSeat, BotVersion]] = [] if match is None or not names else session.exec(
        select(MatchSeat, BotVersion).join(BotVersion, col(BotVersion.id) == MatchSeat.version_id)
        .where(MatchSeat.match_id == match_id, col(BotVersion.bot_id).in_(list(names))).options(UNREAD_SOURCE)
        .order_by(col(MatchSeat.seat))).all()
    if match is None or not rows:
        raise NotShown(404, f"no game of yours has the number {match_id}")
    season = session.get(Season, match.season_id)
    if season is not None and deals_secret(season):
        raise NotShown(403, f"game {match_id} is of season {season.name!r}, whose deals stay secret until the "
                            "operator closes it; its logs are shown then")
    logs = {log.seat: log.text for log in session.exec(select(SeatLog).where(SeatLog.match_id == match_id)).all()}
    players = len(session.exec(select(MatchSeat.seat).where(MatchSeat.match_id == match_id)).all())
    return {"game": match_id, "rules": match.rules_id, "format": format_of(match.rules_id).name,
            "season": None if season is None else season.name, "state": match.status.value,
            "void_reason": match.void_reason, "players": players,
            "seats": [{"seat": seat.seat, "bot": names[version.bot_id], "version": version.number,
                       "status": None if seat.status is None else seat.status.value, "detail": seat.detail,
                       "coins": seat.coins, "rank": seat.rank, "decisions": seat.decisions,
                       "failure": None if seat.status in (None, SeatStatus.OK) else {
                           "request": seat.failure_request, "step": seat.failure_step, "stderr": seat.failure_log},
                       "stderr": logs.get(seat.seat, seat.failure_log)} for seat, version in rows]}
