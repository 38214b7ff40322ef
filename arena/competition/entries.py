"""A competition's entries: at the deadline each author's bot enters with its version current then, placed as the
ladder had it then. Versions submitted later play on the ladder, never in the competition."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from arena.db import (Bot, BotVersion, Competition, CompetitionEntry, Match, MatchSeat, MatchStatus, RatingSnapshot,
                      Season, VersionFormat, now, stored_id)
from arena.audit.store import run_audit
from arena.audit.words import finding_words
from arena.formats import format_of
from arena.ladder.random_seeds import private_deals
from arena.ladder.rankings import starting_skills

from arena.competition.store import utc

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Entry:
    """One entry as shown: the bot, its frozen version, and where the ladder had it at the deadline."""

    bot_id: int
    name: str
    author: str
    version_id: int
    version: int
    place: int
    score: float
    games: int
    finalist: bool
    retired: bool  # the bot has no active version now: it cannot be a finalist


@dataclass(frozen=True)
class EntryVersion:
    """The version a bot enters with: its id and number."""

    version_id: int
    number: int


def entry_versions(session: Session, competition: Competition, bot_id: int | None = None) -> dict[int, EntryVersion]:
    """By bot id (all, or ``bot_id``'s), the version each author's bot enters with: the bot's newest version stored
    by the deadline, where that version plays the competition's format. A bot whose newest version by then plays
    only other formats has left this one: it does not enter with an older version, whose rating stopped moving when
    it left (and whose ticket another bot of its author may hold now). Built-in reference bots and versions stored
    later do not enter."""
    deadline = utc(competition.deadline)
    query = select(BotVersion.bot_id, BotVersion.id, BotVersion.number, BotVersion.created_at).where(
        BotVersion.bot_id == Bot.id, col(Bot.builtin).is_(False))
    if bot_id is not None:
        query = query.where(BotVersion.bot_id == bot_id)
    newest: dict[int, EntryVersion] = {}
    for bot, version_id, number, created in session.exec(query.order_by(col(BotVersion.number))).all():
        if version_id is not None and utc(created) <= deadline:
            newest[bot] = EntryVersion(version_id, number)
    playing = set(session.exec(select(VersionFormat.version_id).where(
        VersionFormat.variant == competition.variant, VersionFormat.plays == True,  # noqa: E712
        col(VersionFormat.version_id).in_([v.version_id for v in newest.values()]))).all())
    return {bot: version for bot, version in newest.items() if version.version_id in playing}


def _rated_at(session: Session, competition: Competition, versions: list[int]) -> dict[int, tuple[float, int]]:
    """(mu - 3 sigma, rated games) of each version after its last game that ended by the deadline."""
    deadline = utc(competition.deadline)
    start = starting_skills(session, competition.variant)
    found = {v: (start[v].score, 0) for v in versions}
    rows = session.exec(select(RatingSnapshot, Match.finished_at).where(
        RatingSnapshot.match_id == Match.id, RatingSnapshot.variant == competition.variant,
        col(RatingSnapshot.version_id).in_(versions)).order_by(col(Match.rated_order))).all()
    for snapshot, finished in rows:
        if finished is not None and utc(finished) <= deadline:
            found[snapshot.version_id] = (snapshot.mu - 3 * snapshot.sigma, snapshot.games)
    return found


def _win_rate_at(session: Session, competition: Competition, bots: list[int]) -> dict[int, tuple[float, int, float]]:
    """(win rate, games, average gold) of each bot on the private deals of the ladder season its format played at
    the deadline (the newest begun by then that had results by then; the half no version had feedback on), counting
    games that ended by then."""
    deadline = utc(competition.deadline)
    finals = select(Competition.season_id).where(col(Competition.season_id).is_not(None))
    candidates = session.exec(select(Season).where(Season.variant == competition.variant,
                                                   col(Season.id).not_in(finals)).order_by(col(Season.id).desc())).all()
    begun = [s for s in candidates if utc(s.created_at) <= deadline]

    def had_results(s: Season) -> bool:
        first = session.exec(select(Match.finished_at).where(Match.season_id == s.id, Match.status == MatchStatus.DONE)
                             .order_by(col(Match.finished_at)).limit(1)).first()
        return first is not None and utc(first) <= deadline

    # the newest season begun by then that had results by then (one begun a minute before would place by name)
    season = next((s for s in begun if had_results(s)), begun[0] if begun else None)
    tally: dict[int, list[int]] = {b: [0, 0, 0] for b in bots}  # wins, games, gold
    if season is not None:
        private = private_deals(season.seed, season.games)
        counted: set[tuple[int, int]] = set()
        for bot_id, seed, seat, finished in session.exec(
                select(BotVersion.bot_id, Match.seed, MatchSeat, Match.finished_at).where(
                MatchSeat.match_id == Match.id, MatchSeat.version_id == BotVersion.id, Match.season_id == season.id,
                Match.status == MatchStatus.DONE).order_by(col(Match.id))).all():
            if bot_id not in tally or seed not in private or (bot_id, seed) in counted:
                continue
            if finished is None or utc(finished) > deadline:
                continue
            counted.add((bot_id, seed))
            tally[bot_id][0] += seat.rank == 1
            tally[bot_id][1] += 1
            tally[bot_id][2] += seat.coins or 0
    return {b: (w / g if g else 0.0, g, gold / g if g else 0.0) for b, (w, g, gold) in tally.items()}


def _solo_order(figures: dict[int, tuple[float, int, float]], names: dict[int, str]) -> list[int]:
    """The entries of a same-deals board by their results at the deadline: those that played at least half as many
    of the private deals as the most complete entry first (a bot that came late and won its few deals is not placed
    above bots that played them all; a deal lost to a void game, or a schedule's order at the deadline, demotes
    nobody), then by win rate, average gold and name, as the board orders them."""
    full = max((games for _, games, _ in figures.values()), default=0)
    return sorted(figures, key=lambda b: (figures[b][1] == 0, 2 * figures[b][1] < full, -figures[b][0],
                                          -figures[b][2], names[b]))


def freeze(session: Session, competition: Competition) -> bool:
    """Store the entries once the deadline has passed (the first look after it); False before the deadline."""
    if competition.frozen_at is not None:
        return True
    if now() < utc(competition.deadline):
        return False
    # the format's games audited first: a pair that fed right before the deadline, flagged by the next audit of the
    # living ladder only after the entries were placed, would keep its places (a flag's games are taken back and
    # every rating of the format recomputed, as the audit's side job does)
    if format_of(competition.variant).ranking.rated:  # a board of win rates takes no flag into account
        _, flagged = run_audit(session, competition.variant)
        for finding in flagged:
            log.warning("competition %s: the audit at the deadline flagged %s", competition.name,
                        finding_words(finding))
        session.refresh(competition)
        if competition.frozen_at is not None:  # another command froze it meanwhile
            return True
    chosen = entry_versions(session, competition)
    bots = {stored_id(b): b for b in session.exec(select(Bot).where(col(Bot.id).in_(list(chosen)))).all()}
    if format_of(competition.variant).ranking.rated:
        standing = _rated_at(session, competition, [v.version_id for v in chosen.values()])
        figures = {bot_id: standing[v.version_id] for bot_id, v in chosen.items()}
        ranked_after = format_of(competition.variant).ranking.ranked_after
        # as the board orders them: the versions with too few games for a rank below the ranked ones
        order = sorted(chosen, key=lambda b: (figures[b][1] < ranked_after, -figures[b][0], bots[b].name))
    else:
        solo = _win_rate_at(session, competition, list(chosen))
        order = _solo_order(solo, {b: bots[b].name for b in chosen})
        figures = {b: (rate, games) for b, (rate, games, _) in solo.items()}
    for place, bot_id in enumerate(order, start=1):
        score, games = figures[bot_id]
        session.add(CompetitionEntry(competition_id=stored_id(competition), version_id=chosen[bot_id].version_id,
                                     bot_id=bot_id, place=place, score=round(score, 4), games=games))
    competition.frozen_at = now()
    session.add(competition)
    session.commit()
    return True


def entries(session: Session, competition: Competition) -> list[Entry]:
    """The stored entries, by their place at the deadline (none before it is frozen)."""
    rows = session.exec(select(CompetitionEntry, Bot.name, Bot.author, BotVersion.number).where(
        CompetitionEntry.competition_id == competition.id, CompetitionEntry.bot_id == Bot.id,
        CompetitionEntry.version_id == BotVersion.id).order_by(col(CompetitionEntry.place))).all()
    active = set(session.exec(select(BotVersion.bot_id).where(BotVersion.active == True)).all())  # noqa: E712
    return [Entry(e.bot_id, name, author, e.version_id, number, e.place, e.score, e.games, e.finalist,
                  e.bot_id not in active) for e, name, author, number in rows]


@dataclass(frozen=True)
class EntryNote:
    """What a competition says of one version of an author's bot (the service's ``/api/me``, `arena status`)."""

    competition: str
    variant: str
    deadline: datetime
    entry: int | None  # the number of the bot's entering version; None: none entered (or the deadline is ahead)
    enters: bool  # whether this version is (or, before the deadline, would be) the entry

    def to_json(self) -> dict[str, object]:
        return {"competition": self.competition, "format": self.variant, "deadline": self.deadline.isoformat(),
                "entry": self.entry, "enters": self.enters}


def entry_notes(session: Session, version: BotVersion, formats: set[str]) -> list[EntryNote]:
    """What each competition of a format in ``formats`` that is not closed says of ``version`` (the active one)."""
    notes = []
    for competition in session.exec(select(Competition).where(col(Competition.closed_at).is_(None),
                                                              col(Competition.variant).in_(sorted(formats)))
                                    .order_by(col(Competition.id))).all():
        deadline = utc(competition.deadline)
        if now() < deadline:
            notes.append(EntryNote(competition.name, competition.variant, deadline, None, True))
            continue
        if competition.frozen_at is not None:  # stored: what entered, even if the versions would now say otherwise
            stored = session.exec(select(CompetitionEntry.version_id, BotVersion.number).where(
                CompetitionEntry.competition_id == competition.id, CompetitionEntry.bot_id == version.bot_id,
                BotVersion.id == CompetitionEntry.version_id)).first()
            entry = None if stored is None else EntryVersion(*stored)
        else:
            entry = entry_versions(session, competition, version.bot_id).get(version.bot_id)
        notes.append(EntryNote(competition.name, competition.variant, deadline,
                               None if entry is None else entry.number,
                               entry is not None and entry.version_id == stored_id(version)))
    return notes
