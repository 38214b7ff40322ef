"""The games a flag takes back: while a pair the integrity audit flagged stands, and for good once the
operator confirms it, the games its two bots shared count in nobody's rating (TrueSkill is sequential: the
ratings are recomputed from the recorded games with those skipped, ``arena.ladder.rankings.TrueSkill.rerate``).
Clearing the flag gives them back. A pair cleared before and flagged again takes back only the games after
that clearing (the operator reviewed the ones before)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Collection, Sequence

from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from arena.db import AuditFlag, Bot, BotVersion, Match, MatchSeat, MatchStatus, stored_id, table_of

_ANY_FLAG = core_select(table_of(AuditFlag).c.id).limit(1)  # asked at every recording: made once


@dataclass(frozen=True)
class TakingFlag:
    """A flag that takes its pair's shared games out of the ratings: those after match id ``after``."""

    flag_id: int
    bots: tuple[int, int]  # bot ids
    names: tuple[str, str]  # in name order
    after: int
    confirmed: bool


@dataclass(frozen=True)
class NotRated:
    """Why a recorded game counts in no rating: the flagged pair that shared it."""

    match_id: int
    pair: tuple[str, str]
    confirmed: bool

    def words(self) -> str:
        """``not rated: flagged pair A/B`` (``, confirmed`` once the operator upheld the flag)."""
        return f"not rated: flagged pair {self.pair[0]}/{self.pair[1]}" + (" (confirmed)" if self.confirmed else "")


def taking_flags(session: Session) -> list[TakingFlag]:
    """Every flag that stands or was confirmed, oldest first, with the match id after which it takes games."""
    names = {stored_id(b): b.name for b in session.exec(select(Bot)).all()}
    marks: dict[frozenset[int], int] = {}
    taking = []
    for flag in session.exec(select(AuditFlag).order_by(col(AuditFlag.id))).all():
        pair = frozenset((flag.bot_a, flag.bot_b))
        if flag.cleared_at is not None:
            marks[pair] = flag.cleared_after or 0
            continue
        shown = sorted((names[flag.bot_a], names[flag.bot_b]))
        taking.append(TakingFlag(stored_id(flag), (flag.bot_a, flag.bot_b), (shown[0], shown[1]),
                                 marks.get(pair, 0), flag.confirmed_at is not None))
    return taking


def not_rated(session: Session, variant: str | None = None) -> dict[int, NotRated]:
    """The recorded games (of ``variant``; None: every format) that a flag takes out of the ratings, by match id."""
    flags = taking_flags(session)
    if not flags:
        return {}
    bots = {b for f in flags for b in f.bots}
    versions: dict[int, set[int]] = defaultdict(set)
    for version_id, bot_id in session.exec(select(BotVersion.id, BotVersion.bot_id)
                                           .where(col(BotVersion.bot_id).in_(bots))).all():
        versions[bot_id].add(stored_id_of(version_id))
    seated: dict[int, set[int]] = defaultdict(set)  # match id: the flagged bots seated in it
    by_version = {v: b for b, vs in versions.items() for v in vs}
    query = select(MatchSeat.match_id, MatchSeat.version_id, Match.rules_id).where(
        MatchSeat.match_id == Match.id, Match.status == MatchStatus.DONE,
        col(MatchSeat.version_id).in_(list(by_version)))
    for match_id, version_id, rules_id in session.exec(query).all():
        if variant is None or rules_id.rsplit("-v", 1)[0] == variant:
            seated[match_id].add(by_version[version_id])
    out: dict[int, NotRated] = {}
    for match_id, here in sorted(seated.items()):
        for flag in flags:
            if match_id > flag.after and set(flag.bots) <= here:
                out[match_id] = NotRated(match_id, flag.names, flag.confirmed)
                break
    return out


def is_taken(session: Session, match_id: int, version_ids: Collection[int]) -> bool:
    """Whether a game of these versions, recorded now as ``match_id``, is one a flag takes out of the ratings."""
    return match_id in taken_games(session, [(match_id, version_ids)])


def taken_games(session: Session, games: Sequence[tuple[int, Collection[int]]]) -> set[int]:
    """The match ids of ``games`` (match id, its version ids: games recorded now) that a flag takes out of the
    ratings (``is_taken`` of each, with one look at the flags: none at all, the usual case, costs one query)."""
    if session.connection().execute(_ANY_FLAG).first() is None:
        return set()
    flags = taking_flags(session)
    if not flags:
        return set()
    versions = list({v for _, seated in games for v in seated})
    bot_of = dict(session.exec(select(BotVersion.id, BotVersion.bot_id).where(col(BotVersion.id).in_(versions))).all())
    taken = set()
    for match_id, seated in games:
        bots = {bot_of.get(v) for v in seated}
        if any(match_id > f.after and set(f.bots) <= bots for f in flags):
            taken.add(match_id)
    return taken


def stored_id_of(value: int | None) -> int:
    """A version id read from the database (never None once stored)."""
    if value is None:
        raise ValueError("a stored version without an id")
    return value
