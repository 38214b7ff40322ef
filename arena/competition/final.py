"""A competition's final: its best entries play each other in a season of its own, on a fixed schedule.

The schedule: tables of ``size`` finalists (all of them when a table holds them, else every group of the largest
table size), each group at one seat-rotated deal a round (every finalist in every seat), so that every pair meets
equally often; rounds until at least ``--final-games`` games. A pair the audit flagged, or two bots of one author,
never share a table (as on the ladder): the groups holding one are left out (then those pairs never meet, and the
rest may meet unequally often; the winners page says so). A format of the same deals (solo) plays
``--final-games`` deals, every finalist each once. The season is planned, recorded, resumed and played on any
executor as every season is (``arena.ladder.seasons.run_season``)."""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Callable, Sequence

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.audit.store import flag_seating
from arena.db import Bot, BotVersion, Competition, CompetitionEntry, Season, SeatedVersion, author_group, now, stored_id
from arena.formats import format_of
from arena.ladder.executors import TableExecutor
from arena.ladder.planning import Game, LadderError, Planner, SeasonSettings, get_or_create_season
from arena.ladder.random_seeds import derived_random, match_seed
from arena.ladder.ratings import RatingBook
from arena.ladder.seasons import SeasonProgress, run_season
from sandbox import Limits, Tier

from arena.competition.entries import entries, freeze
from arena.competition.store import CompetitionError, Phase, final_season_name, find_competition, phase


@dataclass(frozen=True)
class Schedule:
    """The final's tables: each group of finalists (version ids) is one seat-rotated deal a round."""

    size: int
    groups: tuple[tuple[int, ...], ...]

    @property
    def games_per_round(self) -> int:
        return self.size * len(self.groups)

    def rounds(self, games: int) -> int:
        """Rounds for at least ``games`` games."""
        return max(1, math.ceil(games / self.games_per_round))


def schedule(finalists: Sequence[int], low: int, high: int, apart: set[frozenset[int]]) -> Schedule:
    """The groups of the largest table (``low``..``high`` players) that seat no pair of ``apart`` (pure)."""
    for size in range(min(high, len(finalists)), low - 1, -1):
        groups = tuple(g for g in itertools.combinations(finalists, size)
                       if not any(frozenset(p) in apart for p in itertools.combinations(g, 2)))
        if groups:
            return Schedule(size, groups)
    raise CompetitionError(f"the pairs the audit flagged leave no table of {low} finalists "
                           "(arena audit list; arena audit clear A B)")


def finalists_of(session: Session, competition: Competition) -> list[tuple[Bot, BotVersion]]:
    """The finalists' bots and frozen versions, best entry first."""
    return list(session.exec(select(Bot, BotVersion).where(
        CompetitionEntry.competition_id == competition.id, col(CompetitionEntry.finalist).is_(True),
        CompetitionEntry.bot_id == Bot.id, CompetitionEntry.version_id == BotVersion.id)
        .order_by(col(CompetitionEntry.place))).all())


#: why a pair of finalists never shares a table (``Competition.kept_apart``)
FLAGGED, ONE_AUTHOR = "audit", "author"


def kept_apart(competition: Competition) -> list[tuple[str, str, str]]:
    """The finalists the final keeps apart: (bot, bot, why), why ``FLAGGED`` or ``ONE_AUTHOR``."""
    return [(str(a), str(b), str(why)) for a, b, why in json.loads(competition.kept_apart or "[]")]


def apart_pairs(session: Session, competition: Competition) -> set[frozenset[int]]:
    """The finalists' version pairs the final keeps apart (``kept_apart``: names of bots)."""
    ids = {bot.name: stored_id(version) for bot, version in finalists_of(session, competition)}
    return {frozenset((ids[a], ids[b])) for a, b, _ in kept_apart(competition) if a in ids and b in ids}


class FinalPlanner(Planner):
    """Plans a final: its finalists (whatever became of their bots since: a retired or paused bot keeps its seat),
    the schedule's groups in turn, round by round."""

    seats_active = False

    def __init__(self, session: Session, season: Season, book: RatingBook, builtin_only: bool = False) -> None:
        competition = session.exec(select(Competition).where(Competition.season_id == season.id)).one()
        self.finalists = finalists_of(session, competition)
        super().__init__(session, season, book, builtin_only)
        self.schedule = (None if self.same_deals else
                         schedule([stored_id(v) for _, v in self.finalists], season.min_players, season.max_players,
                                  apart_pairs(session, competition)))

    def _versions(self) -> list[SeatedVersion]:
        return [SeatedVersion(stored_id(b), stored_id(v), v.number, b.name, b.author, b.builtin)
                for b, v in self.finalists]

    def choose(self, placing: int | None = None) -> list[Game]:
        """The schedule's next group, seat-rotated (a final of the same deals: each finalist's next deals)."""
        if self.same_deals:
            return super().choose(placing)
        assert self.schedule is not None
        table = self.number // self.schedule.size
        round_, group = divmod(table, len(self.schedule.groups))
        order = list(self.schedule.groups[group])
        derived_random(self.spec.seed, "final", table).shuffle(order)  # who sits beside whom changes by round
        seed = match_seed(self.spec.seed, self.number)
        return [(seed, tuple(order[k:] + order[:k])) for k in range(len(order))]


def start_final(session: Session, name: str) -> tuple[Competition, list[str]]:
    """Choose the finalists and make the final's season, or find it made (a resumed final). Also the lines to say:
    the entries left out as retired."""
    competition = find_competition(session, name)
    state = phase(session, competition)
    if state is Phase.OPEN:
        raise CompetitionError(f"competition {name!r} is open until its deadline, "
                               f"{competition.deadline:%Y-%m-%d %H:%M:%S} UTC: its final starts after it")
    if state is Phase.CLOSED:
        raise CompetitionError(f"competition {name!r} is closed: its final was played")
    if competition.season_id is not None:
        return competition, []
    freeze(session, competition)
    fmt = format_of(competition.variant)
    rules = fmt.rules()
    listed = entries(session, competition)
    notes = [f"{e.name} is retired: not a finalist" for e in listed if e.retired]
    playing = [e for e in listed if not e.retired][:competition.finalists]
    if len(playing) < competition.finalists:
        raise CompetitionError(f"competition {name!r} has {len(playing)} "
                               f"{'entry' if len(playing) == 1 else 'entries'} that can play, fewer than its "
                               f"{competition.finalists} finalists (--finalists at create)")
    chosen = {e.version_id for e in playing}
    for row in session.exec(select(CompetitionEntry).where(CompetitionEntry.competition_id == competition.id)).all():
        row.finalist = row.version_id in chosen
        session.add(row)
    session.flush()
    competition.kept_apart = json.dumps(_kept_apart(session, competition, chosen))
    session.add(competition)
    session.flush()
    size = 1 if fmt.same_deals else min(rules.max_players, len(playing))
    low = 1 if fmt.same_deals else rules.min_players
    if fmt.same_deals:
        games = competition.final_games
    else:
        plan = schedule(sorted(chosen), low, size, apart_pairs(session, competition))
        games = plan.rounds(competition.final_games) * plan.games_per_round
        size = low = plan.size
    season = get_or_create_season(session, SeasonSettings(final_season_name(name), fmt.name, games, low, size))
    competition.season_id = season.id
    session.add(competition)
    session.commit()
    return competition, notes


def _kept_apart(session: Session, competition: Competition, versions: set[int]) -> list[tuple[str, str, str]]:
    """The finalists (of ``versions``) never to share a table, as the ladder seats them: each pair the audit
    flagged, and bots of one author (they could play as a team)."""
    finalists = finalists_of(session, competition)
    names = {stored_id(v): b.name for b, v in finalists}
    flagged = {frozenset(p) for p in flag_seating(session).apart}
    kept = []
    for (bot_a, a), (bot_b, b) in itertools.combinations(finalists, 2):
        pair = tuple(sorted((names[stored_id(a)], names[stored_id(b)])))
        group = author_group(bot_a)
        if frozenset((stored_id(a), stored_id(b))) in flagged:
            kept.append((pair[0], pair[1], FLAGGED))
        elif group is not None and group == author_group(bot_b):
            kept.append((pair[0], pair[1], ONE_AUTHOR))
    return sorted(kept)


def run_final(engine: Engine, name: str, executor: TableExecutor | int, limits: Limits,
              tier: Tier | Callable[[TableExecutor], Tier],
              on_progress: Callable[[SeasonProgress], None] = lambda p: None) -> SeasonProgress:
    """Play (or resume) the final of competition ``name`` until every game is recorded (``start_final`` first)."""
    with Session(engine) as session:
        competition = find_competition(session, name)
        season = session.get(Season, competition.season_id) if competition.season_id is not None else None
        if season is None:
            raise CompetitionError(f"competition {name!r} has no final yet")
        settings = SeasonSettings(season.name, season.variant)
    try:
        return run_season(engine, settings, executor, limits, tier, on_progress, planner=FinalPlanner)
    except LadderError as exc:
        raise CompetitionError(str(exc)) from None


def close_competition(session: Session, name: str) -> Competition:
    """Close a competition whose final is over: the result stands, and its final's deals may be published."""
    competition = find_competition(session, name)
    state = phase(session, competition)
    if state is Phase.CLOSED:
        return competition
    if state is not Phase.FINISHED:
        raise CompetitionError(f"competition {name!r} cannot be closed: its final is not over ({state.value}; "
                               f"'arena competition final {name}' plays it)")
    season = session.get(Season, competition.season_id)
    if season is not None and season.closed_at is None:
        season.closed_at = now()
        session.add(season)
    competition.closed_at = now()
    session.add(competition)
    session.commit()
    return competition
