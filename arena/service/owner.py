"""What the service shows an author about their own bots: versions, standings in every format, and every
recent failure with its evidence — the bot's own standard error included, which no public page carries —
except in games whose deals are still secret."""
from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from arena.accounts import find_author
from arena.db import Bot, BotVersion, Match, MatchSeat, Season, author_key
from arena.ladder import deals_secret
from arena.roster import roster

FAILURES_SHOWN = 50  # the newest failed seats of each bot


def owner_report(session: Session, author_name: str) -> dict[str, Any]:
    """The author's bots (by name): versions, standings by format, newest failures with their stderr."""
    author = find_author(session, author_name)
    key = author.key if author is not None else author_key(author_name)
    board = roster(session)
    listed = {b.name: b for b in board.bots}
    bots = [b for b in session.exec(select(Bot).where(col(Bot.builtin).is_(False)).order_by(col(Bot.name))).all()
            if author_key(b.author) == key]
    # a game of a season whose deals are still secret (an open solo season) shows nothing of itself: a bot
    # could print the deal on stderr and fail, for its author to read here and tune the next version
    secret = [s.id for s in session.exec(select(Season)).all() if deals_secret(s)]
    report = []
    for bot in bots:
        versions = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)
                                .order_by(col(BotVersion.number))).all()
        failures = session.exec(
            select(MatchSeat, BotVersion.number, Match.rules_id)
            .join(BotVersion, col(BotVersion.id) == MatchSeat.version_id)
            .join(Match, col(Match.id) == MatchSeat.match_id)
            .where(BotVersion.bot_id == bot.id, col(MatchSeat.status).is_not(None), MatchSeat.status != "ok",
                   col(Match.season_id).not_in(secret))
            .order_by(col(MatchSeat.match_id).desc()).limit(FAILURES_SHOWN)).all()
        listing = listed.get(bot.name)
        standings = {} if listing is None else {
            f.name: (None if s is None else s.to_json()) for f, s in zip(board.formats, listing.standings)}
        report.append({
            "name": bot.name,
            "versions": [{"number": v.number, "active": v.active, "language": v.language, "sha256": v.sha256,
                          "by_operator": v.by_operator, "created": v.created_at.isoformat()} for v in versions],
            "standings": standings,
            "failures": [{"game": seat.match_id, "version": number, "rules": rules, "seat": seat.seat,
                          "status": None if seat.status is None else seat.status.value, "detail": seat.detail,
                          "request": seat.failure_request, "step": seat.failure_step, "stderr": seat.failure_log}
                         for seat, number, rules in failures],
        })
    return {"author": author.name if author is not None else author_name, "bots": report}
