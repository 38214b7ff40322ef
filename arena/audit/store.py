"""The integrity audit on the ladder's database: the recorded games it reads, the flags it stores and
clears, and the pairs the planner keeps apart (arena/audit/stats.py holds the statistics)."""
from __future__ import annotations

import json
import logging
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from arena.audit.report import AuditReport, audit
from arena.audit.stats import AuditGame, PairFinding, audit_game, flows_from_json, table_scores
from arena.audit.teams import TeamFinding
from arena.audit.words import givers_of
from arena.db import (AuditFlag, Bot, BotVersion, Match, MatchSeat, MatchStatus, Season, author_group, now, stored_id,
                      table_of)
from arena.formats import formats
from engine.actions import action_from_json
from engine.replay import Replay


log = logging.getLogger(__name__)

_FLAGS = table_of(AuditFlag)
#: the flags that stand or were confirmed, as the planner asks before every table: a statement made once
_STANDING_FLAGS = core_select(_FLAGS.c.bot_a, _FLAGS.c.bot_b, _FLAGS.c.evidence).where(_FLAGS.c.cleared_at.is_(None))


class AuditError(ValueError):
    """The audit cannot run as asked (an unknown season or bot, a pair that is not flagged)."""


@dataclass(frozen=True)
class StoredFlag:
    """A flag as the commands and the site show it; ``givers``: the bots whose giving flagged the pair (the
    flag is theirs; the other bot received)."""

    bots: tuple[str, str]
    flagged_at: str
    scope: str
    evidence: dict[str, object]
    cleared_at: str | None
    givers: tuple[str, ...] = ()
    confirmed_at: str | None = None  # `arena audit confirm`: upheld for good, its giver retired

    @property
    def state(self) -> str:
        """``standing`` (until a review), ``confirmed`` or ``cleared``."""
        return "cleared" if self.cleared_at else "confirmed" if self.confirmed_at else "standing"

    def other(self, me: str) -> str:
        return self.bots[1] if self.bots[0] == me else self.bots[0]


def recorded_games(session: Session, variant: str | None = None, season: str | None = None) -> list[AuditGame]:
    """The done games of ``season`` (by name), or of every season of ``variant``, in recording order. A game's
    flows are read as its worker counted them (``Match.flows``); an older record is played again from its replay."""
    query = select(Match.id, Match.flows).where(Match.status == MatchStatus.DONE, Match.season_id == Season.id)
    if season is not None:
        row = session.exec(select(Season).where(Season.name == season)).first()
        if row is None:
            raise AuditError(f"no season {season!r} in this database")
        query = query.where(Match.season_id == row.id)
    elif variant is not None:
        query = query.where(Season.variant == variant)
    matches = [(int(match_id or 0), flows) for match_id, flows in session.exec(query.order_by(col(Match.id)))]
    seats: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    ids = [match_id for match_id, _ in matches]
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for match_id, seat, rank, name in session.exec(select(MatchSeat.match_id, MatchSeat.seat, MatchSeat.rank,
                                                               Bot.name).where(
                col(MatchSeat.match_id).in_(chunk), MatchSeat.version_id == BotVersion.id,
                BotVersion.bot_id == Bot.id)).all():
            seats[match_id].append((seat, name, rank or len(chunk)))
    games = []
    for match_id, flows in matches:
        rows = sorted(seats[match_id])
        bots, ranks = [n for _, n, _ in rows], [r for _, _, r in rows]
        if len(rows) < 2:
            continue
        if flows is not None:
            games.append(AuditGame(match_id, tuple(bots), table_scores(ranks), flows_from_json(flows)))
            continue
        replay = session.exec(select(Match.replay).where(Match.id == match_id)).one()
        if replay is None:
            continue
        try:
            games.append(audit_game(match_id, _actions_only(replay), bots, ranks))
        except (ValueError, KeyError, TypeError) as exc:
            # a record that does not play again (never seen): left out, and said
            log.warning("game %s left out of the audit: its record does not play again (%s)", match_id, exc)
    return games


def _actions_only(text: str) -> Replay | None:
    """A stored replay without its events (half the cost of reading it, and the audit plays the game
    again anyway); None for a game in which no deal was closed."""
    if '"traded"' not in text:
        return None
    data = json.loads(text)
    return Replay(str(data["rules_id"]), int(data["seed"]), tuple(map(str, data["seats"])),
                  tuple((int(seat), action_from_json(a)) for seat, a in data["actions"]), (), None)


def author_groups(session: Session) -> dict[str, str | None]:
    """Bot name -> its author's group (``arena.db.author_group``): a pair of one group is never audited."""
    return {bot.name: author_group(bot) for bot in session.exec(select(Bot)).all()}


def built_in_bots(session: Session) -> frozenset[str]:
    """The built-in bots' names: the audit never flags a pair or a team of them alone (``audit``'s ``trusted``)."""
    return frozenset(session.exec(select(Bot.name).where(col(Bot.builtin).is_(True))).all())


def _bot_ids(session: Session) -> dict[str, int]:
    return {bot.name: stored_id(bot) for bot in session.exec(select(Bot)).all()}


def cleared_marks(session: Session) -> dict[frozenset[str], int]:
    """For every pair that was cleared and not flagged since: the match id after which its games count again."""
    names = {v: k for k, v in _bot_ids(session).items()}
    marks: dict[frozenset[str], int] = {}
    for flag in session.exec(select(AuditFlag).order_by(col(AuditFlag.id))).all():
        pair = frozenset((names[flag.bot_a], names[flag.bot_b]))
        if flag.cleared_after is not None:
            marks[pair] = flag.cleared_after
        else:
            marks.pop(pair, None)
    return marks


def run_audit(session: Session, variant: str | None = None,
              season: str | None = None) -> tuple[AuditReport, list[PairFinding | TeamFinding]]:
    """Audit the games asked for, store a flag for every newly flagged pair and team; (report, findings newly
    flagged: the pairs, then the teams with a pair not flagged before)."""
    games = recorded_games(session, variant, season)
    report = audit(games, author_groups(session), cleared_marks(session), built_in_bots(session))
    standing = {p.bots for p in stored_flags(session) if p.cleared_at is None}
    ids = _bot_ids(session)
    scope = f"season {season}" if season is not None else f"variant {variant}" if variant else "every game"
    new: list[PairFinding | TeamFinding] = []
    for finding in report.flagged:
        if finding.bots in standing:
            continue
        session.add(AuditFlag(bot_a=ids[finding.bots[0]], bot_b=ids[finding.bots[1]], scope=scope,
                              evidence=json.dumps(finding.to_json(), sort_keys=True)))
        new.append(finding)
    teams = store_team_flags(session, report, scope, standing | {p.bots for p in new if isinstance(p, PairFinding)})
    session.commit()
    if new or teams:  # the games each new pair shared no longer count: every rating as if they had not been played
        rerate_all(session)
    return report, [*new, *teams]


def rerate_all(session: Session) -> None:
    """Recompute the ratings of every rated format from the recorded games, skipping those a flag takes back
    (arena/audit/flag_games.py); each recorder's book is read again before its next game (``RatingBook.generation``)."""
    for fmt in formats():
        if fmt.ranking.rated:
            fmt.ranking.rerate(session, fmt.name, write=True)


def stored_flags(session: Session) -> list[StoredFlag]:
    """Every flag, the standing ones first, newest first."""
    names = {v: k for k, v in _bot_ids(session).items()}
    rows = session.exec(select(AuditFlag).order_by(col(AuditFlag.id).desc())).all()
    flags = []
    for f in rows:
        evidence = json.loads(f.evidence)
        flags.append(StoredFlag((names[f.bot_a], names[f.bot_b]), f"{f.flagged_at:%Y-%m-%d %H:%M}", f.scope, evidence,
                                None if f.cleared_at is None else f"{f.cleared_at:%Y-%m-%d %H:%M}",
                                givers_of(evidence),
                                None if f.confirmed_at is None else f"{f.confirmed_at:%Y-%m-%d %H:%M}"))
    return sorted(flags, key=lambda f: f.cleared_at is not None)


def _standing_flag(session: Session, a: str, b: str) -> AuditFlag:
    """The flag of bots ``a`` and ``b`` that stands (neither cleared nor confirmed)."""
    ids = _bot_ids(session)
    for name in (a, b):
        if name not in ids:
            raise AuditError(f"no bot {name!r} in this database")
    pair = {ids[a], ids[b]}
    for flag in session.exec(select(AuditFlag).where(AuditFlag.cleared_at == None)).all():  # noqa: E711
        if {flag.bot_a, flag.bot_b} == pair:
            if flag.confirmed_at is not None:
                raise AuditError(f"the flag of bots {a!r} and {b!r} was confirmed "
                                 f"({flag.confirmed_at:%Y-%m-%d %H:%M}): it stands for good")
            return flag
    raise AuditError(f"bots {a!r} and {b!r} are not flagged")


def clear_flag(session: Session, a: str, b: str) -> int:
    """Clear the standing flag of bots ``a`` and ``b``: the games they shared count again (every rating is
    recomputed), and games from now on may flag them again. Returns the flag's id."""
    flag = _standing_flag(session, a, b)
    flag.cleared_at = now()
    flag.cleared_after = int(session.exec(select(func.max(Match.id))).one() or 0)
    session.add(flag)
    session.commit()
    rerate_all(session)
    return stored_id(flag)


def confirm_flag(session: Session, a: str, b: str) -> tuple[str, ...]:
    """Uphold the standing flag of bots ``a`` and ``b`` after a review: the games they shared stay out of the
    ratings for good and the pair is never seated together; its giver (both, if each gave to the other) is
    retired, a ladder rule. Returns the bots retired."""
    flag = _standing_flag(session, a, b)
    names = {v: k for k, v in _bot_ids(session).items()}
    pair = (names[flag.bot_a], names[flag.bot_b])
    givers = givers_of(json.loads(flag.evidence)) or pair  # a flag that names no giver: both gave
    retired = []
    for name in givers:
        bot_id = _bot_ids(session)[name]
        for version in session.exec(select(BotVersion).where(BotVersion.bot_id == bot_id,
                                                             BotVersion.active == True)).all():  # noqa: E712
            version.active = False
            session.add(version)
            retired.append(name)
    flag.confirmed_at = now()
    session.add(flag)
    session.commit()
    return tuple(sorted(set(retired)))


@dataclass(frozen=True)
class Seating:
    """What the flags ask of the planner: ``apart``, version ids of every pair of bots with a standing or
    confirmed flag (never seated together); ``receivers``, the versions of bots that only received in those
    flags (the flag is its giver's: the planner makes the giver wait, never the receiver)."""

    apart: frozenset[frozenset[int]] = frozenset()
    receivers: frozenset[int] = frozenset()


def flag_seating(session: Session) -> Seating:
    """The pairs kept apart and the pure receivers, from the flags that stand or were confirmed."""
    flags = session.connection().execute(_STANDING_FLAGS).all()
    if not flags:
        return Seating()
    flagged = {f.bot_a for f in flags} | {f.bot_b for f in flags}
    versions: dict[int, list[int]] = defaultdict(list)  # asked at every table: ids only, never the sources
    names: dict[int, str] = {}
    for version_id, bot_id, name in session.exec(select(BotVersion.id, BotVersion.bot_id, Bot.name).where(
            BotVersion.bot_id == Bot.id, col(BotVersion.bot_id).in_(flagged))).all():
        names[bot_id] = name
        if version_id is not None:
            versions[bot_id].append(version_id)
    gave: set[int] = set()
    received: set[int] = set()
    for f in flags:
        givers = set(givers_of(json.loads(f.evidence))) or {names.get(f.bot_a, ""), names.get(f.bot_b, "")}
        for bot_id in (f.bot_a, f.bot_b):
            (gave if names.get(bot_id) in givers else received).add(bot_id)
    return Seating(frozenset(frozenset((x, y)) for f in flags for x in versions[f.bot_a] for y in versions[f.bot_b]),
                   frozenset(v for bot_id in received - gave for v in versions[bot_id]))


def kept_apart(session: Session) -> set[frozenset[int]]:
    """Version ids of every pair of bots with a standing or confirmed flag: the planner never seats them together."""
    return set(flag_seating(session).apart)


# ----------------------------------------------------------------- team findings (arena.audit.stats.TeamFinding)
def store_team_flags(session: Session, report: AuditReport, scope: str,
                     flagged: set[tuple[str, str]]) -> list[TeamFinding]:
    """A flag for each giver of each flagged team with its receiver (``flagged``: pairs flagged already, left as
    they are), so that the planner keeps every giver of a team apart from its receiver as it does a pair. The
    evidence is the team's (``team``), with the pair and its giver; the scope says it is a team. Returns the
    teams that had a pair to store."""
    ids = _bot_ids(session)
    new = []
    for team in report.flagged_teams:
        stored = False
        for pair, giver in zip(team.pairs(), team.givers):
            if pair in flagged:
                continue
            evidence = {"bots": list(pair), "flagged_givers": [giver], "games": team.games, "team": team.to_json()}
            session.add(AuditFlag(bot_a=ids[pair[0]], bot_b=ids[pair[1]], scope=f"team, {scope}",
                                  evidence=json.dumps(evidence, sort_keys=True)))
            flagged.add(pair)
            stored = True
        if stored:
            new.append(team)
    return new
