"""A competition's result: the final's standings (TrueSkill from a fresh start with no drift, or win rate on the
same deals), the podium, and how sure the order is (a bootstrap over the final's deals, seeded)."""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Sequence

from sqlmodel import Session, col, select

from arena.db import Competition, Match, MatchSeat, MatchStatus, SeatStatus, stored_id
from arena.formats import format_of
from arena.ladder.rankings import wilson
from arena.ladder.ratings import MU, SIGMA, RatingBook, Skill

from arena.competition.entries import Entry, entries, freeze
from arena.competition.final import finalists_of, kept_apart
from arena.competition.store import Phase, final_season, find_competition, phase, utc

#: bootstrap resamples of the final's deals
RESAMPLES = 2000
Z95 = 1.96


@dataclass(frozen=True)
class FinalStanding:
    """A finalist's row of the final: its rating (a rated format: mu and sigma) or its win rate on the deals."""

    rank: int
    name: str
    author: str
    bot_id: int
    version: int
    version_id: int
    games: int
    wins: int
    failures: int  # seats that ended other than ok: it forfeited those games, and lost them
    avg_coins: float | None
    value: float  # what ranks it: mu, or the win rate
    low: float  # its 95% interval
    high: float
    sigma: float | None  # rated formats only

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "name": self.name, "author": self.author, "version": self.version,
                "games": self.games, "wins": self.wins, "failures": self.failures, "avg_coins": self.avg_coins,
                "value": self.value, "low": self.low, "high": self.high, "sigma": self.sigma}


@dataclass(frozen=True)
class Result:
    """Everything `arena competition show` and the winners page say of one competition."""

    name: str
    variant: str
    phase: Phase
    competition: Competition
    entries: tuple[Entry, ...]
    standings: tuple[FinalStanding, ...]  # empty while the final's results are not shown
    games: int  # the final's games recorded
    planned: int  # the final's games in all
    season: str | None
    winner_better: float | None  # P(the winner is better than the runner-up), by bootstrap; None without a final
    kept_apart: tuple[tuple[str, str, str], ...]  # (bot, bot, why): ``final.FLAGGED`` or ``final.ONE_AUTHOR``
    #: whether the final's standings and the entries' places and ladder figures may be shown: a same-deals format
    #: ranks on private deals, revealed only once the competition is closed (until then entries are listed by name)
    shown: bool
    match_ids: dict[str, tuple[int, ...]]  # each finalist's games in the final, by name

    @property
    def rated(self) -> bool:
        return format_of(self.variant).ranking.rated

    @property
    def podium(self) -> tuple[FinalStanding, ...]:
        """The first three, once the final is over and shown."""
        over = self.phase in (Phase.FINISHED, Phase.CLOSED)
        return self.standings[:3] if over and self.shown else ()

    def to_json(self) -> dict[str, Any]:
        c = self.competition
        return {"name": self.name, "format": self.variant, "phase": self.phase.value,
                "deadline": utc(c.deadline).isoformat(), "finalists": c.finalists, "final_games": c.final_games,
                "season": self.season, "games": self.games, "planned": self.planned,
                "entries": [{"place": e.place if self.shown else None, "name": e.name, "author": e.author,
                             "version": e.version,
                             "score": e.score if self.shown else None, "games": e.games if self.shown else None,
                             "finalist": e.finalist, "retired": e.retired} for e in self.entries],
                "podium": [{"place": s.rank, "name": s.name, "author": s.author, "version": s.version}
                           for s in self.podium],
                "standings": [s.to_json() for s in self.standings] if self.shown else [],
                "winner_better": self.winner_better if self.shown else None,
                "kept_apart": [list(p) for p in self.kept_apart]}


def _beaten(ranks: Sequence[int], seat: int) -> float:
    """The share of a game's other seats that ``seat`` finished ahead of (a tie: half)."""
    others = [r for s, r in enumerate(ranks) if s != seat]
    if not others:  # a one-player game: won or not
        return 1.0 if ranks[seat] == 1 else 0.0
    return sum(1.0 if ranks[seat] < r else 0.5 if ranks[seat] == r else 0.0 for r in others) / len(others)


def winner_better(units: Sequence[dict[int, tuple[float, float]]], first: int, second: int, seed: str) -> float:
    """The share of bootstrap resamples of ``units`` (deals: each finalist's (score, tiebreak) summed over its games
    there) in which ``first`` totals more than ``second`` (a tie: half; pure, seeded by ``seed``)."""
    if not units:
        return 0.5
    rng = random.Random(seed)
    better = 0.0
    for _ in range(RESAMPLES):
        a, b = [0.0, 0.0, 0], [0.0, 0.0, 0]
        for _k in range(len(units)):
            unit = units[rng.randrange(len(units))]
            for mine, who in ((a, first), (b, second)):
                if who in unit:
                    mine[0] += unit[who][0]
                    mine[1] += unit[who][1]
                    mine[2] += 1
        if not a[2] or not b[2]:
            better += 0.5
            continue
        key_a, key_b = (a[0] / a[2], a[1] / a[2]), (b[0] / b[2], b[1] / b[2])
        better += 1.0 if key_a > key_b else 0.5 if key_a == key_b else 0.0
    return round(better / RESAMPLES, 4)


def result(session: Session, name: str, store: bool = True) -> Result:
    """The competition's entries, final and standings as they stand (with ``store``, entries are frozen on the first
    look after the deadline; the site, which only reads, shows none until then)."""
    competition = find_competition(session, name)
    if store:
        freeze(session, competition)
    state = phase(session, competition)
    season = final_season(session, competition)
    fmt = format_of(competition.variant)
    finalists = finalists_of(session, competition)
    version_ids = [stored_id(v) for _, v in finalists]
    games: list[tuple[Match, list[MatchSeat]]] = []
    planned = 0
    if season is not None:
        matches = session.exec(select(Match).where(Match.season_id == season.id)).all()
        planned = season.games * (len(finalists) if fmt.same_deals else 1)
        done = sorted((m for m in matches if m.status == MatchStatus.DONE), key=lambda m: m.rated_order or 0)
        for match in done:
            seats = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)
                                 .order_by(col(MatchSeat.seat))).all()
            games.append((match, list(seats)))
    shown = not fmt.same_deals or state is Phase.CLOSED
    book = RatingBook({v: Skill(MU, SIGMA) for v in version_ids}, tau=0.0)
    tally: dict[int, list[float]] = {v: [0, 0, 0, 0.0] for v in version_ids}  # games, wins, failures, coins
    units: dict[int, dict[int, tuple[float, float]]] = {}  # by deal (its table; a same-deals final: its seed)
    mine: dict[int, list[int]] = {v: [] for v in version_ids}
    for match, seats in games:
        ranks = [s.rank or len(seats) for s in seats]
        versions = [s.version_id for s in seats]
        if fmt.ranking.rated:
            book.record(versions, ranks)
        unit = units.setdefault(match.seed if fmt.same_deals else match.table, {})
        for index, seat in enumerate(seats):
            if seat.version_id not in tally:
                continue
            row = tally[seat.version_id]
            row[0] += 1
            row[1] += seat.rank == 1
            row[2] += seat.status not in (None, SeatStatus.OK)
            row[3] += seat.coins or 0
            mine[seat.version_id].append(stored_id(match))
            score, tiebreak = unit.get(seat.version_id, (0.0, 0.0))
            unit[seat.version_id] = (score + _beaten(ranks, index), tiebreak + (seat.coins or 0))
    rows = []
    for bot, version in finalists:
        v = stored_id(version)
        played, wins, failures, coins = tally[v]
        avg = round(coins / played, 4) if played else None
        if fmt.ranking.rated:
            skill = book.get(v)
            value, sigma = skill.mu, skill.sigma
            low, high = skill.mu - Z95 * sigma, skill.mu + Z95 * sigma
            key: tuple[float, ...] = (-value,)
        else:
            value, sigma = (wins / played if played else 0.0), None
            low, high = wilson(int(wins), int(played))
            key = (-value, -(avg or 0.0))
        rows.append((key, bot.name, FinalStanding(0, bot.name, bot.author, stored_id(bot), version.number, v,
                                                  int(played), int(wins), int(failures), avg, round(value, 4),
                                                  round(low, 4), round(high, 4),
                                                  None if sigma is None else round(sigma, 4))))
    rows.sort(key=lambda r: (r[0], r[1]))
    standings = tuple(replace(s, rank=rank) for rank, (_, _, s) in enumerate(rows, 1))
    by_version = {s.version_id: s for s in standings}
    better = None
    if len(standings) >= 2 and games:
        first, second = standings[0].version_id, standings[1].version_id
        better = winner_better(list(units.values()), first, second, f"competition/{competition.name}")
    apart = tuple(kept_apart(competition))
    listed = entries(session, competition)
    if not shown:  # their places are the private deals' order: listed by name until the competition is closed
        listed.sort(key=lambda e: e.name)
    return Result(competition.name, competition.variant, state, competition, tuple(listed),
                  standings if games or season is not None else (), len(games), planned,
                  None if season is None else season.name, better,
                  apart, shown,
                  {by_version[v].name: tuple(ids) for v, ids in mine.items() if v in by_version})
